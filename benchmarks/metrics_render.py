"""Time the Dataset metrics page for N audited rows (default 10,000).

1. Server side (AppTest): the page's script in a fresh process — the first run (cold: imports, figures)
   and warm reruns.
2. In the browser (headless Chromium, Debian's): a fresh server, N rows uploaded and audited on the
   Batch page (the sample rows repeated with fresh ids; repeats come from the report cache), then, once
   the batch page is drawn, the time from clicking "Dataset metrics" to the headline figures and to the
   last chart — what a user waits on a first visit and on later ones.
Usage: python benchmarks/metrics_render.py [N] [--no-browser]
"""
import csv
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rt4chart.batch.rows import run_records  # noqa: E402
from rt4chart.data.records import read_records  # noqa: E402
from rt4chart.judges.factory import make_judge  # noqa: E402
from rt4chart.reporting.rows import result_row  # noqa: E402

SAMPLE = ROOT / "sample_data" / "rag_audit_sample.csv"


def server_side(n: int) -> None:
    from streamlit.testing.v1 import AppTest

    from app_pages.state import Dataset, Results

    results = list(run_records(read_records(str(SAMPLE)), make_judge("offline")))
    base = [result_row(r, ["model", "task", "gold_hallucinated"]) for r in results]
    rows = [dict(base[i % len(base)], id=f"row-{i}") for i in range(n)]
    mapping = {"gold": "gold_hallucinated", "groups": ["model", "task"]}
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.session_state["rt4.dataset"] = Dataset("bench", "digest", [], [], mapping)
    at.session_state["rt4.results"] = Results("digest", rows, {}, mapping, {})
    at.switch_page("app_pages/metrics.py")
    timings = []
    for _ in range(3):
        started = time.perf_counter()
        at.run()
        timings.append(time.perf_counter() - started)
        assert not at.exception, at.exception
    print(f"server side, {n} rows: first run {timings[0]:.2f} s, warm {min(timings[1:]):.2f} s")


def in_browser(n: int) -> None:
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp())
    source = list(csv.DictReader(SAMPLE.open(encoding="utf-8")))
    path = work / "rows.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(source[0]))
        writer.writeheader()
        for i in range(n):
            writer.writerow(dict(source[i % len(source)], id=f"row-{i}"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, RT4CHART_CACHE_DIR=str(work / "cache"))
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port",
                               str(port), "--server.address", "127.0.0.1", "--server.headless", "true"],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(f"http://127.0.0.1:{port}/batch", timeout=60_000)
            page.locator('input[type="file"]').first.set_input_files(str(path))
            page.get_by_role("button", name="Run batch audit").click(timeout=120_000)
            started = time.perf_counter()
            page.get_by_text(f"{n} of {n} rows shown").wait_for(timeout=900_000)
            audit_s = time.perf_counter() - started
            timings = []
            for _ in range(3):
                page.get_by_role("link", name="Batch audit").click()
                page.get_by_role("heading", name="Batch audit").wait_for(timeout=120_000)
                page.locator('[data-role="answer"]').first.wait_for(timeout=120_000)  # the batch page is drawn
                page.wait_for_load_state("networkidle")
                started = time.perf_counter()
                page.get_by_role("link", name="Dataset metrics").click()
                page.get_by_text("Answers audited").wait_for(timeout=120_000)
                headline = time.perf_counter() - started
                page.get_by_text("Contexts with the most issues").wait_for(timeout=120_000)
                page.locator(".js-plotly-plot").nth(4).wait_for(timeout=120_000)  # the last chart
                page.wait_for_load_state("networkidle")
                timings.append(time.perf_counter() - started)
                print(f"  visit: headline figures after {headline:.2f} s, whole page {timings[-1]:.2f} s")
            browser.close()
        print(f"in the browser, {n} rows (audited in {audit_s:.0f} s): metrics page first visit {timings[0]:.2f} s, "
              f"later visits {min(timings[1:]):.2f} s")
    finally:
        server.terminate()


if __name__ == "__main__":
    count = int(next((a for a in sys.argv[1:] if a.isdigit()), 10_000))
    server_side(count)
    if "--no-browser" not in sys.argv:
        in_browser(count)
