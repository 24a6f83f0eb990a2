"""The `rt4chart` command end to end on small files."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rt4chart.cli.main import build_parser, main

SCORE_PY = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "score.py"

GOLD = [
    {"id": "a", "dataset": "toy", "task": "qa", "context": "The lake is 40 metres deep.", "answer": "The lake is 90 metres deep.",
     "hallucinated": True, "spans": [{"start": 12, "end": 21, "text": "90 metres", "label": "Conflict"}],
     "span_annotated": True, "meta": {"question": "How deep is the lake?"}},
    {"id": "b", "dataset": "toy", "task": "qa", "context": "The lake is 40 metres deep.", "answer": "It is 40 metres deep.",
     "hallucinated": False, "spans": [], "span_annotated": True, "meta": {"question": "How deep is the lake?"}},
    {"id": "c", "dataset": "toy", "task": "summary", "context": "Anna wrote the report in May.",
     "answer": "Anna wrote the report in May with Bob Stone.", "hallucinated": True,
     "spans": [{"start": 29, "end": 43, "text": "with Bob Stone", "label": "Baseless"}], "span_annotated": True},
    {"id": "d", "dataset": "toy", "task": "summary", "context": "Anna wrote the report in May.",
     "answer": "Anna wrote the report.", "hallucinated": True, "spans": [], "span_annotated": False},
]


@pytest.fixture
def gold_file(tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_text("\n".join(json.dumps(g) for g in GOLD) + "\n")
    return path


def test_audit_prints_marked_spans_and_claims(tmp_path, capsys):
    (tmp_path / "c.txt").write_text("The lake is 40 metres deep.")
    (tmp_path / "a.txt").write_text("The lake is 90 metres deep.")
    assert main(["audit", "--judge", "offline",
                 "--context", str(tmp_path / "c.txt"), "--answer", str(tmp_path / "a.txt")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("HALLUCINATED") and "[[90 metres]]" in out and "[contradicted]" in out


def test_audit_json_is_a_full_report(tmp_path, capsys):
    (tmp_path / "c.txt").write_text("The lake is 40 metres deep.")
    (tmp_path / "a.txt").write_text("The lake is 40 metres deep.")
    main(["audit", "--context", str(tmp_path / "c.txt"), "--answer", str(tmp_path / "a.txt"), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "faithful" and report["manifest"]["judge"] == "hybrid"


def test_the_cli_and_the_app_default_to_the_same_judge():
    """#37: one default, the judge with the best mean BA on the long-context dev files (docs/benchmarks.md)."""
    from app_pages.state import DEFAULTS
    from rt4chart.cli.parser import build_parser
    from rt4chart.core import defaults

    parser = build_parser()
    commands = [("audit", "--context", "c", "--answer", "a"), ("batch", "in.csv", "-o", "out.jsonl"),
                ("predict", "in.csv", "-o", "out.jsonl"), ("bench", "gold.jsonl")]
    assert {parser.parse_args(list(c)).judge for c in commands} == {DEFAULTS["judge"]} == {defaults.JUDGE}
    assert defaults.JUDGE == "hybrid"


def test_predict_writes_one_line_per_record_and_ends_with_one_summary_line(gold_file, tmp_path, capsys):
    out = tmp_path / "pred.jsonl"
    assert main(["predict", "--judge", "offline", str(gold_file), "-o", str(out), "--quiet"]) == 0
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("rt4chart: 4 rows: ") and " hallucinated, " in last and " faithful, 0 unverified, 0 failed, in " in last
    assert last.endswith(f"-> {out}")
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [p["id"] for p in lines] == ["a", "b", "c", "d"]
    assert lines[0]["hallucinated"] is True and lines[1]["hallucinated"] is False
    assert {"text", "verdict", "spans", "evidence"} <= set(lines[0]["claims"][0])


def test_a_record_that_fails_is_written_with_its_error_and_the_exit_code_says_so(tmp_path, monkeypatch):
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"id": "ok", "context": "x is 1.", "answer": "x is 1."}) + "\n"
                    + json.dumps({"id": "bad", "context": "boom", "answer": "y"}) + "\n")
    import rt4chart.batch.rows as batch

    real = batch.audit

    def flaky(context, *args, **kwargs):
        if context == "boom":
            raise RuntimeError("judge exploded")
        return real(context, *args, **kwargs)
    monkeypatch.setattr(batch, "audit", flaky)
    out = tmp_path / "out.jsonl"
    assert main(["predict", "--judge", "offline", str(path), "-o", str(out), "--quiet"]) == 1
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["id"] == "ok" and "error" not in lines[0]
    assert lines[1]["id"] == "bad" and "judge exploded" in lines[1]["error"]


def test_bad_input_is_one_clear_line_without_traceback(tmp_path):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("caf\xe9 cr\xe8me br\xfbl\xe9e, d\xe9j\xe0 vu".encode("latin-1"))
    result = subprocess.run([sys.executable, "-m", "rt4chart", "audit", "--judge", "offline",
                             "--context", str(bad), "--answer", str(bad)],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "not valid UTF-8" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.skipif(not SCORE_PY.exists(), reason="shared/benchmarks/score.py is not beside the project")
def test_bench_prints_the_same_figures_as_score_py(gold_file, tmp_path, capsys):
    preds = tmp_path / "pred.jsonl"
    main(["bench", "--judge", "offline", str(gold_file), "--json", "-o", str(preds), "--quiet"])
    ours = json.loads(capsys.readouterr().out)["results"]["all"]
    theirs = json.loads(subprocess.run([sys.executable, str(SCORE_PY), str(gold_file), str(preds), "--json"],
                                       capture_output=True, text=True, check=True).stdout)["results"]["all"]
    for key in ("precision", "recall", "f1", "balanced_accuracy", "tp", "fp", "fn", "tn"):
        assert ours["answer"][key] == theirs["answer"][key], key
    for key in ("precision", "recall", "f1", "pred_chars", "gold_chars", "overlap_chars"):
        assert ours["span"][key] == theirs["span"][key], key


def test_audit_reads_the_answer_from_standard_input(tmp_path):
    (tmp_path / "c.txt").write_text("The lake is 40 metres deep.")
    result = subprocess.run([sys.executable, "-m", "rt4chart", "audit", "--judge", "offline",
                             "--context", str(tmp_path / "c.txt"),
                             "--answer", "-", "--format", "json"], input="The lake is 90 metres deep.",
                            capture_output=True, text=True, env={**__import__("os").environ,
                                                                 "RT4CHART_CACHE_DIR": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["answer"] == "The lake is 90 metres deep." and report["hallucinated"] is True


def test_reflection_with_the_offline_judge_is_refused_with_the_reason(tmp_path, capsys):
    (tmp_path / "c.txt").write_text("A.")
    assert main(["audit", "--judge", "offline",
                 "--context", str(tmp_path / "c.txt"), "--answer", str(tmp_path / "c.txt"), "--reflect"]) == 2
    assert "does not reflect" in capsys.readouterr().err


def test_audit_can_write_the_self_contained_html_report(tmp_path, capsys):
    (tmp_path / "c.txt").write_text("The lake is 40 metres deep.")
    (tmp_path / "a.txt").write_text("The lake is <b>90</b> metres deep.")
    assert main(["audit", "--judge", "offline",
                 "--context", str(tmp_path / "c.txt"), "--answer", str(tmp_path / "a.txt"),
                 "--format", "html"]) == 0
    page = capsys.readouterr().out
    assert page.startswith("<!DOCTYPE html>") and "&lt;b&gt;" in page and "<b>90" not in page


def test_cache_info_and_clear(tmp_path, capsys, monkeypatch):
    from rt4chart.judges.cache import MemoCache

    monkeypatch.setenv("RT4CHART_CACHE_DIR", str(tmp_path / "c"))
    MemoCache().put("k", {"text": "x"})
    assert main(["cache"]) == 0 and "1 entries" in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0 and "removed 1 entries" in capsys.readouterr().out
    assert main(["cache", "info"]) == 0 and "0 entries" in capsys.readouterr().out


def test_audit_exit_codes_can_gate_a_pipeline(tmp_path, capsys):
    (tmp_path / "c.txt").write_text("The lake is 40 metres deep. It was dug in 1901.")
    (tmp_path / "bad.txt").write_text("The lake is 90 metres deep.")
    (tmp_path / "good.txt").write_text("The lake is 40 metres deep.")
    base = ["audit", "--judge", "offline", "--context", str(tmp_path / "c.txt"), "--answer"]
    assert main(base + [str(tmp_path / "bad.txt")]) == 0  # without --fail-on the exit code says only "it ran"
    assert main(base + [str(tmp_path / "bad.txt"), "--fail-on", "hallucinated"]) == 1
    assert main(base + [str(tmp_path / "good.txt"), "--fail-on", "hallucinated,unverified"]) == 0
    assert main(base + [str(tmp_path / "good.txt"), "--fail-on", "flaky"]) == 2
    assert "exit codes:" in build_parser().format_help() and "141" in build_parser().format_help()


def test_sentence_numbers_a_person_reads_are_one_based(tmp_path, capsys):
    (tmp_path / "c.txt").write_text("The lake is 40 metres deep. It was dug in 1901.")
    (tmp_path / "a.txt").write_text("It was dug in 1901.")
    main(["audit", "--judge", "offline", "--context", str(tmp_path / "c.txt"), "--answer", str(tmp_path / "a.txt")])
    out = capsys.readouterr().out
    assert "(context sentence 2)" in out and "S1" not in out


def test_predict_and_batch_take_column_options_and_fail_on(tmp_path):
    (tmp_path / "logs.csv").write_text("key,docs,reply,asked\nk1,The lake is 40 metres deep.,The lake is 90 metres "
                                       "deep.,How deep?\nk2,The lake is 40 metres deep.,The lake is 40 metres deep.,"
                                       "How deep?\n")
    out = tmp_path / "o.jsonl"
    cols = ["--id-col", "key", "--context-col", "docs", "--answer-col", "reply", "--question-col", "asked"]
    assert main(["predict", str(tmp_path / "logs.csv"), "-o", str(out), "--quiet", *cols]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(x["id"], x["status"]) for x in lines] == [("k1", "hallucinated"), ("k2", "faithful")]
    assert main(["batch", "--judge", "offline", str(tmp_path / "logs.csv"), "-o", str(out), "--quiet", "--no-cache",
                 "--restart", "--fail-on", "hallucinated", *cols]) == 1
    assert main(["predict", "--judge", "offline",
                 str(tmp_path / "logs.csv"), "-o", str(out), "--quiet", "--context-col", "nope"]) == 2


def test_bench_maps_columns_of_any_table(tmp_path, capsys):
    (tmp_path / "g.csv").write_text("key,docs,reply,label\nk1,The lake is 40 metres deep.,The lake is 90 metres "
                                    "deep.,yes\nk2,The lake is 40 metres deep.,The lake is 40 metres deep.,no\n")
    assert main(["bench", "--judge", "offline",
                 str(tmp_path / "g.csv"), "--quiet", "--id-col", "key", "--context-col", "docs",
                 "--answer-col", "reply", "--gold-col", "label", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["results"]["all"]["answer"]["balanced_accuracy"] == 1.0 and result["scored"] == 2
    assert result["workers"] == 1  # two rows: audited in this process whatever the machine
    assert main(["bench", "--judge", "offline", str(tmp_path / "g.csv"), "--quiet", "--id-col", "key",
                 "--context-col", "docs", "--answer-col", "reply", "--gold-col", "label"]) == 0
    assert "answers in" in (out := capsys.readouterr().out) and ", 1 worker); judge calls/answer" in out


def test_bench_refuses_to_score_a_run_that_verified_nothing(gold_file, tmp_path, capsys):
    from .endpoint_server import EndpointServer

    with EndpointServer("garbage") as server:
        code = main(["bench", str(gold_file), "--quiet", "--judge", "openai", "--base-url", server.url,
                     "--api-key", "k", "--model", "m", "--no-cache"])
    captured = capsys.readouterr()
    assert code == 1 and "no score" in captured.err and "BA=" not in captured.out
    assert "0 verified answers of 4" in captured.out or "scored over the 0" in captured.out


def test_batch_progress_shows_the_total_and_an_eta(tmp_path):
    rows = "\n".join(json.dumps({"id": f"r{i}", "context": "The lake is 40 metres deep.", "answer": "It is 40 metres deep."})
                     for i in range(30))
    (tmp_path / "in.jsonl").write_text(rows)
    result = subprocess.run([sys.executable, "-m", "rt4chart", "batch", "--judge", "offline",
                             str(tmp_path / "in.jsonl"), "-o",
                             str(tmp_path / "o.jsonl"), "--no-store"], capture_output=True, text=True, timeout=120,
                            cwd=Path(__file__).resolve().parents[1], env={**__import__("os").environ,
                                                                          "RT4CHART_CACHE_DIR": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    assert "/30" in result.stderr and "<" in result.stderr  # tqdm: done/total and the time left


def test_the_model_judges_read_with_the_threads_asked_for_and_refuse_a_negative_count(tmp_path, capsys):
    (tmp_path / "c.txt").write_text("The lake is 40 metres deep.")
    (tmp_path / "a.txt").write_text("The lake is 40 metres deep.")
    args = ["audit", "--context", str(tmp_path / "c.txt"), "--answer", str(tmp_path / "a.txt"), "--judge", "hybrid",
            "--format", "json"]
    assert main(args + ["--threads", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["manifest"]["settings"]["judge"]["threads"] == 1
    assert main(args + ["--threads", "-1"]) == 2
    assert "--threads must be 0" in capsys.readouterr().err


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_bench_streams_its_predictions_to_standard_output_and_the_scores_to_standard_error(gold_file, tmp_path):
    result = subprocess.run([sys.executable, "-m", "rt4chart", "bench", "--judge", "offline",
                             str(gold_file), "-o", "-", "--quiet"],
                            capture_output=True, text=True, cwd=tmp_path,
                            env={**__import__("os").environ, "RT4CHART_CACHE_DIR": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines and all("hallucinated" in p for p in lines)
    assert "answer-level" in result.stderr and "throughput" in result.stderr
    assert not (tmp_path / "-").exists()  # no file named '-'
