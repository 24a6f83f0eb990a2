"""Which rules of the offline judge hold across datasets? For every switch of `OfflineSettings`, its effect
on each dev file (balanced accuracy and AUROC, RT = ragtruth, FB = faithbench lenient, HE = halueval_qa),
then the cross-dataset check: for each file held out, keep or drop each rule by the mean BA on the two other
files, and report what that choice does on the held-out file. A rule whose gain is on one file only, and
which the other two would drop, fits that file rather than language.
Usage: python benchmarks/cross_dataset.py [DEV_DIR]   (about 3 minutes)
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rt4chart.bench import load_gold, run_bench  # noqa: E402
from rt4chart.judges.offline.judge import OfflineJudge, OfflineSettings  # noqa: E402

FILES = ("ragtruth", "faithbench", "halueval_qa")
SHORT = {"ragtruth": "RT", "faithbench": "FB", "halueval_qa": "HE"}
RULES = [  # (rule, the switches that turn it off)
    ("negation check", {"check_negation": False}),
    ("antonym check", {"check_antonyms": False}),
    ("number contradictions", {"check_numbers": False}),
    ("slot contradictions", {"search_slots": False}),
    ("passage citations", {"check_citations": False}),
    ("names with one word changed", {"check_names": False}),
    ("unknown names/numbers decide alone", {"unknown_names_are_baseless": False}),
    ("soft spelled-out counts", {"soft_counts": False}),
    ("stem-prefix matching", {"prefix_match": 0}),
    ("single-sentence relation check", {"single_sentence_min": 0.0}),
]


def measure(gold, switches) -> dict[str, tuple[float, float]]:
    judge = OfflineJudge(OfflineSettings(**switches))
    out = {}
    for name in FILES:
        s = run_bench(gold[name], judge).scores["all"]
        out[name] = (s.balanced_accuracy, s.auroc)
    return out


def main(dev: Path) -> None:
    gold = {name: load_gold([str(dev / f"{name}_dev.jsonl")]) for name in FILES}
    base = measure(gold, {})
    print("| rule (switched off) | " + " | ".join(f"{SHORT[n]} ΔBA | {SHORT[n]} ΔAUROC" for n in FILES)
          + " | kept by the other two files when each is held out |")
    print("|---|" + "---:|---:|" * len(FILES) + "---|")
    print("| **defaults** | " + " | ".join(f"{base[n][0]:.3f} | {base[n][1]:.3f}" for n in FILES) + " | |", flush=True)
    for rule, switches in RULES:
        off = measure(gold, switches)
        gain = {n: base[n][0] - off[n][0] for n in FILES}  # what the rule adds to BA
        verdicts = []
        for held in FILES:
            train = [n for n in FILES if n != held]
            keep = sum(gain[n] for n in train) / 2 >= 0
            effect = gain[held] if keep else -gain[held]
            verdicts.append(f"{SHORT[held]}: {'keep' if keep else 'drop'} ({effect:+.3f})")
        print(f"| {rule} | " + " | ".join(f"{-gain[n]:+.3f} | {off[n][1] - base[n][1]:+.3f}" for n in FILES)
              + f" | {'; '.join(verdicts)} |", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/benchmarks"))
