"""The Streamlit app with AppTest: every page runs, controls do what they show, state crosses pages."""
import pytest

pytest.importorskip("streamlit")
import csv  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from html import unescape  # noqa: E402
from pathlib import Path  # noqa: E402

import tomllib  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
SAMPLE = ROOT / "sample_data" / "rag_audit_sample.csv"
PAGES = ["app_pages/audit.py", "app_pages/batch.py", "app_pages/metrics.py", "app_pages/insights.py", "app_pages/settings.py"]


def app(run: str = "") -> AppTest:
    """A new browser session; `run` is the run its address names (what a reload of a page showing a run has)."""
    at = AppTest.from_file(APP, default_timeout=60)
    if run:
        at.query_params["run"] = run
    return at.run()


def click(at: AppTest, label: str) -> AppTest:
    next(b for b in at.button if b.label == label).click().run()
    assert not at.exception, at.exception
    return until_job_ends(at) if label == "Run batch audit" else at


def until_job_ends(at: AppTest, limit_s: float = 120.0) -> AppTest:
    """A batch runs as a job in a worker process: rerun the page (as its progress fragment does) until the job the
    session watches has ended and its results are read back."""
    deadline = time.monotonic() + limit_s
    while "rt4.job" in at.session_state:
        assert time.monotonic() < deadline, "the batch job did not end in time"
        time.sleep(0.3)
        at.run()
        assert not at.exception, at.exception
    return at


def until_insights_end(at: AppTest, limit_s: float = 120.0) -> AppTest:
    """Action items are found by a task of the server: rerun the page (as its waiting fragment does) until the
    report is read back."""
    deadline = time.monotonic() + limit_s
    while at.session_state["insights.report"] is None if "insights.report" in at.session_state else True:
        assert time.monotonic() < deadline, "the action items did not come in time"
        time.sleep(0.3)
        at.run()
        assert not at.exception, at.exception
    return at


def html_of(at: AppTest) -> str:
    return " ".join(h.proto.body for h in at.get("html"))


def visible_text(at: AppTest) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html_of(at)))


def rag_logs_csv(rows: int, answer_word: str = "metres") -> bytes:
    """A CSV of RAG logs with its own column names (none of them 'context' or 'answer')."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["uid", "retrieved_docs", "llm_response", "user_query", "model_name", "gold_label"])
    for i in range(rows):
        writer.writerow([f"u{i}", f"The dam on river {i} is {40 + i} {answer_word} high. It opened in {1900 + i}.",
                         f"The dam is {40 + i + (i % 2)} {answer_word} high.", f"How high is dam {i}?",
                         "m-a" if i % 3 else "m-b", "true" if i % 2 else "false"])
    return buffer.getvalue().encode("utf-8")


def test_the_landing_page_runs_without_exception():
    at = app()
    assert not at.exception and at.title[0].value == "Audit an answer"


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_without_exception(page):
    at = app()
    at.switch_page(page).run()
    assert not at.exception


def test_load_example_then_audit_marks_spans_numbers_them_and_a_flag_opens_its_evidence():
    at = click(click(app(), "Load an example"), "Audit")
    body = html_of(at)
    assert 'data-status="hallucinated"' in body and "<mark" in body and 'class="rt4-num"' in body
    report = at.session_state["rt4.audit"]["report"]
    flagged = [r.claim.id for r in report.claims if r.verdict.is_hallucination]
    at.pills(key="audit.view.flag").set_value(flagged[-1]).run()
    assert not at.exception
    claim_id = at.selectbox(key="audit.view.claim").value
    assert claim_id == flagged[-1]  # one action: the flag opened its claim in the inspector
    shown = visible_text(at)
    assert f"Claim {claim_id + 1}:" in shown and "Verdict:" in shown and "Evidence," in shown


def test_a_result_whose_texts_changed_since_is_marked_out_of_date():
    at = click(click(app(), "Load an example"), "Audit")
    assert "have changed since" not in visible_text(at)
    at.text_area(key="w.audit.answer").set_value("The sky is green.").run()
    assert "have changed since" in visible_text(at)  # the result on screen is for the texts as they were


def test_a_result_from_another_judge_or_other_windows_is_marked_stale():
    at = app()
    at.sidebar.radio(key="w.judge").set_value("offline").run()
    at = click(click(at, "Load an example"), "Audit")
    assert "made with other settings" not in visible_text(at)
    at.sidebar.radio(key="w.judge").set_value("hybrid").run()
    assert "made with other settings (judge: offline → hybrid)" in visible_text(at)
    at.sidebar.radio(key="w.judge").set_value("offline").run()
    assert "made with other settings" not in visible_text(at)  # back to the settings that made it
    at.session_state["rt4.settings"]["window_size"] = 3
    at.run()
    assert "window size: 8 → 3" in visible_text(at)


def test_user_text_is_inert_everywhere_on_the_audit_page():
    at = app()
    question = "![x](http://127.0.0.1:9/beacon.gif) $x^2$ :red[alert] <b>bold</b>"
    at.session_state["w.audit.context"] = "The sky is blue."
    at.session_state["w.audit.answer"] = "The sky is <script>alert(1)</script> green <img src=x onerror=alert(2)>."
    at.session_state["w.audit.question"] = question
    at.run()
    at = click(at, "Audit")
    body = html_of(at)
    assert "<script" not in body and "<img" not in body and "<b>bold" not in body
    shown = visible_text(at)
    assert "<script>alert(1)</script>" in shown and question in shown
    markdown = " ".join(str(e.value) for e in list(at.markdown) + list(at.caption) + list(at.info) + list(at.warning))
    assert "beacon" not in markdown and "alert(1)" not in markdown  # user text never reaches Markdown


def test_settings_apply_to_every_audit_show_in_the_report_and_survive_page_changes():
    at = app()
    at.switch_page("app_pages/settings.py").run()
    at.number_input(key="w.window_size").set_value(2).run()
    at.number_input(key="w.window_stride").set_value(1).run()
    at.switch_page("app_pages/audit.py").run()
    assert any("Windows of 2 sentences every 1" in c.value for c in at.caption)
    at = click(click(at, "Load an example"), "Audit")
    report = at.session_state["rt4.audit"]["report"]
    assert report.manifest.settings["audit"]["window_size"] == 2
    assert report.coverage.windows == report.coverage.context_sentences - 1  # size 2, stride 1
    at.switch_page("app_pages/settings.py").run()
    assert at.number_input(key="w.window_size").value == 2 and at.number_input(key="w.window_stride").value == 1


def test_pasted_texts_survive_a_visit_to_another_page():
    at = app()
    at.text_area(key="w.audit.context").input("The tower is 300 metres tall.").run()
    at.switch_page("app_pages/settings.py").run()
    at.switch_page("app_pages/audit.py").run()
    assert at.text_area(key="w.audit.context").value == "The tower is 300 metres tall."


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="w.upload").set_value((name, data, "text/csv")).run()
    assert not at.exception, at.exception
    return at


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_columns_are_detected_by_name_words_and_the_mapping_and_results_survive_page_changes():
    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = upload(at, "logs.csv", rag_logs_csv(12))
    assert at.selectbox(key="w.map.context").value == "retrieved_docs"
    assert at.selectbox(key="w.map.answer").value == "llm_response"
    assert at.selectbox(key="w.map.question").value == "user_query"
    assert at.selectbox(key="w.map.id").value == "uid"
    assert at.selectbox(key="w.map.gold").value == "gold_label"
    assert at.multiselect(key="w.map.groups").value == ["model_name"]
    at.selectbox(key="w.map.question").set_value(None).run()  # an edit the user made
    at = click(at, "Run batch audit")
    assert len(at.session_state["rt4.results"].rows) == 12
    at.switch_page("app_pages/metrics.py").run()
    assert not at.exception
    at.switch_page("app_pages/batch.py").run()
    assert at.selectbox(key="w.map.context").value == "retrieved_docs"
    assert at.selectbox(key="w.map.question").value is None  # the edit is kept
    assert at.session_state["rt4.results"] is not None and any("12 of 12 rows shown" in c.value for c in at.caption)


@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
def test_a_new_dataset_replaces_mapping_results_and_selection_even_under_the_same_name():
    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = click(upload(at, "logs.csv", rag_logs_csv(6)), "Run batch audit")
    assert at.session_state["rt4.drill"] == "u0"
    at = upload(at, "logs.csv", rag_logs_csv(4, answer_word="feet").replace(b"uid", b"key_id"))
    assert "rt4.results" not in at.session_state or at.session_state["rt4.results"] is None
    assert at.session_state["rt4.dataset"].rows[0]["llm_response"].endswith("feet high.")
    assert at.selectbox(key="w.map.id").value == "key_id" and not at.session_state.get("rt4.drill")
    at = click(at, "Run batch audit")
    reports = at.session_state["rt4.results"].reports
    assert sorted(reports) == ["u0", "u1", "u2", "u3"] and all("feet" in r.answer for r in reports.values())


@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
def test_the_same_bytes_under_another_name_keep_the_results():
    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = click(upload(at, "a.csv", rag_logs_csv(3)), "Run batch audit")
    results = at.session_state["rt4.results"]
    at = upload(at, "copy-of-a.csv", rag_logs_csv(3))
    assert at.session_state["rt4.results"] is results


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_a_filter_that_shows_no_row_disables_the_downloads_and_says_so():
    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = click(click(at, "Load the demo dataset"), "Run batch audit")
    at.selectbox(key="w.filter.verdict").set_value("unverified").run()  # the offline judge never fails
    assert any("No rows match the filters" in c.value for c in at.caption)
    downloads = [b for b in at.get("download_button")]
    assert downloads and all(b.proto.disabled for b in downloads if b.proto.label.startswith("Download "))


@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
def test_metrics_put_headline_figures_first_and_show_gold_beside_the_judge_by_group():
    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = click(click(at, "Load the demo dataset"), "Run batch audit")
    at.switch_page("app_pages/metrics.py").run()
    assert not at.exception
    labels = [m.label for m in at.metric]
    assert labels[:8] == ["Answers audited", "Hallucination rate", "95% interval", "Unverified", "Precision",
                          "Recall", "F1", "Balanced accuracy"]
    charts = [c for c in at.get("plotly_chart")]
    group_chart = next(c for c in charts if "by" in c.proto.spec and "gold labels" in c.proto.spec)
    assert '"name":"judge"' in group_chart.proto.spec.replace(" ", "")


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_the_default_judge_agrees_with_every_demo_label_and_the_drill_down_button_says_so_by_being_off():
    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = click(click(at, "Load the demo dataset"), "Run batch audit")
    at.switch_page("app_pages/metrics.py").run()
    for kind in ("false positives", "false negatives"):
        at.selectbox(key="w.metrics.disagree").set_value(kind).run()
        assert any(c.value.startswith(f"0 {kind}:") for c in at.caption), [c.value for c in at.caption]
        assert next(b for b in at.button if b.label == "Open these rows in the batch drill-down").disabled


def test_disagreements_with_gold_open_those_rows_in_the_batch_drill_down():
    at = app()
    at.sidebar.radio(key="w.judge").set_value("offline").run()  # it misses two demo records; the default, none
    at.switch_page("app_pages/batch.py").run()
    at = click(click(at, "Load the demo dataset"), "Run batch audit")
    at.switch_page("app_pages/metrics.py").run()
    from rt4chart.reporting.views import agreement

    results = at.session_state["rt4.results"]
    import pandas as pd

    marks = agreement(pd.DataFrame(results.rows), results.mapping["gold"])
    kind = "false positives" if (marks == "false positive").any() else "false negatives"
    assert (marks == kind[:-1]).any(), "the offline judge should disagree with the demo's gold somewhere"
    at.selectbox(key="w.metrics.disagree").set_value(kind).run()
    click(at, "Open these rows in the batch drill-down")
    assert at.selectbox(key="w.filter.disagreement").value == kind
    drill = at.session_state["rt4.drill"]
    row = next(r for r in results.rows if r["id"] == drill)
    assert row["hallucinated"] is (kind == "false positives")
    assert set(at.selectbox(key="w.drill").options) == {str(i) for i, m in zip(pd.DataFrame(results.rows)["id"], marks)
                                                         if m == kind[:-1]}


@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
def test_insights_without_an_llm_find_issue_patterns_and_say_once_what_action_items_need():
    at = app()
    at.switch_page("app_pages/insights.py").run()
    assert "Run a batch audit first" in at.info[0].value
    at.switch_page("app_pages/batch.py").run()
    at = click(click(at, "Load the demo dataset"), "Run batch audit")
    at.switch_page("app_pages/insights.py").run()
    [llm] = [i.value for i in at.info if "LLM" in i.value]
    assert "written by an LLM" in llm and llm.count("LLM") == 1
    at = click(at, "Find issue patterns")  # was: nothing at all without an LLM
    patterns = at.session_state["insights.patterns"]
    flagged = sum(1 for r in at.session_state["rt4.results"].rows if r["hallucinated"])
    assert patterns and len({r for item in patterns for r in item.rows}) <= flagged
    assert patterns[0].count >= patterns[-1].count and "flagged claims in" in patterns[0].description
    shown = visible_text(at)
    assert patterns[0].title in shown
    next(b for b in at.button if b.label == "Open in the batch drill-down").click().run()
    assert at.session_state["rt4.drill"] == patterns[0].rows[0]


def test_the_missing_key_error_points_to_the_sidebar_field():
    at = app()
    at.sidebar.radio(key="w.judge").set_value("openai").run()
    at = click(click(at, "Load an example"), "Audit")
    shown = visible_text(at)
    assert "API key field in the sidebar" in shown and "--api-key" not in shown


def test_the_uploader_limit_is_the_limit_the_app_enforces():
    from app_pages._shared import MAX_UPLOAD_MB

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == MAX_UPLOAD_MB


def test_the_reflection_toggle_is_disabled_for_the_offline_judge_with_the_reason():
    at = app()
    assert at.toggle(key="w.reflect").disabled
    assert any("deterministic" in c.value for c in at.sidebar.caption)


def test_the_openai_judge_from_the_sidebar_audits_and_never_shows_the_key():
    from .fault_server import FaultServer

    secret = "sk-app-test-SECRET-4242"
    server = FaultServer(rate=0.0).start()
    try:
        at = app()
        at.sidebar.radio(key="w.judge").set_value("openai").run()
        at.text_input(key="w.base_url").input(server.url)
        at.text_input(key="w.model").input("local-model")
        at.text_input(key="w.api_key").input(secret).run()
        at.session_state["w.audit.context"] = "The dam is 40 metres high."
        at.session_state["w.audit.answer"] = "The dam is 40 metres high."
        at.run()
        at = click(at, "Audit")
        report = at.session_state["rt4.audit"]["report"]
        assert report.manifest.judge == "openai" and report.coverage.cost.calls >= 3
        assert server.stats["requests"] >= 3
        shown = " ".join(str(e.value) for e in at.markdown) + html_of(at)
        assert secret not in shown and secret not in report.to_json()
        assert at.text_input(key="w.api_key").proto.type == at.text_input(key="w.api_key").proto.PASSWORD
    finally:
        server.stop()


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_insights_page_lists_items_and_opens_an_example_row(monkeypatch):
    from . import fault_server

    gate = threading.Event()  # the action items' calls wait here: the page must not wait with them
    reply = fault_server.default_reply

    def gated(name: str, prompt: str) -> str:
        if name.startswith("insights"):
            assert gate.wait(30), "the test never opened the gate"
        return reply(name, prompt)

    monkeypatch.setattr(fault_server, "default_reply", gated)
    server = fault_server.FaultServer(rate=0.0, verdict_for=lambda claim_id: "baseless").start()
    opener = threading.Timer(8.0, gate.set)  # a page that waits for the calls would take these 8 s, then fail below
    try:
        at = app()
        at.sidebar.radio(key="w.judge").set_value("openai").run()
        at.text_input(key="w.base_url").input(server.url)
        at.text_input(key="w.api_key").input("sk-local").run()
        at.switch_page("app_pages/batch.py").run()
        at = click(click(at, "Load the demo dataset"), "Run batch audit")
        at.switch_page("app_pages/insights.py").run()
        opener.start()
        at = click(at, "Find action items")
        assert not gate.is_set() and "Finding action items" in " ".join(str(e.value) for e in at.info)
        at.switch_page("app_pages/batch.py").run()  # leaving the page does not stop the calls
        at.switch_page("app_pages/insights.py").run()
        assert "Finding action items" in " ".join(str(e.value) for e in at.info)
        gate.set()
        report = until_insights_end(at).session_state["insights.report"]
        assert report.items and report.items[0].title == "Unsupported claims" and report.warmup_steps == 10
        item = report.items[0]
        at.selectbox(key=f"insights.rows.{item.id}").set_value(item.rows[1]).run()
        next(b for b in at.button if b.key == f"insights.open.{item.id}").click().run()
        assert not at.exception
        assert at.session_state["rt4.drill"] == item.rows[1]
        assert at.selectbox(key="w.drill").value == item.rows[1]
    finally:
        gate.set()
        opener.cancel()
        server.stop()


@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
def test_a_refused_judge_configuration_stops_the_batch_with_one_message():
    from .endpoint_server import EndpointServer

    with EndpointServer("401") as server:
        at = app()
        at.sidebar.radio(key="w.judge").set_value("openai").run()
        at.text_input(key="w.base_url").input(server.url)
        at.text_input(key="w.api_key").input("sk-wrong-key-123456").run()
        at.switch_page("app_pages/batch.py").run()
        at = click(click(at, "Load the demo dataset"), "Run batch audit")
        sent = server.chat_requests
    shown = visible_text(at)
    assert shown.count("API key was rejected") == 1 and "HTTP 401" in shown
    assert at.session_state["rt4.results"] is None if "rt4.results" in at.session_state else True
    assert sent <= 3


def test_an_interrupted_audit_says_it_was_cancelled_and_keeps_nothing():
    at = app()
    at.session_state["rt4.audit"] = {"context": "A.", "answer": "B.", "question": "", "report": None, "running": True}
    at.run()
    assert "The audit was cancelled" in visible_text(at)
    at.run()
    assert "The audit was cancelled" not in visible_text(at)


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_an_app_batch_is_stored_and_a_cli_run_opens_in_the_app_without_re_running(tmp_path, capsys):
    from rt4chart.cli.main import main

    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = click(click(at, "Load the demo dataset"), "Run batch audit")
    assert main(["runs", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert len(listed) == 1 and listed[0]["name"].startswith("demo: sample_data/rag_audit_sample.csv")
    assert main(["batch", "--judge", "offline",
                 str(ROOT / "sample_data" / "rag_audit_sample.csv"), "-o", str(tmp_path / "o.jsonl"),
                 "--quiet", "--run-name", "from-cli"]) == 0
    at = app()
    at.switch_page("app_pages/runs.py").run()
    assert not at.exception
    cli_run = next(r["id"] for r in json.loads((main(["runs", "list", "--json"]), capsys.readouterr().out)[1])
                   if r["name"] == "from-cli")
    at.selectbox(key="w.runs.pick").set_value(cli_run).run()
    at = click(at, "Open in the batch page")
    results = at.session_state["rt4.results"]
    assert results.run_id == cli_run and len(results.rows) == 20
    assert at.selectbox(key="w.drill").value is not None and 'data-role="answer"' in html_of(at)


@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
def test_a_reload_reopens_the_run_in_the_address_and_never_a_run_someone_else_stored(tmp_path, capsys):
    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = click(click(at, "Load the demo dataset"), "Run batch audit")
    run_id = at.session_state["rt4.results"].run_id
    from rt4chart.cli.main import main

    assert at.query_params["run"] == run_id  # the page's address names the open run
    assert main(["batch", "--judge", "offline",
                 str(SAMPLE), "-o", str(tmp_path / "cli.jsonl"), "--run-name", "from-cli", "--quiet"]) == 0
    capsys.readouterr()
    assert "rt4.results" not in app().session_state  # was: every new session opened the CLI's newer run
    reloaded = app(run=run_id)  # a reload keeps its address
    assert reloaded.session_state["rt4.results"].run_id == run_id
    reloaded.switch_page("app_pages/batch.py").run()
    assert "Reopened the last run" in visible_text(reloaded) and len(reloaded.session_state["rt4.results"].rows) == 20


@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
def test_a_reopened_run_brings_its_settings_so_the_page_shows_what_made_its_results():
    at = app()
    at.switch_page("app_pages/settings.py").run()
    at.number_input(key="w.window_stride").set_value(2).run()
    at.switch_page("app_pages/batch.py").run()
    at = click(click(at, "Load the demo dataset"), "Run batch audit")
    run_id = at.session_state["rt4.results"].run_id
    reloaded = app(run=run_id)  # a reload: the session's settings are gone, the run's are not
    reloaded.switch_page("app_pages/batch.py").run()
    assert reloaded.session_state["rt4.settings"]["window_stride"] == 2
    assert any("every 2" in c.value for c in reloaded.caption)  # the settings line above the results


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_the_sessions_settings_live_in_the_address_and_a_reopened_run_says_when_they_differ_from_its_own():
    at = app()
    at.switch_page("app_pages/settings.py").run()
    at.number_input(key="w.window_size").set_value(6).run()
    at.toggle(key="w.custom_threshold").set_value(True).run()
    at.slider(key="w.threshold").set_value(0.4).run()
    assert (at.query_params["window"], at.query_params["threshold"]) == ("6", "0.4")
    assert "api_key" not in at.query_params and "judge" not in at.query_params  # defaults and secrets stay out
    at.switch_page("app_pages/batch.py").run()
    at = click(click(at, "Load the demo dataset"), "Run batch audit")
    run_id = at.session_state["rt4.results"].run_id
    at.switch_page("app_pages/settings.py").run()
    at.number_input(key="w.window_stride").set_value(2).run()  # changed after the run
    address = {k: at.query_params[k] for k in at.query_params}
    assert address["run"] == run_id and address["stride"] == "2"
    reloaded = AppTest.from_file(APP, default_timeout=60)
    for key, value in address.items():  # a reload: the same address in a new session
        reloaded.query_params[key] = value
    reloaded.run()
    settings = reloaded.session_state["rt4.settings"]
    assert (settings["window_size"], settings["window_stride"], settings["threshold"]) == (6, 2, 0.4)
    reloaded.switch_page("app_pages/batch.py").run()
    shown = visible_text(reloaded)
    assert "made with judge hybrid, windows of 6 sentences every 4" in shown and "differ" in shown
    bad = AppTest.from_file(APP, default_timeout=60)
    bad.query_params["window"], bad.query_params["stride"] = "0", "x"  # a hand-edited address
    bad.run()
    assert not bad.exception and bad.session_state["rt4.settings"]["window_size"] == 8


@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
def test_an_identical_rerun_opens_the_stored_run_instead_of_storing_a_copy():
    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = click(click(at, "Load the demo dataset"), "Run batch audit")
    first = at.session_state["rt4.results"].run_id
    again = app()
    again.switch_page("app_pages/batch.py").run()
    again = click(click(again, "Load the demo dataset"), "Run batch audit")
    assert again.session_state["rt4.results"].run_id == first and "already stored as run" in visible_text(again)
    from rt4chart.store import Store

    assert len(Store().list_runs()) == 1


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_review_in_the_drill_down_is_stored_and_two_sessions_keep_each_others_edits():
    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = click(click(at, "Load the demo dataset"), "Run batch audit")
    res = at.session_state["rt4.results"]
    row = at.selectbox(key="w.drill").value
    prefix = f"w.review.{res.run_id}.{row}"
    assert not [r for r in at.radio if r.key.startswith(prefix)]  # a name first, before any review control
    assert "Who is reviewing?" in " ".join(m.value for m in at.markdown)
    at.text_input(key=f"w.review.name.{res.run_id}").input("Ana Lima").run()
    other = app(run=res.run_id)  # a second browser session on the same run
    other.switch_page("app_pages/batch.py").run()
    other.text_input(key="w.reviewer").input("Ben").run()  # the sidebar's box does as well
    other.selectbox(key="w.drill").set_value(row).run()
    at.radio(key=f"{prefix}.0").set_value("judge is wrong").run()
    at.selectbox(key=f"{prefix}.0.verdict").set_value("baseless").run()
    at.radio(key=f"{prefix}.label").set_value("hallucinated").run()
    at = click(at, "Save review")
    other.text_input(key=f"{prefix}.note").input("second opinion").run()  # only the note: the label is at's
    click(other, "Save review")
    from rt4chart.store import Store

    latest = Store().reviews(res.run_id)
    assert latest[(row, 0)].judge_right is False and latest[(row, 0)].verdict == "baseless"
    assert latest[(row, None)].label == "hallucinated" and latest[(row, None)].note == "second opinion"
    assert latest[(row, 0)].reviewer == "Ana Lima" and latest[(row, None)].reviewer == "Ben"  # never the OS user
    at.switch_page("app_pages/metrics.py").run()
    assert next(m for m in at.metric if m.label == "Rows reviewed").value == "1"


def test_the_compare_page_shows_paired_rates_and_opens_a_flipped_row_side_by_side(tmp_path):
    import pandas as pd

    from rt4chart.cli.main import main

    sample = pd.read_csv(ROOT / "sample_data" / "rag_audit_sample.csv", dtype=str, keep_default_na=False)
    v2 = sample.copy()
    faithful = v2.index[v2["gold_hallucinated"] == "false"][0]
    v2.loc[faithful, "answer"] = v2.loc[faithful, "answer"] + " It was designed by Zaha Hadid in 1850."
    v2.to_csv(tmp_path / "v2.csv", index=False)
    # the offline judge: its verdicts on these rows are the ones this page's figures are written for
    assert main(["batch", str(ROOT / "sample_data" / "rag_audit_sample.csv"), "-o", str(tmp_path / "1.jsonl"),
                 "--quiet", "--run-name", "v1", "--judge", "offline"]) == 0
    assert main(["batch", str(tmp_path / "v2.csv"), "-o", str(tmp_path / "2.jsonl"), "--quiet", "--run-name",
                 "v2", "--window-size", "4", "--judge", "offline"]) == 0
    at = app()
    at.switch_page("app_pages/compare.py").run()
    assert not at.exception
    assert [m.label for m in at.metric] == ["Rows compared", "Hallucination rate A", "Hallucination rate B",
                                            "McNemar p"]
    assert any("settings.audit.window_size" in str(df.value) for df in at.dataframe)
    assert at.selectbox(key="w.compare.row").value == 0  # the flipped row, opened side by side
    claims_line = next(c.value for c in at.caption if "claims matched by their text" in c.value)
    assert "only in B" in claims_line  # the sentence the v2 answer gained is a claim run A never had
    body = html_of(at)
    assert body.count('data-role="answer"') == 2 and "Zaha Hadid" in body


def test_compare_shows_gold_intervals_claim_flips_and_says_when_settings_changed_nothing(tmp_path):
    from rt4chart.cli.main import main

    sample = str(ROOT / "sample_data" / "rag_audit_sample.csv")
    assert main(["batch", "--judge", "offline",
                 sample, "-o", str(tmp_path / "1.jsonl"), "--quiet", "--run-name", "v1"]) == 0
    assert main(["batch", "--judge", "offline", sample, "-o", str(tmp_path / "2.jsonl"), "--quiet", "--run-name", "v2",
                 "--window-stride", "3"]) == 0  # a setting that changes no verdict on these rows
    at = app()
    at.switch_page("app_pages/compare.py").run()
    assert not at.exception, at.exception
    figures = next(df.value for df in at.dataframe if "balanced accuracy" in df.value.columns)
    assert all(re.fullmatch(r"\d\.\d{3} \(\d\.\d\d–\d\.\d\d\)", v) for v in figures["balanced accuracy"])
    shown = visible_text(at) + " ".join(c.value for c in at.caption)
    assert "The settings changed, the results did not: none of the" in shown  # said nothing before
    assert re.search(r"\d+ claims matched by their text in 20 shared rows; 0 changed verdict", shown)
    assert any("settings.audit.window_stride" in str(df.value) for df in at.dataframe)


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_a_threshold_of_ones_own_changes_the_flags_and_the_metrics_show_the_precision_recall_curve():
    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = click(click(at, "Load the demo dataset"), "Run batch audit")
    default = sum(1 for r in at.session_state["rt4.results"].rows if r["hallucinated"])
    scores = sorted(r["score"] for r in at.session_state["rt4.results"].rows)
    at.switch_page("app_pages/metrics.py").run()
    assert any(c.proto.spec and "Precision and recall at every threshold" in c.proto.spec
               for c in at.get("plotly_chart"))
    assert any(m.label == "AUROC (ranking by score)" for m in at.metric)
    at.switch_page("app_pages/settings.py").run()
    at.toggle(key="w.custom_threshold").set_value(True).run()
    at.slider(key="w.threshold").set_value(0.99).run()
    at.switch_page("app_pages/batch.py").run()
    at = click(at, "Run batch audit")
    strict = sum(1 for r in at.session_state["rt4.results"].rows if r["hallucinated"])
    assert strict == sum(1 for s in scores if s >= 0.99) < default


def test_a_single_audit_is_kept_in_a_new_run_and_appended_to_it():
    from rt4chart.store import Store

    at = click(click(app(), "Load an example"), "Audit")
    at.text_input(key="w.audit.keep.row").input("harbor-4").run()
    at = click(at, "Save to the run")
    [run] = Store().list_runs()
    assert run.name == "single audits" and run.rows == 1
    assert "Saved as row harbor-4" in visible_text(at)  # the confirmation is shown, not folded away
    at = click(at, "Save to the run")  # the same result again: refused, no second run
    assert len(Store().list_runs()) == 1 and "already kept as row harbor-4" in visible_text(at)
    at = click(at, "Audit")  # a new result
    at.selectbox(key="w.audit.keep.run").set_value(run.id).run()
    at = click(at, "Save to the run")  # the same row id again: made unique, nothing overwritten
    assert [r["row_id"] for r in Store().row_index(run.id)] == ["harbor-4", "harbor-4#2"]
    assert Store().report(run.id, "harbor-4").status == at.session_state["rt4.audit"]["report"].status


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_records_the_reader_cannot_audit_are_failed_rows_and_a_header_only_file_stores_nothing():
    from rt4chart.store import Store

    deep = '{"id": "deep", "context": "X is 1.", "answer": "X is 1.", "meta": ' + "[" * 50_000 + "]" * 50_000 + "}"
    lines = [json.dumps({"id": "a", "context": "X is 1.", "answer": "X is 1."}),
             json.dumps({"id": "b", "context": "X is 1.", "answer": "X is \ud800 1."}), deep,
             json.dumps({"id": "c", "context": "X is 1.", "answer": "X is 2."})]
    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = click(upload(at, "logs.jsonl", ("\n".join(lines) + "\n").encode()), "Run batch audit")
    rows = at.session_state["rt4.results"].rows
    assert [r["status"] for r in rows] == ["faithful", "error", "error", "hallucinated"]  # the page crashed
    assert "lone surrogate" in rows[1]["error"] and "nests JSON deeper" in rows[2]["error"]
    [run] = Store().list_runs()
    assert run.rows == 4
    at = upload(app().switch_page("app_pages/batch.py").run(), "empty.csv", b"id,context,answer\n")
    assert "no records" in visible_text(at) + " ".join(e.value for e in [*at.error, *at.warning, *at.info])
    assert not [b for b in at.button if b.label == "Run batch audit" and not b.disabled]
    assert len(Store().list_runs()) == 1  # a header-only file stored a 0-row run, which broke later sessions
    assert not app().switch_page("app_pages/batch.py").run().exception


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
@pytest.mark.parametrize("kind", ["newer schema", "not a database"])
def test_a_store_the_app_cannot_use_is_one_message_on_the_pages_that_need_it(kind, tmp_path, monkeypatch):
    from sqlalchemy import text as sql

    from rt4chart.store import Store

    path = tmp_path / "store.sqlite3"
    if kind == "newer schema":
        s = Store(f"sqlite:///{path}")
        with s.engine.begin() as conn:
            conn.execute(sql("UPDATE store_meta SET value = '99' WHERE key = 'schema_version'"))
        s.close()
    else:
        path.write_bytes(b"not a database " * 100)
    monkeypatch.setenv("RT4CHART_DB", f"sqlite:///{path}")
    for page in ("app_pages/runs.py", "app_pages/compare.py"):
        at = app().switch_page(page).run()
        assert not at.exception, at.exception  # was a traceback on Runs and Compare
        shown = visible_text(at)
        assert str(path) in shown and ("newer than this rt4chart" in shown or "not a readable run store" in shown)
    at = click(click(app(), "Load an example"), "Audit")  # auditing one answer needs no store
    assert at.session_state["rt4.audit"]["report"].status == "hallucinated"


@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
def test_a_refused_upload_closes_the_previous_dataset_instead_of_leaving_it_ready_to_run():
    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = click(click(at, "Load the demo dataset"), "Run batch audit")
    at = upload(at, "broken.csv", b'id,context,answer\n1,"never closed,x\n')
    shown = visible_text(at)
    assert "never closed" in shown and "was closed so that it is not audited by mistake" in shown
    assert "its run is on the Runs page" in shown
    assert not [b for b in at.button if b.label == "Run batch audit"]  # was: the demo, still ready to run
    assert "rt4.results" not in at.session_state


@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
def test_the_review_panel_shows_each_claims_flagged_text_evidence_and_reason_beside_its_choice():
    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = click(click(at, "Load the demo dataset"), "Run batch audit")
    at.text_input(key="w.reviewer").input("Ana").run()
    panel = visible_text(at)
    report = at.session_state["rt4.results"].reports[at.session_state["rt4.drill"]]
    first = report.claims[0]
    assert first.claim.text in panel and first.evidence and first.evidence[0].text in panel
    assert "Why:" in panel and first.rationale in panel


def test_an_entailed_claim_of_the_hybrid_says_why_its_later_windows_were_not_read():
    at = app()
    at.session_state["w.audit.context"] = "The museum opened in 1998. Visitors doubled in the first six months."
    at.session_state["w.audit.answer"] = "The museum opened in 1998. Visitors doubled in 2004."  # 2004: a proof
    at.run()
    at = click(at, "Audit")
    report = at.session_state["rt4.audit"]["report"]
    assert report.manifest.judge == "hybrid"  # the app's default judge
    entailed = [r.claim.id for r in report.claims if r.local_verdict.value == "entailed"]
    other = [r.claim.id for r in report.claims if r.local_verdict.value != "entailed" and r.local]
    assert entailed and other
    at.selectbox(key="audit.view.claim").set_value(entailed[0]).run()
    assert any("after the first one that entails it" in c.value for c in at.caption)
    at.selectbox(key="audit.view.claim").set_value(other[0]).run()
    assert not any("after the first one that entails it" in c.value for c in at.caption)


@pytest.mark.slow  # a worker process
def test_a_batch_is_a_job_that_goes_on_when_its_page_is_left_and_a_reload_finds_it():
    from rt4chart.store import Store

    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = click(at, "Load the demo dataset")
    next(b for b in at.button if b.label == "Run batch audit").click().run()  # started, not waited for
    job_id = at.session_state["rt4.job"]["id"]
    assert at.query_params["job"] in (job_id, [job_id])  # the address names the job: a reload finds it
    at.switch_page("app_pages/audit.py").run()  # leave the page while it runs
    assert not at.exception
    reloaded = app()  # a reload: a new session, the same address
    reloaded.query_params["job"] = job_id
    reloaded.switch_page("app_pages/batch.py").run()
    reloaded = until_job_ends(reloaded)
    at = until_job_ends(at.switch_page("app_pages/batch.py").run())  # back on the page: its results are there
    [run] = Store().list_runs()  # one job, one stored run, seen by both sessions
    assert (run.rows, run.status) == (20, "complete")
    assert at.session_state["rt4.results"].run_id == run.id and len(at.session_state["rt4.results"].rows) == 20
    assert reloaded.session_state["rt4.results"].run_id == run.id and "job" not in reloaded.query_params
    assert "Stored as run" in visible_text(at)


@pytest.mark.slow  # a worker process
def test_the_open_row_is_in_the_address_and_a_link_to_it_opens_it():
    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = click(click(at, "Load the demo dataset"), "Run batch audit")
    run_id = at.session_state["rt4.results"].run_id
    at.selectbox(key="w.drill").set_value("volcano-2").run()
    assert at.query_params["row"] in ("volcano-2", ["volcano-2"])
    shared = app(run=run_id)  # another browser opens the link
    shared.query_params["row"] = "volcano-2"
    shared.switch_page("app_pages/batch.py").run()
    assert not shared.exception and shared.selectbox(key="w.drill").value == "volcano-2"


@pytest.mark.slow  # three CLI batches
def test_compare_opens_on_the_newest_run_and_an_earlier_one_that_shares_its_rows(tmp_path):
    from rt4chart.cli.main import main
    from rt4chart.store import Store

    other = tmp_path / "other.csv"
    other.write_text("id,context,answer\nx1,The lake is 4 km long.,The lake is 4 km long.\n")
    sample = str(ROOT / "sample_data" / "rag_audit_sample.csv")
    for name, source in (("v1", sample), ("unrelated", str(other)), ("v2", sample)):
        assert main(["batch", "--judge", "offline",
                     source, "-o", str(tmp_path / f"{name}.jsonl"), "--quiet", "--run-name", name,
                     "--window-size", "4" if name == "v2" else "8"]) == 0
    at = app()
    at.switch_page("app_pages/compare.py").run()
    names = {r.id: r.name for r in Store().list_runs()}
    assert (names[at.selectbox(key="w.compare.a").value], names[at.selectbox(key="w.compare.b").value]) == ("v1", "v2")
    assert not at.warning  # was: the two newest runs, which share no rows


def test_no_download_button_reruns_the_page():
    """A download click that also reruns the page can lose the file: the rerun's start empties the message queue that
    carries a deferred file back, and the button then spins for minutes (Streamlit 1.67). So every download button of
    the app says on_click="ignore"."""
    import ast

    rerunning = []
    for path in sorted([*(ROOT / "app_pages").glob("*.py"), ROOT / "app.py"]):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "download_button":
                ignore = [k for k in node.keywords if k.arg == "on_click" and isinstance(k.value, ast.Constant)
                          and k.value.value == "ignore"]
                if not ignore:
                    rerunning.append(f"{path.name}:{node.lineno}")
    assert rerunning == []


def test_filling_in_the_question_keeps_a_supported_answer_faithful():
    """#38's walk: the bridge answer is faithful with the default judge, and stays so once its question is filled in
    (v1 reads "question + whole sentence" as a hallucination; the sentences that say the claim are read without it)."""
    harbor = next(r for r in csv.DictReader(SAMPLE.open(newline="")) if r["id"] == "harbor-1")
    verdicts = []
    for question in ("", harbor["question"]):
        at = app()
        at.session_state["w.audit.context"] = harbor["context"]
        at.session_state["w.audit.answer"] = harbor["answer"]
        at.session_state["w.audit.question"] = question
        at = click(at.run(), "Audit")
        verdicts.append(at.session_state["rt4.audit"]["report"].status)
        assert 'data-status="faithful"' in html_of(at)
    assert verdicts == ["faithful", "faithful"]
