"""Error analysis of the offline judge: false positives by the check that fired, false negatives by
the gold label of the missed span, with a few examples of each.
Usage: python benchmarks/error_analysis.py FILE.jsonl [--examples 3]
"""
import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rt4chart import audit  # noqa: E402
from rt4chart.bench import load_gold  # noqa: E402
from rt4chart.text.lexicon import tokenize  # noqa: E402


def fired(report) -> str:
    """The check behind the first unsupported claim of a report."""
    for c in report.claims:
        if c.verdict.value == "contradicted":
            r = c.rationale
            return ("contradicted: number" if "figure" in r else "contradicted: negation" if "negation" in r
                    else "contradicted: antonym")
        if c.verdict.value == "baseless":
            return ("baseless: words spread over sentences" if "no single" in c.rationale
                    else "baseless: name/number absent from context" if any(ch.isupper() or ch.isdigit()
                                                                           for ch in c.rationale.split("mention")[-1][:40])
                    else "baseless: content words absent")
    return "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--examples", type=int, default=3)
    args = ap.parse_args()
    gold = load_gold([args.file])
    fp, fn = Counter(), Counter()
    fp_examples, fn_examples = defaultdict(list), defaultdict(list)
    lexically_visible = 0
    for g in gold:
        report = audit(g["context"], g["answer"], (g.get("meta") or {}).get("question"))
        if report.hallucinated and not g["hallucinated"]:
            kind = fired(report)
            fp[kind] += 1
            claim = next(c for c in report.claims if c.verdict.is_hallucination)
            fp_examples[kind].append(f"{claim.claim.text[:110]} — {claim.rationale[:80]}")
        elif g["hallucinated"] and not report.hallucinated:
            spans = [s for s in g.get("spans") or [] if "lenient" in s.get("counts_in", ["lenient"])]
            label = spans[0]["label"] if spans else "(no span)"
            fn[label] += 1
            if spans:
                context_words = {t.stem for t in tokenize(g["context"])}
                words = [t for t in tokenize(spans[0]["text"]) if t.is_content]
                lexically_visible += bool(words) and all(t.stem in context_words for t in words)
                fn_examples[label].append(spans[0]["text"][:110])
    print(f"## {Path(args.file).name}: {sum(fp.values())} false positives, {sum(fn.values())} false negatives\n")
    print("| false positives: check that fired | answers |\n|---|---:|")
    for kind, n in fp.most_common():
        print(f"| {kind} | {n} |")
    print("\n| false negatives: gold label of the first missed span | answers |\n|---|---:|")
    for label, n in fn.most_common():
        print(f"| {label} | {n} |")
    print(f"\nMissed spans whose every content word occurs somewhere in the context: {lexically_visible} of "
          f"{sum(n for k, n in fn.items() if k != '(no span)')}")
    for title, examples in (("False positive examples", fp_examples), ("False negative examples", fn_examples)):
        print(f"\n{title}:")
        for kind, items in examples.items():
            for item in items[:args.examples]:
                print(f"- [{kind}] {item}")


if __name__ == "__main__":
    main()
