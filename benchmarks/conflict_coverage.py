"""Contradiction coverage: of the gold spans labelled "Evident Conflict" in ragtruth_dev, the share that a
*contradicted* claim's hallucinated span overlaps (and, for comparison, the share any flagged span overlaps).
Usage: python benchmarks/conflict_coverage.py [PREDICTIONS.jsonl]   (default: runs the offline judge)
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEV = ROOT.parent / "shared" / "benchmarks" / "ragtruth_dev.jsonl"


def predictions(path=None) -> dict[str, dict]:
    if path:
        return {p["id"]: p for p in map(json.loads, Path(path).read_text().splitlines())}
    from rt4chart.bench import load_gold, run_bench
    from rt4chart.judges.factory import make_judge

    return {p["id"]: p for p in run_bench(load_gold([str(DEV)]), make_judge("offline")).predictions}


def overlaps(spans, gold) -> bool:
    return any(s["start"] < gold["end"] and gold["start"] < s["end"] for s in spans)


def main() -> None:
    preds = predictions(sys.argv[1] if len(sys.argv) > 1 else None)
    conflicts = [(g, s) for g in map(json.loads, DEV.read_text().splitlines()) for s in g["spans"]
                 if s["label"] == "Evident Conflict"]
    contradicted = any_flag = 0
    for g, span in conflicts:
        p = preds[g["id"]]
        flagged = [h for c in p["claims"] if c["verdict"] == "contradicted" for h in c["hallucinated_spans"]]
        contradicted += overlaps(flagged, span)
        any_flag += overlaps(p["spans"], span)
    n = len(conflicts)
    print(f"Evident Conflict spans: {n}; overlapped by a contradicted claim's span: {contradicted} "
          f"({contradicted / n:.3f}); by any flagged span: {any_flag} ({any_flag / n:.3f})")


if __name__ == "__main__":
    main()
