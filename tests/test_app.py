"""The Streamlit app with AppTest: every page runs, and the main scenarios work end to end."""
import pytest

pytest.importorskip("streamlit")
import re  # noqa: E402
from html import unescape  # noqa: E402
from pathlib import Path  # noqa: E402

from streamlit.testing.v1 import AppTest  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")

PAGES = ["pages/audit.py", "pages/batch.py", "pages/metrics.py", "pages/insights.py", "pages/settings.py"]


def app():
    at = AppTest.from_file(APP, default_timeout=60)
    return at


def test_the_landing_page_runs_without_exception():
    at = app().run()
    assert not at.exception
    assert at.title[0].value == "Audit an answer"


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_without_exception(page):
    at = app().run()
    at.switch_page(page).run()
    assert not at.exception


def test_load_example_then_audit_shows_spans_and_claims():
    at = app().run()
    next(b for b in at.button if b.label == "Load an example").click().run()
    next(b for b in at.button if b.label == "Audit").click().run()
    assert not at.exception
    html = " ".join(h.proto.body for h in at.get("html"))
    assert 'data-status="hallucinated"' in html and "<mark" in html
    assert len(at.dataframe) >= 1
    at.selectbox(key="audit.view.claim").set_value(1).run()
    assert not at.exception


def test_batch_on_the_demo_then_metrics():
    at = app().run()
    at.switch_page("pages/batch.py").run()
    next(b for b in at.button if b.label == "Load the demo dataset").click().run()
    next(b for b in at.button if b.label == "Run batch audit").click().run()
    assert not at.exception
    results = at.session_state["batch.results"]
    assert len(results) == 20 and any(r["hallucinated"] for r in results)
    at.switch_page("pages/metrics.py").run()
    assert not at.exception
    assert any(m.label == "Balanced accuracy" for m in at.metric)


def test_a_script_payload_is_rendered_as_text():
    at = app().run()
    at.session_state["audit.context"] = "The sky is blue."
    at.session_state["audit.answer"] = "The sky is <script>alert(1)</script> green <img src=x onerror=alert(2)>."
    at.run()
    next(b for b in at.button if b.label == "Audit").click().run()
    html = " ".join(h.proto.body for h in at.get("html"))
    assert "<script" not in html and "<img" not in html
    visible = unescape(re.sub(r"<[^>]+>", "", html))
    assert "<script>alert(1)</script>" in visible and "<img src=x onerror=alert(2)>" in visible


def test_insights_say_what_they_need_without_an_llm_judge():
    at = app().run()
    at.switch_page("pages/insights.py").run()
    assert not at.exception
    assert "needs an LLM judge" in at.info[0].value


def test_the_reflection_toggle_is_disabled_for_the_offline_judge_with_the_reason():
    at = app().run()
    toggle = at.toggle(key="judge.reflect")
    assert toggle.disabled
    assert any("deterministic" in c.value for c in at.sidebar.caption)


def test_the_openai_judge_from_the_sidebar_audits_and_never_shows_the_key():
    from .fault_server import FaultServer

    secret = "sk-app-test-SECRET-4242"
    server = FaultServer(rate=0.0).start()
    try:
        at = app().run()
        at.sidebar.radio(key="judge.name").set_value("openai").run()
        at.text_input(key="judge.base_url").input(server.url)
        at.text_input(key="judge.model").input("local-model")
        at.text_input(key="judge.api_key").input(secret).run()
        at.session_state["audit.context"] = "The dam is 40 metres high."
        at.session_state["audit.answer"] = "The dam is 40 metres high."
        at.run()
        next(b for b in at.button if b.label == "Audit").click().run()
        assert not at.exception
        report = at.session_state["audit.report"]
        assert report.manifest.judge == "openai" and report.coverage.judge_calls >= 3
        assert server.stats["requests"] >= 3
        shown = " ".join(str(e.value) for e in at.markdown) + " ".join(h.proto.body for h in at.get("html"))
        assert secret not in shown and secret not in report.to_json()
        assert at.text_input(key="judge.api_key").proto.type == at.text_input(key="judge.api_key").proto.PASSWORD
    finally:
        server.stop()


def test_insights_page_lists_items_and_opens_an_example_row():
    from .fault_server import FaultServer

    server = FaultServer(rate=0.0, verdict_for=lambda claim_id: "baseless").start()
    try:
        at = app().run()
        at.sidebar.radio(key="judge.name").set_value("openai").run()
        at.text_input(key="judge.base_url").input(server.url)
        at.text_input(key="judge.api_key").input("sk-local").run()
        at.switch_page("pages/batch.py").run()
        next(b for b in at.button if b.label == "Load the demo dataset").click().run()
        next(b for b in at.button if b.label == "Run batch audit").click().run()
        assert not at.exception
        at.switch_page("pages/insights.py").run()
        next(b for b in at.button if b.label == "Find action items").click().run()
        assert not at.exception
        report = at.session_state["insights.report"]
        assert report.items and report.items[0].title == "Unsupported claims" and report.warmup_steps == 10
        row_button = next(b for b in at.button if b.label.startswith("row "))
        row_id = row_button.label.removeprefix("row ")
        row_button.click().run()
        assert not at.exception
        assert at.session_state["batch.drill"] == row_id
        assert any(h.proto.body.find("data-status") >= 0 for h in at.get("html"))
    finally:
        server.stop()
