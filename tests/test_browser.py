"""One real-browser test: headless Chromium drives `streamlit run app.py` on 127.0.0.1."""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from .loopback import free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
playwright = pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM):
    pytest.skip("Debian chromium is not installed (apt-get install chromium)", allow_module_level=True)

HOSTILE = 'The bridge is <img src=x onerror="window.__xss=1"> red <script>window.__xss=2</script>.'
SHOTS = ROOT / "tests" / "output" / "screenshots"  # ignored by git; the docs image only on request
REFRESH_DOCS = os.environ.get("RT4CHART_REFRESH_DOCS") == "1"
SERVER_LOG = ROOT / "tests" / "output" / "streamlit-server.log"  # ignored by git, like the screenshots


@pytest.fixture(scope="module")
def app_server(tmp_path_factory):
    port = free_port()
    data = tmp_path_factory.mktemp("data")
    env = dict(os.environ, RT4CHART_CACHE_DIR=str(tmp_path_factory.mktemp("cache")), RT4CHART_DATA_DIR=str(data))
    env.pop("RT4CHART_DB", None)
    env.pop("OPENAI_API_KEY", None)
    SERVER_LOG.parent.mkdir(parents=True, exist_ok=True)
    log = SERVER_LOG.open("wb")  # the server's own words, read back by a test that fails on the server's side
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
                             "--server.headless", "true", "--server.address", "127.0.0.1",
                             "--server.port", str(port), "--browser.gatherUsageStats", "false",
                             "--server.fileWatcherType", "none"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).status == 200:
                break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("streamlit did not start within 60 s")
    yield url, data
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


class Opened:
    """What a page did: JavaScript dialogs it opened and every URL it requested."""

    def __init__(self):
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        self.console: list[str] = []

    def off_machine(self) -> list[str]:
        hosts = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")
        return [u for u in self.requests if not u.startswith(hosts)]


@pytest.fixture(scope="module")
def app_url(app_server):
    return app_server[0]


@contextmanager
def opened_page(url: str, height: int = 900, width: int = 1400, downloads: bool = False):
    """A headless Chromium page on `url`, with the dialogs it opened (legacy pair) and its requests."""
    seen = Opened()
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        try:
            page = browser.new_page(viewport={"width": width, "height": height}, accept_downloads=downloads)
            page.on("dialog", lambda d: (seen.dialogs.append(d.message), d.dismiss()))
            page.on("request", lambda r: seen.requests.append(r.url))
            page.on("console", lambda m: seen.console.append(f"{m.type}: {m.text}"))
            page.goto(url, timeout=60_000)
            page.seen = seen
            yield page, seen.dialogs
        finally:
            browser.close()


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(800)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_a_deep_link_into_a_fresh_server_gets_the_app_navigation_and_sidebar(app_url):
    """Runs first on the module's fresh server: a deep link on a fresh server gets the navigation and sidebar."""
    with opened_page(f"{app_url}/batch") as (page, _dialogs):
        page.get_by_role("heading", name="Batch audit").wait_for(timeout=60_000)
        page.get_by_text("Verification backend").wait_for(timeout=30_000)
        assert page.get_by_role("link", name="Audit an answer").count() == 1
        assert page.get_by_role("link", name="shared").count() == 0


def test_example_audit_in_a_real_browser_highlights_spans_and_runs_no_payload(app_url):
    with opened_page(app_url, height=1700) as (page, dialogs):
        page.get_by_role("button", name="Load an example").click(timeout=60_000)
        playwright.expect(page.get_by_label("Answer to audit")).not_to_have_value("", timeout=30_000)
        page.get_by_role("button", name="Audit", exact=True).click()
        marks = page.locator('[data-role="answer"] mark[data-verdict]')
        marks.first.wait_for(state="visible", timeout=60_000)
        assert marks.count() >= 1
        assert page.locator('[data-status="hallucinated"]').first.is_visible()
        assert page.locator('[data-role="context"] mark[data-evidence]').count() >= 1
        page.get_by_role("button", name="Download HTML report").wait_for(timeout=30_000)
        page.wait_for_timeout(1500)
        shot(page, "audit-example-1400")
        if REFRESH_DOCS:  # RT4CHART_REFRESH_DOCS=1 make test: refresh the README's image on purpose
            page.screenshot(path=str(ROOT / "docs" / "screenshot-audit.png"), full_page=True)

        answer = page.get_by_label("Answer to audit")
        answer.fill(HOSTILE)
        page.get_by_label("Question (optional)").click()
        page.wait_for_timeout(1000)
        page.get_by_role("button", name="Audit", exact=True).click()
        page.get_by_text("window.__xss=2").first.wait_for(timeout=60_000)
        page.wait_for_timeout(1000)
        assert page.evaluate("window.__xss === undefined")
        assert dialogs == []
        assert page.locator('[data-role="answer"] img').count() == 0


def test_hostile_csv_in_the_batch_page_runs_no_payload(app_url, tmp_path):
    payload = '<img src=x onerror="window.__xss=3">'
    path = tmp_path / "hostile.csv"
    path.write_text('id,context,answer,question,"<script>window.__xss=4</script>","' + payload.replace('"', '""') + '"\n'
                    '1,"The sky is blue. <iframe src=""javascript:window.__xss=5""></iframe>",'
                    '"The sky is <script>window.__xss=6</script> green.","Is it <b>blue</b>?",x,y\n')
    with opened_page(f"{app_url}/batch", height=1600) as (page, dialogs):
        page.locator('input[type="file"]').first.set_input_files(str(path))
        page.get_by_text("1 row from hostile.csv").wait_for(timeout=60_000)
        page.wait_for_load_state("networkidle")
        page.get_by_role("button", name="Run batch audit").click(timeout=60_000)
        page.get_by_text("Drill down").wait_for(timeout=60_000)
        page.locator('[data-role="answer"] mark').first.wait_for(timeout=60_000)
        page.wait_for_timeout(1000)
        page.screenshot(path=str(tmp_path / "batch.png"), full_page=True)
        assert page.evaluate("window.__xss === undefined")
        assert dialogs == []
        assert page.locator('[data-role="answer"] script, [data-role="context"] iframe').count() == 0


def rag_logs(path: Path, rows: int, unit: str = "metres", id_column: str = "uid") -> Path:
    import csv

    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([id_column, "retrieved_docs", "llm_response", "user_query", "model_name", "gold_label"])
        for i in range(rows):
            writer.writerow([f"u{i}", f"The dam on river {i} is {40 + i} {unit} high. It opened in {1900 + i}.",
                             f"The dam is {40 + i + (i % 2)} {unit} high.", f"How high is dam {i}?",
                             "m-a" if i % 3 else "m-b", "true" if i % 2 else "false"])
    return path


def settled(page, timeout: int = 60_000) -> None:
    """Wait until the app's rerun has ended: no running icon, and no stale element left from the last run
    (Streamlit shows the old elements, faded, beside the new ones until the rerun ends)."""
    page.wait_for_function("""() => !document.querySelector('[data-testid="stStatusWidgetRunningIcon"]')
        && !document.querySelector('[data-stale="true"]')""", timeout=timeout)


def downloaded_text(page, button: str = "Download CSV", tries: int = 3) -> str:
    """The text of the file a download button gives. A click that lands while the app reruns (its elements
    replaced under the pointer) starts no download, so the button is clicked again once the page has settled;
    a button that never downloads still fails after `tries` clicks."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    def once() -> str:
        settled(page)
        with page.expect_download(timeout=30_000) as download:
            page.get_by_role("button", name=button).click()
        return download.value.path().read_text(encoding="utf-8")

    for _ in range(tries - 1):
        try:
            return once()
        except PlaywrightTimeout:
            pass
    try:
        return once()  # the last click's timeout is the test's failure
    except PlaywrightTimeout as exc:
        server = SERVER_LOG.read_text(errors="replace")[-3000:] if SERVER_LOG.exists() else ""
        raise AssertionError(f"no download from {button!r}; the browser said: {page.seen.console[-15:]}; "
                             f"the server said: {server}") from exc


def combobox(page, label: str):
    return page.get_by_role("combobox", name=label, exact=True)


def selected_value(page, label: str) -> str:
    return combobox(page, label).input_value()


def test_upload_map_run_metrics_and_back_keep_the_mapping_and_results_and_a_new_dataset_replaces_them(
        app_url, tmp_path):
    first = rag_logs(tmp_path / "logs.csv", 9)
    with opened_page(f"{app_url}/batch", height=720, width=1280) as (page, dialogs):
        page.locator('input[type="file"]').first.set_input_files(str(first))
        page.get_by_text("9 rows from logs.csv").wait_for(timeout=60_000)
        # the page draws progressively: wait for the boxes of the new dataset, not the previous run's
        playwright.expect(combobox(page, "Context")).to_have_value("retrieved_docs", timeout=30_000)
        assert "llm_response" in selected_value(page, "Answer")
        assert "uid" in selected_value(page, "Row id")
        for label in ("Context", "Answer", "Question", "Row id", "Gold label (optional)"):
            fits = combobox(page, label).evaluate("e => e.scrollWidth <= e.clientWidth && e.clientWidth >= 150")
            assert fits, f"the value of the {label} box is cut off at 1280 px"
        shot(page, "batch-mapped-1280")
        page.wait_for_load_state("networkidle")
        page.get_by_role("button", name="Run batch audit").click()
        page.get_by_text("9 of 9 rows shown").wait_for(timeout=60_000)
        shot(page, "batch-results-1280")
        page.get_by_role("link", name="Dataset metrics").click()
        page.get_by_text("Balanced accuracy").first.wait_for(timeout=60_000)
        shot(page, "metrics-1280")
        page.get_by_role("link", name="Batch audit").click()
        page.get_by_text("9 rows from logs.csv").wait_for(timeout=60_000)
        assert "retrieved_docs" in selected_value(page, "Context")  # the mapping is still there
        page.get_by_text("9 of 9 rows shown").wait_for(timeout=30_000)  # and so are the results
        second = rag_logs(tmp_path / "second" / "logs.csv", 4, unit="feet", id_column="key") if (
            tmp_path / "second").mkdir() is None else None
        page.locator('input[type="file"]').first.set_input_files(str(second))
        page.get_by_text("4 rows from logs.csv").wait_for(timeout=60_000)
        playwright.expect(combobox(page, "Row id")).to_have_value("key", timeout=30_000)
        # the old results are gone (Streamlit shows stale elements until the rerun ends: wait for it)
        playwright.expect(page.get_by_text("of 9 rows shown")).to_have_count(0, timeout=30_000)
        assert "key" in selected_value(page, "Row id")
        page.wait_for_load_state("networkidle")
        page.get_by_role("button", name="Run batch audit").click()
        page.get_by_text("4 of 4 rows shown").wait_for(timeout=60_000)
        page.locator('[data-role="answer"]').first.wait_for(timeout=30_000)
        assert "feet" in page.locator('[data-role="answer"]').first.inner_text()
        assert dialogs == [] and page.seen.off_machine() == []


def test_settings_survive_page_changes_in_the_browser(app_url):
    with opened_page(f"{app_url}/settings", height=720, width=1280) as (page, _dialogs):
        size = page.get_by_label("Window size (sentences)")
        size.wait_for(timeout=60_000)
        size.fill("2")
        size.press("Enter")
        stride = page.get_by_label("Stride (sentences)")
        stride.fill("1")
        stride.press("Enter")
        page.wait_for_timeout(800)
        shot(page, "settings-1280")
        page.get_by_role("link", name="Audit an answer").click()
        page.get_by_text("Windows of 2 sentences every 1").wait_for(timeout=60_000)
        page.get_by_role("link", name="Settings & about").click()
        page.get_by_label("Window size (sentences)").wait_for(timeout=60_000)
        assert page.get_by_label("Window size (sentences)").input_value() == "2"


def test_markdown_in_user_text_fetches_nothing_and_downloads_follow_the_filter(app_url, tmp_path):
    import http.server
    import threading

    hits: list[str] = []

    class Beacon(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server API
            hits.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    beacon = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Beacon)
    threading.Thread(target=beacon.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{beacon.server_address[1]}"
    path = tmp_path / "md.csv"
    import csv

    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "context", "answer", "question", "model"])
        writer.writerow([f"![a]({url}/id.gif)", "The tower is 300 metres tall.", "The tower is 500 metres tall.",
                         f"![q]({url}/q.gif)", f"![m]({url}/m.gif)"])
        writer.writerow(["plain", "The tower is 300 metres tall.", "The tower is 300 metres tall.", "How tall?", "m"])
    try:
        with opened_page(f"{app_url}/batch", height=1400, width=1280, downloads=True) as (page, _dialogs):
            page.locator('input[type="file"]').first.set_input_files(str(path))
            page.get_by_text("2 rows from md.csv").wait_for(timeout=60_000)
            page.wait_for_load_state("networkidle")
            page.get_by_role("button", name="Run batch audit").click(timeout=60_000)
            page.get_by_text("2 of 2 rows shown").wait_for(timeout=60_000)
            page.locator('[data-role="answer"]').first.wait_for(timeout=30_000)
            page.get_by_text(f"![q]({url}/q.gif)").first.wait_for(timeout=30_000)  # shown as text
            combobox(page, "Status").click()
            page.get_by_role("option", name="faithful", exact=True).click()
            page.keyboard.press("Escape")
            shot(page, "batch-filtered")
            page.get_by_text("1 of 2 rows shown").wait_for(timeout=30_000)
            rows = downloaded_text(page).splitlines()  # the button of the filtered rerun, not a stale one
            assert len(rows) == 2 and rows[1].startswith("plain,")  # the header and the one row shown
            page.get_by_role("link", name="Dataset metrics").click()
            page.get_by_text("Hallucination rate").first.wait_for(timeout=60_000)
            page.wait_for_timeout(1500)
            assert hits == [], f"the browser fetched {hits}"
            assert page.seen.off_machine() == []
    finally:
        beacon.shutdown()
        beacon.server_close()


def test_unreadable_records_and_formula_cells_in_a_real_browser(app_url, tmp_path):
    """Issue 20, rows 12 and 14: a lone surrogate and a record nested too deeply are failed rows on a page that
    keeps working; a cell that starts like a formula is downloaded as text."""
    deep = '{"id": "deep", "context": "X is 1.", "answer": "X is 1.", "meta": ' + "[" * 50_000 + "]" * 50_000 + "}"
    lines = [json.dumps({"id": "=HYPERLINK(\"http://127.0.0.1:9/x\",\"open me\")", "context": "X is 1.",
                         "answer": "X is 1."}),
             json.dumps({"id": "b\ud800", "context": "X is 1.", "answer": "X is \ud800 1."}), deep,
             json.dumps({"id": "c", "context": "X is 1.", "answer": "X is 2."})]
    path = tmp_path / "odd.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with opened_page(f"{app_url}/batch", height=1400, width=1280, downloads=True) as (page, _dialogs):
        page.locator('input[type="file"]').first.set_input_files(str(path))
        page.get_by_text("4 rows from odd.jsonl").wait_for(timeout=60_000)
        page.wait_for_load_state("networkidle")
        page.get_by_role("button", name="Run batch audit").click(timeout=60_000)
        page.get_by_text("4 of 4 rows shown").wait_for(timeout=90_000)
        page.get_by_text("2 rows failed and are listed here").wait_for(timeout=30_000)
        shot(page, "batch-unreadable-records")
        assert page.get_by_text("Traceback").count() == 0
        rows = list(csv.DictReader(io.StringIO(downloaded_text(page))))
        assert [r["status"] for r in rows] == ["faithful", "error", "error", "hallucinated"]
        assert rows[0]["id"].startswith("'=HYPERLINK(")  # was written verbatim: a formula when opened
        assert rows[1]["id"] == "b\\ud800"  # the lone surrogate as its escape, never a crash
        assert page.seen.off_machine() == []


@pytest.mark.parametrize("slug, heading", [("", "Audit an answer"), ("batch", "Batch audit"), ("runs", "Runs"),
                                           ("compare", "Compare two runs"),
                                           ("metrics", "Dataset metrics"), ("insights", "Insights"),
                                           ("settings", "Settings & about")])
def test_every_page_at_1280_by_720_has_a_screenshot_and_makes_no_off_machine_request(app_url, slug, heading):
    with opened_page(f"{app_url}/{slug}", height=720, width=1280) as (page, dialogs):
        page.get_by_role("heading", name=heading).wait_for(timeout=60_000)
        shot(page, f"page-{slug or 'audit'}-1280x720")
        assert dialogs == [] and page.seen.off_machine() == []


def stored_demo_run(page, stored="Stored as run") -> str:
    """Load the demo dataset, run the batch, wait until the run is stored and the address names it; its id."""
    page.get_by_role("button", name="Load the demo dataset").click(timeout=60_000)
    page.get_by_text("20 rows from demo").wait_for(timeout=60_000)
    page.wait_for_load_state("networkidle")
    page.get_by_role("button", name="Run batch audit").click(timeout=60_000)
    page.get_by_text(stored).first.wait_for(timeout=60_000)
    page.wait_for_url("**run=*", timeout=30_000)  # the address names the run it shows
    return re.search(r"run=([0-9a-f]+)", page.url).group(1)


def test_a_reload_reopens_the_last_run_and_review_and_compare_work_in_the_browser(app_server):
    from rt4chart.store import Store

    url, data = app_server
    with opened_page(f"{url}/batch", height=1800, width=1280) as (page, dialogs):
        stored_demo_run(page)
        page.get_by_text("Who is reviewing?").wait_for(timeout=30_000)  # a review asks for a name first
        name = page.get_by_role("textbox", name="Your name")
        name.fill("Ana Lima")
        name.press("Enter")
        page.get_by_text("judge is wrong").first.wait_for(timeout=30_000)
        settled(page)
        page.reload()  # the name is kept in this browser, not taken from the server's account
        page.get_by_text("Reopened the last run").wait_for(timeout=60_000)
        page.get_by_text("20 of 20 rows shown").wait_for(timeout=30_000)
        row = combobox(page, "Row").input_value()
        page.wait_for_load_state("networkidle")
        page.get_by_text("judge is wrong").first.click()
        playwright.expect(page.get_by_text("Right verdict of claim 1")).to_be_visible(timeout=30_000)
        label = page.get_by_role("radiogroup", name="Answer label")
        playwright.expect(label).to_have_count(1, timeout=30_000)  # a rerun's stale copy is gone
        label.get_by_text("hallucinated").click()
        playwright.expect(page.get_by_role("radiogroup", name="Answer label").get_by_role(
            "radio", name="hallucinated")).to_be_checked(timeout=30_000)
        page.wait_for_load_state("networkidle")
        page.get_by_role("button", name="Save review").click()
        page.get_by_text("Saved 2 changes as Ana Lima").wait_for(timeout=30_000)
        shot(page, "batch-review-1280")
        store = Store(f"sqlite:///{data / 'runs.sqlite3'}")
        run = store.last_opened()
        latest = store.reviews(run.id)
        assert latest[(row, None)].label == "hallucinated" and latest[(row, 0)].judge_right is False
        page.get_by_role("link", name="Settings & about").click()
        stride = page.get_by_label("Stride (sentences)")
        stride.fill("2")
        stride.press("Enter")
        page.wait_for_timeout(500)
        page.get_by_role("link", name="Batch audit").click()
        page.get_by_text("Windows of 8 sentences every 2").wait_for(timeout=60_000)
        page.wait_for_load_state("networkidle")
        page.get_by_role("button", name="Run batch audit").click(timeout=60_000)
        page.get_by_text("Stored as run").wait_for(timeout=60_000)
        page.get_by_role("link", name="Compare runs").click()
        page.get_by_text("McNemar p").wait_for(timeout=60_000)
        page.get_by_text("settings.audit.window_stride").wait_for(state="attached", timeout=30_000)  # grid cell
        shot(page, "compare-1280")
        page.get_by_role("link", name="Runs", exact=True).click()
        page.get_by_role("heading", name="Runs").wait_for(timeout=60_000)
        shot(page, "runs-1280")
        assert dialogs == [] and page.seen.off_machine() == []


@contextmanager
def two_contexts(url_a: str, url_b: str):
    """Two analysts: two browser contexts (own cookies, storage and session) of one headless Chromium."""
    dialogs: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        try:
            pages = []
            for address in (url_a, url_b):
                context = browser.new_context(viewport={"width": 1280, "height": 1400}, accept_downloads=True)
                page = context.new_page()
                page.seen = Opened()
                page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
                page.on("request", lambda r, seen=page.seen: seen.requests.append(r.url))
                page.goto(address, timeout=60_000)
                pages.append(page)
            yield pages[0], pages[1], dialogs
        finally:
            browser.close()


def test_two_analysts_on_one_store_each_get_their_own_run_and_settings_back_and_flags_match_the_export(
        app_server, tmp_path):
    """Issue 22 rows 1, 3, 5 and 8 in headless Chromium, with two browser contexts on one shared run store."""
    from rt4chart.store import Store

    url, data = app_server
    with two_contexts(f"{url}/settings", f"{url}/batch?stride=3") as (a, b, dialogs):  # B: a link with settings
        stride = a.get_by_label("Stride (sentences)")
        stride.fill("2")
        stride.press("Enter")
        a.wait_for_url("**stride=2*", timeout=30_000)  # the session's setting is in its own address
        a.get_by_role("link", name="Batch audit").click()
        run_a = stored_demo_run(a)
        run_b = stored_demo_run(b)  # a colleague, later
        store = Store(f"sqlite:///{data / 'runs.sqlite3'}")
        assert run_b != run_a and store.list_runs()[0].id == run_b  # the colleague's run is the newest
        a.reload()
        a.get_by_text("Reopened the last run").wait_for(timeout=60_000)
        a.get_by_text("20 of 20 rows shown").wait_for(timeout=30_000)
        assert f"run={run_a}" in a.url and "stride=2" in a.url  # row 1: my run, not the newest one
        a.get_by_text("every 2, each claim in its 3 best windows").first.wait_for(timeout=30_000)  # row 8
        shot(a, "batch-reloaded-own-run-and-settings")
        exported = list(csv.DictReader(io.StringIO(downloaded_text(a))))
        threshold = store.get_run(run_a).manifest["settings"]["threshold"]
        decided = [r for r in exported if r["score"] not in ("", None)]
        assert len(decided) == 20
        assert all((float(r["score"]) >= threshold) == (r["hallucinated"] == "True") for r in decided)  # row 3
        a.get_by_role("link", name="Settings & about").click()
        playwright.expect(a.get_by_label("Stride (sentences)")).to_have_value("2", timeout=30_000)
        a.get_by_role("link", name="Audit an answer").click()
        a.get_by_role("button", name="Load an example").click(timeout=60_000)
        answer = a.get_by_label("Answer to audit")
        playwright.expect(answer).to_have_value(re.compile(r"\S"), timeout=60_000)  # the example is in the box
        a.wait_for_load_state("networkidle")
        a.get_by_role("button", name="Audit", exact=True).click(timeout=60_000)
        a.locator('[data-role="answer"]').first.wait_for(timeout=120_000)
        answer.fill(answer.input_value() + " It was built by Romans.")
        answer.press("Control+Enter")
        a.get_by_text("they have changed since").wait_for(timeout=30_000)  # row 5: a stale result says so
        shot(a, "audit-out-of-date")
        assert dialogs == [] and a.seen.off_machine() == [] and b.seen.off_machine() == []


def test_a_cancelled_batch_keeps_its_rows_says_so_and_the_same_batch_again_resumes_it(app_server, tmp_path):
    """Issue 22 row 7: a running batch stopped with Cancel is neither lost nor silent, and resumes."""
    from rt4chart.store import Store

    url, data = app_server
    rows = 2000  # a job of several seconds, so Cancel lands mid-run
    path = rag_logs(tmp_path / "long.csv", rows)
    with opened_page(f"{url}/batch", height=1200, width=1280) as (page, dialogs):
        page.locator('input[type="file"]').first.set_input_files(str(path))
        page.get_by_text(f"{rows} rows from long.csv").wait_for(timeout=60_000)
        page.wait_for_load_state("networkidle")
        page.get_by_role("button", name="Run batch audit").click(timeout=60_000)
        main = page.get_by_test_id("stMainBlockContainer")  # the sidebar lists the same job
        main.get_by_text(re.compile(rf"\d+/{rows} rows · ETA")).wait_for(timeout=60_000)
        page.get_by_test_id("stSidebarUserContent").get_by_text("Batch jobs running: 1").wait_for(timeout=30_000)
        page.screenshot(path=str(SHOTS / "batch-job-running.png"))  # the page's progress and the sidebar's list
        page.get_by_role("button", name="Cancel").click(timeout=30_000)
        page.get_by_text("was stopped before it finished").wait_for(timeout=60_000)
        shot(page, "batch-cancelled")
        runs = [r for r in Store(f"sqlite:///{data / 'runs.sqlite3'}").list_runs() if r.source == "long.csv"]
        assert len(runs) == 1 and runs[0].status == "cancelled" and 0 < runs[0].rows < rows
        done = runs[0].rows
        page.get_by_role("button", name="Run batch audit").click(timeout=60_000)  # the same batch again: resumed
        said = page.get_by_text(re.compile(r"(\d+) rows were taken as they were stored, (\d+) audited now"))
        said.wait_for(timeout=240_000)
        taken, now = map(int, re.search(r"(\d+) rows were taken as they were stored, (\d+) audited now",
                                        said.inner_text()).groups())
        # a row stored in the instant of the stop but not yet journaled is audited again, never lost or doubled
        assert taken + now == rows and done - 1 <= taken <= done, (taken, now, done)
        [run] = [r for r in Store(f"sqlite:///{data / 'runs.sqlite3'}").list_runs() if r.source == "long.csv"]
        assert (run.id, run.status, run.rows) == (runs[0].id, "complete", rows)
        page.get_by_role("link", name="Runs", exact=True).click()
        page.get_by_role("heading", name="Runs").wait_for(timeout=60_000)
        assert dialogs == [] and page.seen.off_machine() == []


def test_a_claim_is_reviewed_and_saved_from_the_keyboard(app_server):
    """Issue 22 row 4: the review works without a mouse (arrow keys choose, Enter saves)."""
    from rt4chart.store import Store

    url, data = app_server
    with opened_page(f"{url}/batch?per_claim=2", height=1800, width=1280) as (page, dialogs):  # a run of its own
        run_id = stored_demo_run(page, re.compile("Stored as run|is already stored as run"))
        row = combobox(page, "Row").input_value()
        name = page.get_by_role("textbox", name="Your name")  # typed, then Enter: still no mouse
        name.focus()
        page.keyboard.type("Ben")
        page.keyboard.press("Enter")
        group = page.get_by_role("radiogroup").filter(has_text="judge is right").first
        group.wait_for(timeout=30_000)
        group.get_by_role("radio", name="not reviewed").focus()
        page.keyboard.press("ArrowRight")  # not reviewed -> judge is right
        playwright.expect(group.get_by_role("radio", name="judge is right")).to_be_checked(timeout=30_000)
        save = page.get_by_role("button", name="Save review")
        for attempt in range(3):  # a rerun of the page (the radio's change) can take the focus away first
            settled(page)
            save.focus()
            playwright.expect(save).to_be_focused(timeout=10_000)
            page.keyboard.press("Enter")
            try:
                page.get_by_text("Saved 1 change as").wait_for(timeout=15_000)
                break
            except playwright.TimeoutError:
                if attempt == 2:
                    shot(page, "keyboard-review-failed")
                    raise
        review = Store(f"sqlite:///{data / 'runs.sqlite3'}").reviews(run_id)[(row, 0)]
        assert review.judge_right is True and review.reviewer == "Ben"
        assert dialogs == []


def test_review_hotkeys_mark_save_and_go_to_the_next_row_without_focus_or_mouse(app_server):
    """Issue 38 item 5: keyboard review has hotkeys, listed on the page; they work wherever the focus is, but
    not while the analyst types in a box."""
    from rt4chart.store import Store

    url, data = app_server
    with opened_page(f"{url}/batch", height=1800, width=1280) as (page, dialogs):
        run_id = stored_demo_run(page, re.compile("Stored as run|is already stored as run"))
        first_row = combobox(page, "Row").input_value()
        name = page.get_by_role("textbox", name="Your name")
        name.fill("Ada")
        name.press("Enter")
        page.get_by_text("Keys (not while typing in a box)").wait_for(timeout=30_000)
        page.wait_for_function("() => document.rt4ReviewKeys === true", timeout=30_000)  # the keys are listened to
        settled(page)
        page.get_by_role("heading", name="Results").click()  # the focus on the page, in no box
        page.keyboard.press("n")  # the next row in the review queue (other tests may have reviewed this one)
        playwright.expect(combobox(page, "Row")).not_to_have_value(first_row, timeout=30_000)
        settled(page)
        row = combobox(page, "Row").input_value()
        groups = page.get_by_role("radiogroup").filter(has_text="judge is right")
        open_claims = [k for k in range(groups.count())
                       if groups.nth(k).get_by_role("radio", name="not reviewed").is_checked()]
        assert open_claims, "the queue's next row has a claim not yet reviewed"
        page.keyboard.press("w")  # the first claim not yet reviewed: the judge is wrong
        group = groups.nth(open_claims[0])
        playwright.expect(group.get_by_role("radio", name="judge is wrong")).to_be_checked(timeout=30_000)
        # the server has the choice once it asks which verdict is right instead
        page.get_by_text(f"Right verdict of claim {open_claims[0] + 1}").wait_for(timeout=30_000)
        settled(page)
        page.keyboard.press("s")
        said = page.get_by_text(re.compile(r"Saved \d+ changes? as Ada"))
        said.wait_for(timeout=30_000)
        review = Store(f"sqlite:///{data / 'runs.sqlite3'}").reviews(run_id)
        assert review[(row, open_claims[0])].judge_right is False and review[(row, open_claims[0])].reviewer == "Ada"
        settled(page)
        def choices():
            return [[r.is_checked() for r in groups.nth(k).get_by_role("radio").all()] for k in range(groups.count())]

        before = choices()
        note = page.get_by_role("textbox", name="Note")
        note.click()
        page.keyboard.type("nrw")  # typed into a box: the letters are the note's, no hotkey fires
        playwright.expect(note).to_have_value("nrw")
        settled(page)
        assert combobox(page, "Row").input_value() == row and choices() == before
        shot(page, "review-hotkeys")
        assert dialogs == []


def test_a_new_single_audit_result_scrolls_into_view(app_url):
    """Issue 38: after Audit the verdict was drawn below the fold of a 1280x720 window."""
    with opened_page(app_url, height=720, width=1280) as (page, dialogs):
        page.get_by_role("button", name="Load an example").click(timeout=60_000)
        playwright.expect(page.get_by_label("Answer to audit")).not_to_have_value("", timeout=30_000)
        page.get_by_role("button", name="Audit", exact=True).click()
        banner = page.locator(".rt4-banner").first
        banner.wait_for(state="visible", timeout=60_000)
        playwright.expect(banner).to_be_in_viewport(ratio=0.9, timeout=10_000)
        page.wait_for_function("() => { const b = document.querySelector('.rt4-banner');"
                               " return b && b.getBoundingClientRect().top < window.innerHeight / 3; }", timeout=10_000)
        shot(page, "audit-scrolled-1280x720")  # the verdict at the top of the window, the answer below it
        assert dialogs == []


def test_filling_in_the_question_keeps_the_bridge_answer_faithful_in_the_browser(app_url):
    """Issue 38's walk: with its question filled in, a true answer whose words its sentences say was flagged baseless
    (the reader takes "question + whole sentence" for a hallucination)."""
    harbor = next(r for r in csv.DictReader((ROOT / "sample_data" / "rag_audit_sample.csv").open(newline=""))
                  if r["id"] == "harbor-1")
    with opened_page(app_url, height=1000, width=1280) as (page, dialogs):
        page.get_by_label("Context (retrieved passages or source document)").fill(harbor["context"], timeout=60_000)
        page.get_by_label("Answer to audit").fill(harbor["answer"])
        page.get_by_label("Question (optional)").fill(harbor["question"])
        page.get_by_label("Question (optional)").press("Enter")
        page.wait_for_timeout(1000)
        page.get_by_role("button", name="Audit", exact=True).click()
        page.locator('.rt4-banner[data-status]').first.wait_for(state="visible", timeout=60_000)
        assert page.locator('[data-status="faithful"]').first.is_visible()
        assert page.locator('[data-status="hallucinated"]').count() == 0
        shot(page, "audit-with-question-1280")
        assert dialogs == []


def test_a_broken_checkpoint_typed_in_the_app_is_one_line_never_a_traceback_or_a_hang(app_url, tmp_path):
    """#39: a graph that is text, a FIFO, or a config that is not JSON, typed into the Checkpoint field (loopback),
    ends the audit with one error line naming what is wrong; no exception box, no endless "Loading the model…"."""
    from .tiny_models import shipped_copy

    def folder(name: str, change) -> Path:
        out = shipped_copy(tmp_path / name)
        change(out)
        return out

    def text_graph(out: Path) -> None:
        (out / "model_int8.onnx").unlink()
        (out / "model_int8.onnx").write_text("not a graph")

    def fifo_graph(out: Path) -> None:
        (out / "model_int8.onnx").unlink()
        os.mkfifo(out / "model_int8.onnx")

    cases = [(folder("text", text_graph), "too small to be one"), (folder("fifo", fifo_graph), "not a regular file"),
             (folder("config", lambda out: (out / "config.json").write_text("{not json")), "config.json is not JSON")]
    with opened_page(app_url, height=720, width=1280) as (page, _dialogs):
        page.get_by_role("button", name="Load an example").click(timeout=60_000)
        playwright.expect(page.get_by_label("Answer to audit")).not_to_have_value("", timeout=30_000)
        for path, said in cases:
            field = page.get_by_role("textbox", name="Checkpoint")
            field.fill(str(path))
            field.press("Enter")
            page.wait_for_timeout(800)
            page.get_by_role("button", name="Audit", exact=True).click()
            error = page.locator('.rt4-notice[data-kind="error"]', has_text=said)
            error.wait_for(timeout=30_000)  # a FIFO opened would hang here
            assert "\n" not in error.inner_text().strip()
            assert page.locator('[data-testid="stException"]').count() == 0
            assert page.get_by_text("Traceback").count() == 0
        error.scroll_into_view_if_needed()
        shot(page, "broken-checkpoint-1280")
        page.get_by_role("textbox", name="Checkpoint").fill("")
        page.get_by_role("textbox", name="Checkpoint").press("Enter")


def test_a_click_on_a_run_in_the_runs_table_opens_it(app_server, tmp_path):
    """Issue 38 item 8: the runs table opens a run on click (it was a static table beside a picker)."""
    from rt4chart.store import Store

    url, data = app_server
    env = {**os.environ, "RT4CHART_DATA_DIR": str(data), "RT4CHART_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("RT4CHART_DB", None)
    subprocess.run([sys.executable, "-m", "rt4chart", "batch", str(ROOT / "sample_data" / "rag_audit_sample.csv"),
                    "-o", str(tmp_path / "out.jsonl"), "--judge", "offline", "--quiet", "--run-name", "clicked run"],
                   env=env, check=True, capture_output=True, timeout=120)
    newest = Store(f"sqlite:///{data / 'runs.sqlite3'}").list_runs()[0]
    assert newest.name == "clicked run"
    with opened_page(f"{url}/runs", height=900, width=1280) as (page, dialogs):
        page.get_by_text("Click a run to open it").wait_for(timeout=60_000)
        grid = page.locator('[data-testid="stDataFrame"]').last
        grid.wait_for(timeout=30_000)
        settled(page)
        box = grid.bounding_box()
        page.mouse.click(box["x"] + 14, box["y"] + 35 + 17)  # the first run's row (the newest), left edge
        page.wait_for_url(f"**run={newest.id[:8]}*", timeout=60_000)
        page.get_by_role("heading", name="Batch audit").wait_for(timeout=30_000)
        page.get_by_text("clicked run").first.wait_for(timeout=30_000)
        shot(page, "runs-click-opens")
        assert dialogs == []


def test_action_items_go_on_while_the_analyst_is_on_another_page(app_server, monkeypatch):
    """Issue 38 item 1 for the Insights page: the LLM's calls are held back on the server while the analyst leaves
    the page and comes back; the page says it is waiting, then lists the items by itself (no click)."""
    import threading

    from . import fault_server

    gate = threading.Event()
    reply = fault_server.default_reply

    def gated(name: str, prompt: str) -> str:
        if name.startswith("insights"):
            gate.wait(90)
        return reply(name, prompt)

    monkeypatch.setattr(fault_server, "default_reply", gated)
    server = fault_server.FaultServer(rate=0.0, verdict_for=lambda claim_id: "baseless").start()
    url, _data = app_server
    try:
        with opened_page(f"{url}/batch", height=720, width=1280) as (page, dialogs):
            page.get_by_text("openai (LLM endpoint)").click(timeout=60_000)
            for label, value in (("Base URL", server.url), ("API key", "sk-local")):
                box = page.get_by_role("textbox", name=label, exact=True)
                box.fill(value)
                box.press("Enter")
                settled(page)
            stored_demo_run(page)
            page.get_by_role("link", name="Insights").click()
            page.get_by_role("button", name="Find action items").click(timeout=60_000)
            page.get_by_text("Finding action items").wait_for(timeout=30_000)
            page.get_by_role("link", name="Runs", exact=True).click()
            page.get_by_role("heading", name="Runs", exact=True).wait_for(timeout=30_000)
            page.get_by_role("link", name="Insights").click()
            page.get_by_text("Finding action items").wait_for(timeout=30_000)
            assert not gate.is_set()
            gate.set()
            page.get_by_text("Unsupported claims").first.wait_for(timeout=60_000)
            shot(page, "insights-came-back")
            assert dialogs == []
    finally:
        gate.set()
        server.stop()
