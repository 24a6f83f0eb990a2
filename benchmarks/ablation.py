"""Ablation of the offline judge: one `OfflineSettings` switch changed at a time from the defaults.

Prints one Markdown row per variant (RT = ragtruth, FB = faithbench lenient, HE = halueval_qa), the
table of docs/benchmarks.md.
Usage: python benchmarks/ablation.py [DEV_DIR]
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rt4chart.bench import load_gold, run_bench  # noqa: E402
from rt4chart.judges.offline.judge import OfflineJudge, OfflineSettings  # noqa: E402

VARIANTS = [
    ("**default**", {}),
    ("no negation check", {"check_negation": False}),
    ("no antonym check", {"check_antonyms": False}),
    ("no number contradiction (numbers only baseless)", {"check_numbers": False}),
    ("unknown names/numbers do not decide alone", {"unknown_names_are_baseless": False}),
    ("spelled-out counts are exact figures (`soft_counts=False`)", {"soft_counts": False}),
    ("no stem-prefix matching (`prefix_match=0`)", {"prefix_match": 0}),
    ("one evidence sentence (`evidence_k=1`)", {"evidence_k": 1}),
    ("clause spans (`span_mode=\"clause\"`)", {"span_mode": "clause"}),
    ("whole-claim spans (`span_mode=\"claim\"`)", {"span_mode": "claim"}),
    ("no single-sentence relation check (`single_sentence_min=0`)", {"single_sentence_min": 0.0}),
    ("relation check also for long claims (`single_sentence_max_words=100`)", {"single_sentence_max_words": 100}),
    ("relation check on every answer (`single_sentence_short_only=False`)", {"single_sentence_short_only": False}),
]


def main(dev: Path) -> None:
    gold = {name: load_gold([str(dev / f"{name}_dev.jsonl")]) for name in ("ragtruth", "faithbench", "halueval_qa")}
    print("| variant | RT BA | RT F1 | RT span F1 | FB BA | FB span F1 | HE BA |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, switches in VARIANTS:
        judge = OfflineJudge(OfflineSettings(**switches))
        rt, fb, he = (run_bench(gold[n], judge).scores["all"] for n in ("ragtruth", "faithbench", "halueval_qa"))
        print(f"| {label} | {rt.balanced_accuracy:.3f} | {rt.f1:.3f} | {rt.span_f1:.3f} | "
              f"{fb.balanced_accuracy:.3f} | {fb.span_f1:.3f} | {he.balanced_accuracy:.3f} |", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/benchmarks"))
