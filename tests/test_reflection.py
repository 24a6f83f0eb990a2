"""Iterative self-reflection of the LLM judge, with scripted replies."""
import json

import pytest

from rt4chart import audit
from rt4chart.core.config import AuditConfig
from rt4chart.core.types import Verdict
from rt4chart.judges.cache import MemoCache
from rt4chart.judges.llm.judge import OpenAIJudge
from rt4chart.judges.llm.openai_client import OpenAIChatClient

from .fakes import FakeOpenAI, default_reply

CONTEXT = "The plant opened in 2019. It employs 300 people."
ANSWER = "The plant opened in 2019. It employs 500 people."


def scripted(reflections):
    """Default replies for decomposition/verification; the n-th reflection call gets reflections[n]."""
    state = {"n": 0}

    def script(name, prompt, _):
        if name != "reflection":
            return default_reply(name, prompt)
        reply = reflections[min(state["n"], len(reflections) - 1)]
        state["n"] += 1
        return reply if isinstance(reply, str) else json.dumps(reply)
    return FakeOpenAI(script)


def run(fake, rounds=3, cache=None):
    judge = OpenAIJudge(OpenAIChatClient("m", client=fake, cache=cache, sleep=lambda s: None))
    return audit(CONTEXT, ANSWER, judge=judge, config=AuditConfig(reflect=True, max_rounds=rounds))


REVISE = {"success": False, "revisions": [{"claim_id": 1, "verdict": "contradicted", "evidence_sentence_ids": [1],
                                           "reason": "the context says 300"}]}
DONE = {"success": True, "revisions": []}


def test_reflection_stops_when_the_judge_declares_success():
    fake = scripted([DONE])
    report = run(fake)
    assert fake.names().count("reflection") == 1
    assert report.reflection.success and len(report.reflection.rounds) == 1
    assert report.coverage.reflection_rounds == 1 and report.reflection.flips == 0


def test_revisions_are_applied_and_kept_in_the_history():
    fake = scripted([REVISE, DONE])
    report = run(fake)
    claim = report.claims[1]
    assert claim.verdict is Verdict.CONTRADICTED and claim.history == [Verdict.ENTAILED, Verdict.CONTRADICTED,
                                                                       Verdict.CONTRADICTED]
    assert claim.evidence[0].relation == "contradicts" and "300" in claim.evidence[0].text
    assert report.hallucinated is True
    assert report.reflection.flips == 1 and report.reflection.changed_claims == 1
    assert [r.revisions for r in report.reflection.rounds] == [1, 0]
    assert all(r.cost.calls == 1 and r.cost.prompt_tokens > 0 for r in report.reflection.rounds)


def test_reflection_stops_at_the_round_cap():
    flip_flop = [REVISE, {"success": False, "revisions": [{"claim_id": 1, "verdict": "entailed",
                                                           "evidence_sentence_ids": [1], "reason": "fine"}]}]
    fake = scripted(flip_flop * 5)
    report = run(fake, rounds=4)
    assert fake.names().count("reflection") == 4
    assert len(report.reflection.rounds) == 4 and not report.reflection.success
    assert report.reflection.flips == 4


def test_a_reply_that_breaks_the_schema_ends_reflection_keeping_the_last_valid_verdicts():
    fake = scripted([REVISE, "{broken", "{broken"])
    report = run(fake)
    assert report.claims[1].verdict is Verdict.CONTRADICTED  # round 1 kept
    assert "round 2" in report.reflection.failure and not report.reflection.success
    assert any("reflection stopped early" in n for n in report.notes)


def test_reflection_calls_go_through_the_memo_cache(tmp_path):
    cache = MemoCache(tmp_path / "memo.sqlite3")
    run(scripted([REVISE, DONE]), cache=cache)
    again = scripted([REVISE, DONE])
    report = run(again, cache=cache)
    assert again.requests == [] and report.coverage.cost.calls == 0
    assert report.claims[1].verdict is Verdict.CONTRADICTED


def test_the_offline_judge_refuses_reflection_with_the_reason():
    with pytest.raises(ValueError, match="offline judge does not reflect.*deterministic"):
        audit(CONTEXT, ANSWER, config=AuditConfig(reflect=True))


def test_the_html_report_shows_a_verdict_changed_by_reflection():
    from rt4chart.reporting.html import report_html

    page = report_html(run(scripted([REVISE, DONE])))
    assert page.count('data-changed="true"') == 1 and "entailed → contradicted" in page
