"""The openai judge against endpoints that misbehave the way real servers do: failures are never cached,
configuration errors stop the run, replies are bounded, formats fall back, every request is counted."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rt4chart import audit
from rt4chart.batch.rows import audit_record
from rt4chart.core.errors import JudgeFatalError
from rt4chart.core.rows import Record
from rt4chart.judges.cache import MemoCache
from rt4chart.judges.factory import make_judge

from .endpoint_server import EndpointServer

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-test-endpoint-KEY-0123456789abcdef"
CONTEXT = "The dam is 40 metres high. It was finished in 1931. It holds a lake of 12 square kilometres."
ANSWER = "The dam is 40 metres high. It was finished in 1931. The lake is 99 square kilometres."


def judge_for(server, cache=None, **options):
    options = {"timeout_s": 5, **options}
    return make_judge("openai", base_url=server.url, api_key=KEY, model="test-model", cache=cache,
                      use_cache=cache is not None, **options)


def test_failed_replies_are_never_cached_so_a_rerun_against_a_healthy_endpoint_gets_verdicts(tmp_path):
    cache = MemoCache(tmp_path / "memo.sqlite3")
    with EndpointServer("garbage") as server:
        first = audit(CONTEXT, ANSWER, judge=judge_for(server, cache))
        assert first.status == "unverified" and len(cache) == 0
        server.behaviour = "ok"
        second = audit(CONTEXT, ANSWER, judge=judge_for(server, cache))
        assert second.status == "faithful" and second.coverage.cost.calls > 0 and len(cache) > 0
        sent = server.chat_requests
        third = audit(CONTEXT, ANSWER, judge=judge_for(server, cache))
        assert server.chat_requests == sent  # a re-run of a good audit makes no call
        assert third.coverage.cost.calls == 0 and third.coverage.cost.cached_calls == second.coverage.cost.calls


def test_a_report_served_from_the_report_cache_counts_its_calls_as_cached(tmp_path):
    cache = MemoCache(tmp_path / "reports.sqlite3")
    with EndpointServer("ok") as server:
        record = Record("r", CONTEXT, ANSWER)
        made = audit_record(record, judge_for(server), None, cache).report
        served = audit_record(record, judge_for(server), None, cache).report
    assert made.coverage.cost.calls > 0 and made.coverage.cost.cached_calls == 0
    assert served.coverage.cost.calls == 0 and served.coverage.cost.prompt_tokens == 0
    assert served.coverage.cost.cached_calls == made.coverage.cost.calls


def _rows(path: Path, n: int) -> None:
    path.write_text("\n".join(json.dumps({"id": f"r{i}", "context": CONTEXT, "answer": f"The dam is {i} metres high."})
                              for i in range(n)))


@pytest.mark.parametrize("behaviour, words", [("401", "API key was rejected"), ("403", "API key was rejected"),
                                              ("404", "check the model name"), ("400", "rejects rt4chart's requests")])
@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_a_configuration_error_stops_the_run_within_a_few_requests_with_one_message(tmp_path, behaviour, words):
    _rows(tmp_path / "in.jsonl", 40)
    with EndpointServer(behaviour) as server:
        result = subprocess.run(
            [sys.executable, "-m", "rt4chart", "predict", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "o.jsonl"),
             "--judge", "openai", "--base-url", server.url, "--model", "test-model", "--workers", "8", "--quiet"],
            capture_output=True, text=True, timeout=120,
            env={"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", ""), "OPENAI_API_KEY": KEY,
                 "RT4CHART_DATA_DIR": os.environ["RT4CHART_DATA_DIR"],
                 "RT4CHART_CACHE_DIR": str(tmp_path)})
        sent = server.chat_requests
    assert result.returncode == 2
    assert sent <= 10, f"{sent} requests were sent after the endpoint refused the configuration"
    message = result.stderr.strip()
    assert message.count("\n") == 0 and words in message and f"HTTP {behaviour}" in message
    assert server.url in message and "'test-model'" in message and KEY not in message
    assert not (tmp_path / "o.jsonl").exists()


@pytest.mark.slow
def test_server_errors_and_timeouts_stay_per_call_failures(tmp_path):
    with EndpointServer("slow", slow_s=3) as server:
        started = time.perf_counter()
        report = audit(CONTEXT, "The dam is 40 metres high.", judge=judge_for(server, timeout_s=1, max_attempts=4))
        elapsed = time.perf_counter() - started
    assert report.status == "unverified"
    assert "no reply within 1 s" in report.claims[0].rationale
    # a timed-out deterministic request is retried once, not four times: 2 requests for each of the
    # three calls (decomposition, which falls back to the rule-based splitter; one window; global)
    assert report.coverage.cost.calls == server.chat_requests == 3 * 2
    assert report.coverage.cost.failed_calls == report.coverage.cost.calls and elapsed < 20


@pytest.mark.slow
def test_the_timeout_bounds_a_whole_reply_that_drips_one_byte_at_a_time(tmp_path):
    with EndpointServer("drip", drip_s=0.1) as server:  # each read arrives well within the timeout
        started = time.perf_counter()
        report = audit(CONTEXT, "The dam is 40 metres high.", judge=judge_for(server, timeout_s=1, max_attempts=4))
        elapsed = time.perf_counter() - started
    assert report.status == "unverified" and "no reply within 1 s" in report.claims[0].rationale
    assert report.coverage.cost.calls == 3 * 2  # each call: the request and its one retry
    assert elapsed < 15  # was unbounded: ~40 s per request at one byte a second


def test_a_partial_decomposition_never_reads_as_faithful(tmp_path):
    with EndpointServer("partial") as server:
        report = audit(CONTEXT, ANSWER, judge=judge_for(server))
        prompts = [m["content"] for r in server.requests for m in r["messages"] if m["role"] == "user"]
    texts = [c.claim.text for c in report.claims]
    assert texts == ["The dam is 40 metres high.", "It was finished in 1931.", "The lake is 99 square kilometres."]
    assert [c.claim.origin for c in report.claims] == ["judge", "coverage", "coverage"]
    assert any("The lake is 99 square kilometres." in p and "<claims>" in p for p in prompts[1:])
    assert any("without a claim" in note for note in report.notes)


def test_every_request_is_bounded_and_a_reply_cut_at_its_budget_is_a_failure_with_that_reason(tmp_path):
    with EndpointServer("loop") as server:
        started = time.perf_counter()
        report = audit(CONTEXT, "The dam is 40 metres high.", judge=judge_for(server))
        requests = server.requests
    assert time.perf_counter() - started < 30
    assert requests and all(r.get("max_tokens") for r in requests)
    assert all(r["max_tokens"] <= 8192 for r in requests)
    # each step: the first reply is cut off, the retry gets twice the budget and is cut off too
    budgets = [r["max_tokens"] for r in requests]
    assert budgets[1] == 2 * budgets[0] and len(requests) == 3 * 2  # decomposition, window, global
    assert report.status == "unverified"
    assert "cut off at its token budget" in report.claims[0].rationale
    assert "the repair failed too" in report.claims[0].rationale
    assert report.coverage.cost.calls == 6 and report.coverage.cost.failed_calls == 6


@pytest.mark.parametrize("behaviour, mode", [("llama-cpp-python", "json_object_schema"), ("no-json-schema", "json_object")])
def test_a_rejected_response_format_steps_down_once_and_is_remembered(tmp_path, behaviour, mode):
    with EndpointServer(behaviour) as server:
        judge = judge_for(server)
        first = audit(CONTEXT, ANSWER, judge=judge)
        rejected = server.chat_requests - first.coverage.cost.calls + first.coverage.cost.failed_calls
        second = audit(CONTEXT, "The dam is 40 metres high.", judge=judge)
        formats = [(r.get("response_format") or {}).get("type") for r in server.requests]
    assert first.status == second.status == "faithful"
    assert first.manifest.endpoint["response_format"] == mode
    assert first.coverage.cost.calls == len(formats) - second.coverage.cost.calls
    assert second.coverage.cost.failed_calls == 0  # remembered: no rejected request in the second audit
    assert rejected == first.coverage.cost.failed_calls and formats[0] == "json_schema" and formats[-1] == "json_object"


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_the_context_size_is_read_from_the_server_and_an_overflow_is_named_with_a_hint(tmp_path):
    long_context = " ".join(f"Gauge {i} reads {i * 3} units on the north bank." for i in range(2000))
    with EndpointServer("ok", n_ctx=4096) as server:
        report = audit(long_context, "Gauge 7 reads 21 units on the north bank.", judge=judge_for(server))
        assert server.stats["get /props"] == 1
    assert report.manifest.endpoint["context_tokens"] == 4096
    assert report.status == "faithful"  # the global step fitted its prompt into the 4096-token context
    assert any("4,096-token model context" in note for note in report.notes)
    with EndpointServer("ok", n_ctx=4096) as server:
        judge = judge_for(server, context_tokens=100_000)  # a wrong setting: the server overflows
        report = audit(long_context, "Gauge 7 reads 21 units on the north bank.", judge=judge)
    reason = report.claims[0].rationale
    assert "context overflow" in reason and "exceeds the available context size (4096 tokens)" in reason
    assert "--context-tokens" in reason


@pytest.mark.slow
def test_reasons_carry_the_servers_words_without_the_key():
    with EndpointServer("llama-cpp-python") as server:
        judge = judge_for(server, response_mode="json_schema")  # fixed: no fallback allowed
        report = audit(CONTEXT, "The dam is 40 metres high.", judge=judge)
    reason = report.claims[0].rationale
    assert "literal_error" in reason and "HTTP 500" in reason and KEY not in report.to_json()


def test_the_judge_fatal_error_is_raised_by_audit_and_batch_rows_are_not_marked_unverified():
    with EndpointServer("401") as server:
        with pytest.raises(JudgeFatalError, match="API key was rejected"):
            audit(CONTEXT, ANSWER, judge=judge_for(server))
        with pytest.raises(JudgeFatalError):
            audit_record(Record("r", CONTEXT, ANSWER), judge_for(server), None)


def test_the_plan_and_the_requests_sent_are_shown_side_by_side():
    with EndpointServer("ok") as server:
        healthy = audit(CONTEXT, ANSWER, judge=judge_for(server))
        server.behaviour = "garbage"
        broken = audit(CONTEXT, ANSWER, judge=judge_for(server))
    assert healthy.coverage.planned_calls == healthy.coverage.cost.calls == 3  # decomposition, 1 window, global
    assert broken.coverage.planned_calls == 3 and broken.coverage.cost.calls == 6  # each call repaired once
    from rt4chart.reporting.html import coverage_text

    assert "6 judge calls (plan 3) (6 failed)" in coverage_text(broken)
