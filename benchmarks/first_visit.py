"""Seconds from opening a page to its results being on screen, in headless Chromium, for a stored run of
200 and of 10,000 rows: the Batch page (until "N of N rows shown") and the Metrics page (until its
headline), each on the first visit of a new browser session (a new context; the server already warm) and
on a second visit in that session. Then every page of the app, each opened by its address in a new session,
until the last thing it draws is on screen (median, and the range over the sessions). The script runs in ~10 ms
server-side; the rest is the browser loading and drawing Streamlit's client.

    .venv/bin/python benchmarks/first_visit.py [--rows 200,10000] [--repeat 3]

It makes its own data dir, stores the runs with the CLI (offline judge), starts the app on 127.0.0.1 and
stops it at the end; nothing of the user's is read or written.
"""
from __future__ import annotations

import argparse
import csv
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"


def rag_logs(path: Path, rows: int) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["uid", "retrieved_docs", "llm_response", "user_query", "model_name", "gold_label"])
        for i in range(rows):
            writer.writerow([f"u{i}", f"The dam on river {i} is {40 + i} metres high. It opened in {1900 + i % 120}. "
                             f"It holds {i % 50} million cubic metres.", f"The dam is {40 + i + (i % 2)} metres high. "
                             f"It opened in {1900 + i % 120}.", f"How high is dam {i}?",
                             "m-a" if i % 3 else "m-b", "true" if i % 2 else "false"])
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="200,10000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="rt4-first-visit-"))
    env = dict(os.environ, RT4CHART_DATA_DIR=str(work / "data"), RT4CHART_CACHE_DIR=str(work / "cache"),
               PYTHONPATH=str(ROOT))
    env.pop("RT4CHART_DB", None)
    runs = {}
    for n in map(int, args.rows.split(",")):
        source = rag_logs(work / f"logs-{n}.csv", n)
        done = subprocess.run([sys.executable, "-m", "rt4chart", "batch", str(source), "-o", str(work / f"{n}.jsonl"),
                               "--quiet", "--workers", "2", "--judge", "offline"], env=env, capture_output=True, text=True, check=True)
        runs[n] = re.search(r"\(id ([0-9a-f]+)\)", done.stderr).group(1)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless",
                               "true", "--server.address", "127.0.0.1", "--server.port", str(port),
                               "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).status == 200:
                    break
            except OSError:
                time.sleep(0.5)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
            warm = browser.new_page()
            warm.goto(f"{url}/batch?run={runs[min(runs)]}")
            warm.get_by_text(re.compile(r"rows shown")).wait_for(timeout=120_000)  # the server's imports, once
            warm.close()
            print("| run | page | first visit in a session (s) | second visit (s) |\n|---|---|---:|---:|")
            landing = []
            for _ in range(args.repeat):  # the floor: a new session of the app's landing page, no run opened
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()
                started = time.perf_counter()
                page.goto(f"{url}/")
                page.get_by_role("button", name="Load an example").wait_for(timeout=120_000)
                landing.append(time.perf_counter() - started)
                context.close()
            print(f"| none | audit (landing: 'load' event, then its first button) | {statistics.median(landing):.2f} | |",
                  flush=True)
            every_page(browser, url, args.repeat)
            links = {"batch": "Batch audit", "metrics": "Dataset metrics"}
            for n, run in runs.items():
                markers = {"batch": f"{n} of {n} rows shown", "metrics": "Hallucination rate"}
                times: dict[tuple[str, int], list[float]] = {}
                for _ in range(args.repeat):
                    context = browser.new_context(viewport={"width": 1280, "height": 900})
                    page = context.new_page()
                    started = time.perf_counter()  # a new session opening the run's address (a reload, a link)
                    page.goto(f"{url}/batch?run={run}")
                    page.get_by_text(markers["batch"]).first.wait_for(timeout=120_000)
                    times.setdefault(("batch", 1), []).append(time.perf_counter() - started)
                    for visit, name in ((1, "metrics"), (2, "batch"), (2, "metrics")):
                        page.wait_for_load_state("networkidle")
                        started = time.perf_counter()
                        page.get_by_role("link", name=links[name]).click()
                        page.get_by_text(markers[name]).first.wait_for(timeout=120_000)
                        times.setdefault((name, visit), []).append(time.perf_counter() - started)
                    context.close()
                for name in ("batch", "metrics"):
                    print(f"| {n:,} rows | {name} | {statistics.median(times[(name, 1)]):.2f} | "
                          f"{statistics.median(times[(name, 2)]):.2f} |", flush=True)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)


# Each page's address and the last thing it draws (with the runs this script stores, none of them open)
LAST_DRAWN = {"": "Audit", "batch": "Upload a file, or load the demo dataset", "metrics": "Run a batch audit first",
              "runs": "Rename, tag or delete", "compare": "Comparing needs two stored runs",
              "insights": "insights are built from its audited rows", "settings": "openai judge: any"}
_SHOWN = """label => { const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return false;
  if (label === 'Audit') return [...main.querySelectorAll('button')].some(b => b.innerText.trim() === 'Audit');
  return main.innerText.includes(label); }"""


def shown_after(page, url: str, label: str, limit: float = 120.0) -> float:
    """Seconds from asking for `url` until `label` is in the page, polled every 10 ms from the server's first
    answer (a wait for the browser's 'load' event first adds up to 0.5 s on the Audit page, whose widgets load
    script chunks the other pages do not)."""
    started = time.perf_counter()
    page.goto(url, wait_until="commit")
    while time.perf_counter() - started < limit:
        try:
            if page.evaluate(_SHOWN, label):
                return time.perf_counter() - started
        except Exception:  # noqa: BLE001 - the page is between documents while it loads
            pass
        time.sleep(0.01)
    raise TimeoutError(f"{label!r} was not shown within {limit:.0f} s")


def every_page(browser, url: str, repeat: int) -> None:
    """Each page's first visit in a new session, opened by its address, until its last element is shown."""
    for path, label in LAST_DRAWN.items():
        times = []
        for _ in range(repeat):
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            times.append(shown_after(context.new_page(), f"{url}/{path}", label))
            context.close()
        print(f"| none | {path or 'audit'} (its last element) | {statistics.median(times):.2f} "
              f"({min(times):.2f}–{max(times):.2f}) | |", flush=True)


if __name__ == "__main__":
    main()
