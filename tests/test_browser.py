"""One real-browser test: headless Chromium drives `streamlit run app.py` on 127.0.0.1."""
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
playwright = pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM):
    pytest.skip("Debian chromium is not installed (apt-get install chromium)", allow_module_level=True)

HOSTILE = 'The bridge is <img src=x onerror="window.__xss=1"> red <script>window.__xss=2</script>.'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    port = free_port()
    env = dict(os.environ, RT4CHART_CACHE_DIR=str(tmp_path_factory.mktemp("cache")))
    env.pop("OPENAI_API_KEY", None)
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
                             "--server.headless", "true", "--server.address", "127.0.0.1",
                             "--server.port", str(port), "--browser.gatherUsageStats", "false",
                             "--server.fileWatcherType", "none"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@contextmanager
def opened_page(url: str, height: int = 900):
    """A headless Chromium page on `url`, with the list of any JavaScript dialogs it opened."""
    dialogs: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": height})
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(url, timeout=60_000)
            yield page, dialogs
        finally:
            browser.close()


def test_a_deep_link_into_a_fresh_server_gets_the_app_navigation_and_sidebar(app_url):
    """Runs first on the module's fresh server: Streamlit's legacy pages/ mode must not take over."""
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
        (ROOT / "docs").mkdir(exist_ok=True)
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
        page.get_by_role("button", name="Run batch audit").click(timeout=60_000)
        page.get_by_text("Drill down").wait_for(timeout=60_000)
        page.locator('[data-role="answer"] mark').first.wait_for(timeout=60_000)
        page.wait_for_timeout(1000)
        page.screenshot(path=str(tmp_path / "batch.png"), full_page=True)
        assert page.evaluate("window.__xss === undefined")
        assert dialogs == []
        assert page.locator('[data-role="answer"] script, [data-role="context"] iframe').count() == 0
