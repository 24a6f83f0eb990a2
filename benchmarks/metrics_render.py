"""Time the Dataset metrics page for N audited rows (default 10,000): AppTest run of the page.

Rows are produced by auditing the sample data with the offline judge and repeating the result rows
with fresh ids (the page's cost depends on the row count, not on the texts).
Usage: python benchmarks/metrics_render.py [N]
"""
import sys
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rt4chart.batch import run_records  # noqa: E402
from rt4chart.io import read_records  # noqa: E402
from rt4chart.judges.factory import make_judge  # noqa: E402
from rt4chart.results import result_row  # noqa: E402


def main(n: int) -> None:
    base = [result_row(r, ["model", "task", "gold_hallucinated"])
            for r in run_records(read_records(str(ROOT / "sample_data" / "rag_audit_sample.csv")), make_judge("offline"))]
    rows = [dict(base[i % len(base)], id=f"row-{i}") for i in range(n)]
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.session_state["batch.results"] = rows
    at.session_state["batch.meta"] = {"gold": "gold_hallucinated", "groups": ["model", "task"], "answers": {}}
    at.switch_page("pages/metrics.py")
    timings = []
    for _ in range(3):
        started = time.perf_counter()
        at.run()
        timings.append(time.perf_counter() - started)
        assert not at.exception, at.exception
    print(f"metrics page, {n} rows: best {min(timings):.2f} s, runs {[round(t, 2) for t in timings]}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
