"""What the run store costs: a 10,000-row batch with and without storing the run, and the time to open
the stored run (as the app does: flat results, input records, reports on demand).

Rows are the ragtruth_dev answers repeated with fresh ids (realistic context lengths); the offline judge,
no memo cache, a journal as `rt4chart batch` uses by default. Usage:
  python benchmarks/store_overhead.py [N] [--url postgresql+psycopg://...]
"""
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rt4chart.batch.run import run_batch  # noqa: E402
from rt4chart.judges.factory import make_judge  # noqa: E402
from rt4chart.store import Store  # noqa: E402
from rt4chart.store.lazy import StoredReports  # noqa: E402

DEV = ROOT.parent / "shared" / "benchmarks" / "ragtruth_dev.jsonl"


def main(n: int, url: str = "") -> None:
    work = Path(tempfile.mkdtemp())
    gold = [json.loads(x) for x in DEV.read_text(encoding="utf-8").splitlines()]
    source = work / "rows.jsonl"
    with source.open("w", encoding="utf-8") as out:
        for i in range(n):
            g = gold[i % len(gold)]
            out.write(json.dumps({"id": f"row-{i}", "context": g["context"], "answer": g["answer"],
                                  "question": (g.get("meta") or {}).get("question"), "task": g["task"]}) + "\n")
    store = Store(url or f"sqlite:///{work / 'runs.sqlite3'}")
    timings = {}
    for label, kept in (("without the store", None), ("with the store", store), ("without the store (again)", None)):
        started = time.perf_counter()
        run_batch(str(source), str(work / f"{label}.jsonl"), make_judge("offline"),
                  journal_path=str(work / f"{label}.journal"), store=kept, run_name="bench")
        timings[label] = time.perf_counter() - started
        print(f"{label}: {timings[label]:.1f} s ({n / timings[label]:.0f} rows/s)", flush=True)
    base = (timings["without the store"] + timings["without the store (again)"]) / 2
    print(f"store overhead: {100 * (timings['with the store'] / base - 1):+.1f}% of the batch time")
    run = store.get_run("bench")
    size = (work / "runs.sqlite3").stat().st_size / 1e6 if not url else None
    started = time.perf_counter()
    results = store.results(run.id)
    records = store.records(run.id)
    reports = StoredReports(store, run.id, [r["id"] for r in results if r["status"] != "error"])
    opened = time.perf_counter() - started
    started = time.perf_counter()
    reports[results[n // 2]["id"]]
    one = time.perf_counter() - started
    print(f"open the {n}-row run: {opened:.2f} s (results + records); one report on demand: {one * 1000:.0f} ms"
          + (f"; database {size:.0f} MB" if size else ""))
    assert len(results) == len(records) == n
    app_open(store.url, run.id)


def app_open(url: str, run_id: str) -> None:
    """The app's Runs page -> "Open in the batch page" on this run: the click's whole server-side rerun,
    with the batch page drawing the 10,000 rows (AppTest)."""
    import os

    from streamlit.testing.v1 import AppTest

    os.environ["RT4CHART_DB"] = url
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300).run()
    at.switch_page("app_pages/runs.py").run()
    at.selectbox(key="w.runs.pick").set_value(run_id).run()
    button = next(b for b in at.button if b.label == "Open in the batch page")
    started = time.perf_counter()
    button.click().run()
    print(f"app: open the run and draw the batch page: {time.perf_counter() - started:.2f} s (server side)")
    assert not at.exception, at.exception


if __name__ == "__main__":
    count = int(next((a for a in sys.argv[1:] if a.isdigit()), 10_000))
    url = sys.argv[sys.argv.index("--url") + 1] if "--url" in sys.argv else ""
    main(count, url)
