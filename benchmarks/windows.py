"""How window size and stride trade evidence locality against the LLM judge's cost.

For each (size, stride): the share of claims whose two best evidence sentences (BM25 over the whole
context) fall inside one window — what the local step can see together — and, for the openai judge
in dry-run (no calls), the calls and estimated prompt tokens per answer.
Usage: python benchmarks/windows.py FILE.jsonl [FILE2 ...] [--limit N]
"""
import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rt4chart.auditing.pipeline import prepare  # noqa: E402
from rt4chart.bench import load_gold, run_bench  # noqa: E402
from rt4chart.core.config import AuditConfig  # noqa: E402
from rt4chart.judges.llm.dry_run import DryRunClient  # noqa: E402
from rt4chart.judges.llm.judge import OpenAIJudge  # noqa: E402
from rt4chart.text.claims import split_claims  # noqa: E402
from rt4chart.text.lexicon import tokenize  # noqa: E402
from rt4chart.text.segment import make_windows  # noqa: E402

GRID = [(3, 2), (4, 2), (6, 3), (8, 4), (12, 6), (20, 10)]


def locality(gold, size, stride):
    together = total = 0
    for g in gold:
        data = prepare(g["context"], g["answer"], None)
        windows = make_windows(len(data.context_sentences), size, stride)
        for claim in split_claims(data.answer, data.answer_sentences):
            stems = [t.stem for t in tokenize(claim.text) if t.is_content]
            best = [i for i, _ in data.index.rank(stems, range(len(data.context_sentences)), 2)]
            if len(best) < 2:
                continue
            total += 1
            together += any(w.first <= min(best) and max(best) <= w.last for w in windows)
    return together / total if total else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--limit", type=int, default=200)
    args = ap.parse_args()
    gold = load_gold(args.files, limit=args.limit, seed=1)
    print(f"{len(gold)} answers from {', '.join(Path(f).name for f in args.files)}")
    print("| window size | stride | claims with both best sentences in one window | LLM calls / answer | prompt tokens / answer |")
    print("|---:|---:|---:|---:|---:|")
    for size, stride in GRID:
        judge = OpenAIJudge(DryRunClient())
        result = run_bench(gold, judge, AuditConfig(window_size=size, window_stride=stride))
        d = result.as_dict()
        print(f"| {size} | {stride} | {locality(gold, size, stride):.1%} | {d['judge_calls_per_answer']:.2f} | "
              f"{d['prompt_tokens_per_answer']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
