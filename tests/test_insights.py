"""Dataset insights: warm-up, parallel phase, merging, interesting rows — with scripted replies."""
import json
import re
import threading
import time

import pytest

from rt4chart.insights.engine import build_insights, client_of, rows_from_predictions
from rt4chart.insights.types import AuditedRow
from rt4chart.judges.factory import make_judge
from rt4chart.judges.llm.openai_client import OpenAIChatClient

from .fakes import FakeOpenAI


def row(i, issues):
    return AuditedRow(id=f"r{i}", answer=f"answer {i}",
                      claims=[{"text": f"claim {i}.{k}", "verdict": "baseless", "evidence": ["ctx"]}
                              for k in range(issues)] + [{"text": "ok", "verdict": "entailed", "evidence": []}])


ROWS = [row(0, 1), row(1, 3), row(2, 0), row(3, 2), row(4, 1), row(5, 1), row(6, 2)]


def item(i, t, supported=True, merged=()):
    return {"id": i, "title": t, "description": f"{t} (desc)", "supported_by_row": supported, "merged_from": list(merged)}


def script_for(log):
    def script(name, prompt, n):
        rid = re.search(r"^id: (\S+)", prompt.split("<row>")[-1], re.M)
        log.append((name, rid.group(1) if rid else None))
        if name == "insights_warmup":
            current = json.loads(prompt.split("<items>\n")[1].split("\n</items>")[0])
            if not current:
                return json.dumps({"success": False, "items": [item("dates", "Invented dates")]})
            if rid.group(1) == "r3":  # adds an item that duplicates "dates" and merges it
                return json.dumps({"success": False, "items": [item("dates-2", "Dates not in passages",
                                                                    merged=["dates"]), item("names", "Invented names")]})
            return json.dumps({"success": True, "items": [item(i["id"], i["title"]) for i in current]})
        if name == "insights_check":
            new = rid.group(1) == "r5"
            return json.dumps({"adds_new": new, "supports": ["names"],
                               "new_items": [{"id": "units", "title": "Wrong units", "description": "d"}] if new else []})
        if name == "insights_consolidate":
            return json.dumps({"items": [{"id": "dates-2", "title": "Dates not in passages", "description": "d",
                                          "merged_from": []},
                                         {"id": "names", "title": "Invented names", "description": "d",
                                          "merged_from": []},
                                         {"id": "units", "title": "Wrong units", "description": "d",
                                          "merged_from": ["candidate-1"]}]})
        raise AssertionError(name)
    return script


def client(fake):
    return OpenAIChatClient("m", client=fake, sleep=lambda s: None)


def test_warm_up_then_parallel_phase_then_consolidation():
    log = []
    report = build_insights(ROWS, client(FakeOpenAI(script_for(log))), warmup=3, patience=5, workers=3)
    warm = [rid for name, rid in log if name == "insights_warmup"]
    assert warm == ["r1", "r3", "r6"]  # most hallucinated claims first, ties in input order
    assert sorted(rid for name, rid in log if name == "insights_check") == ["r0", "r4", "r5"]
    assert [name for name, _ in log][-1] == "insights_consolidate"
    assert report.skipped_rows == 1 and report.parallel_rows == 3
    by_id = {i.id: i for i in report.items}
    assert by_id["dates-2"].rows == ["r1", "r3", "r6"]  # merged item keeps the rows of "dates"
    assert set(by_id["names"].rows) == {"r3", "r6", "r0", "r4", "r5"}
    assert by_id["units"].rows == ["r5"] and report.interesting_rows == ["r5"]
    assert report.cost.calls == len(log) and report.cost.prompt_tokens > 0
    assert "Invented names" in report.to_markdown()


def test_the_warm_up_stops_early_once_the_list_is_stable():
    log = []
    build_insights(ROWS, client(FakeOpenAI(script_for(log))), warmup=10, patience=1)
    assert [rid for name, rid in log if name == "insights_warmup"] == ["r1", "r3", "r6"]
    assert len([1 for name, _ in log if name == "insights_check"]) == 3


def test_the_same_replies_give_the_same_report():
    first = build_insights(ROWS, client(FakeOpenAI(script_for([]))), warmup=3, workers=3)
    second = build_insights(ROWS, client(FakeOpenAI(script_for([]))), warmup=3, workers=1)
    strip = {"elapsed_s", "parallel_wall_s", "sequential_estimate_s"}
    assert first.model_dump(exclude=strip) == second.model_dump(exclude=strip)


def test_concurrency_of_the_parallel_phase_is_bounded():
    active, peak, lock = [0], [0], threading.Lock()
    inner = script_for([])

    def slow(name, prompt, n):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.05)
        with lock:
            active[0] -= 1
        return inner(name, prompt, n)
    rows = [row(i, 1) for i in range(20)]
    report = build_insights(rows, client(FakeOpenAI(slow)), warmup=1, workers=3)
    assert peak[0] <= 3 and report.parallel_rows == 19
    assert report.sequential_estimate_s > report.parallel_wall_s


def test_a_broken_reply_is_recorded_not_hidden():
    def script(name, prompt, n):
        return "not json"
    report = build_insights(ROWS, client(FakeOpenAI(script)), warmup=2)
    assert report.items == [] and len(report.failures) == 2 + 4


def test_insights_need_an_llm_judge():
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        client_of(make_judge("offline"))


def test_rows_come_from_predict_output_lines():
    lines = [{"id": "a", "claims": [{"text": "x", "verdict": "baseless", "evidence": [{"text": "e"}]}]},
             {"id": "b", "error": "boom"}]
    rows = rows_from_predictions(lines)
    assert [r.id for r in rows] == ["a"] and rows[0].issues == 1 and rows[0].claims[0]["evidence"] == ["e"]


def test_reason_kinds_drop_the_particulars_so_the_same_kind_of_flag_groups_together():
    from rt4chart.insights.patterns import reason_kind

    assert reason_kind("the context gives a different figure than '1,240 metres' (it says '1,300')") == \
        reason_kind("the context gives a different figure than '90 km'")
    assert reason_kind("the context does not mention 'Zaha Hadid'; nearest: ...") == "the context does not mention '…'"
