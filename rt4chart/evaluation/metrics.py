"""Answer-level and character-span metrics, computed exactly as `shared/benchmarks/score.py` does."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Optional


def _ratio(a: float, b: float) -> Optional[float]:
    return a / b if b else None


def _f1(p: Optional[float], r: Optional[float]) -> Optional[float]:
    if p is None or r is None:
        return None
    return 2 * p * r / (p + r) if (p + r) else 0.0


def as_bool(value) -> bool:
    """JSON booleans as they are; 'true'/'yes'/'1'/'hallucinated' strings count as true."""
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1", "hallucinated")
    return bool(value)


def char_set(spans: Iterable[Mapping], n: int) -> set[int]:
    """Character offsets covered by spans, clipped to [0, n); malformed spans are skipped."""
    chars: set[int] = set()
    for span in spans or []:
        try:
            s, e = int(span["start"]), int(span["end"])
        except (KeyError, TypeError, ValueError):
            continue
        s, e = max(0, s), min(n, e)
        if e > s:
            chars.update(range(s, e))
    return chars


def gold_span_counts(span: Mapping, setting: str = "lenient") -> bool:
    """Whether a gold span counts as hallucinated in the lenient (default) or strict setting."""
    if "counts_in" in span:
        return setting in (span.get("counts_in") or [])
    return span.get("label") != "Benign"


def touches_gold_span(spans: Iterable[tuple[int, int]], gold: Iterable[Mapping], setting: str = "lenient") -> bool:
    """Whether any of `spans` ((start, end) in the answer) overlaps a gold span that counts: a claim's label in the
    claim-level studies of benchmarks/ (fusion_signals.py, rule_precision.py)."""
    gold = [g for g in gold if gold_span_counts(g, setting)]
    return any(s < g["end"] and g["start"] < e for s, e in spans for g in gold)


@dataclass
class Scores:
    """Confusion counts and character counts; the ratios derive from them."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    missing: int = 0
    span_records: int = 0
    pred_chars: int = 0
    gold_chars: int = 0
    overlap_chars: int = 0
    claims_flagged: int = 0       # flagged claims (contradicted or baseless) of span-annotated answers ...
    claims_flagged_in_gold: int = 0  # ... whose answer span touches a gold hallucination span
    extra: dict = field(default_factory=dict)
    scored: list = field(default_factory=list)  # (score, gold) pairs of answers with a score

    @property
    def auroc(self) -> Optional[float]:
        return auroc(self.scored)

    @property
    def auprc(self) -> Optional[float]:
        return average_precision(self.scored)

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def precision(self): return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self): return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self): return _f1(self.precision, self.recall)

    @property
    def balanced_accuracy(self):
        tnr = _ratio(self.tn, self.tn + self.fp)
        rec = self.recall
        return (rec + tnr) / 2 if rec is not None and tnr is not None else None

    @property
    def accuracy(self): return _ratio(self.tp + self.tn, self.n)

    @property
    def span_precision(self): return _ratio(self.overlap_chars, self.pred_chars)

    @property
    def span_recall(self): return _ratio(self.overlap_chars, self.gold_chars)

    @property
    def span_f1(self): return _f1(self.span_precision, self.span_recall)

    @property
    def claim_precision(self):
        """The share of flagged claims that touch a human span: how often a flag a team sees is right."""
        return _ratio(self.claims_flagged_in_gold, self.claims_flagged)

    def as_dict(self) -> dict:
        return {
            "n": self.n, "positives": self.tp + self.fn, "negatives": self.tn + self.fp,
            "missing_predictions": self.missing,
            "answer": {"precision": self.precision, "recall": self.recall, "f1": self.f1,
                       "balanced_accuracy": self.balanced_accuracy, "accuracy": self.accuracy,
                       "tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn,
                       "auroc": self.auroc, "auprc": self.auprc, "scored": len(self.scored)},
            "span": {"precision": self.span_precision, "recall": self.span_recall, "f1": self.span_f1,
                     "records": self.span_records, "pred_chars": self.pred_chars,
                     "gold_chars": self.gold_chars, "overlap_chars": self.overlap_chars},
            "claims": {"flagged": self.claims_flagged, "flagged_in_gold": self.claims_flagged_in_gold,
                       "precision": self.claim_precision},
        }


def score(gold: Iterable[Mapping], preds: Mapping[str, Mapping], strict: bool = False) -> Scores:
    """Score predictions (id -> {hallucinated, spans}) against gold records."""
    label_field = "hallucinated_strict" if strict else "hallucinated"
    setting = "strict" if strict else "lenient"
    s = Scores()
    for g in gold:
        y = bool(g[label_field]) if label_field in g else bool(g["hallucinated"])
        p = preds.get(g["id"])
        if p is None:
            s.missing += 1
            yhat, pspans = False, list[Mapping]()
        else:
            pspans = p.get("spans") or []
            yhat = as_bool(p["hallucinated"]) if "hallucinated" in p else bool(pspans)
        if p is not None and isinstance(p.get("score"), (int, float)):
            s.scored.append((float(p["score"]), y))
        if y and yhat:
            s.tp += 1
        elif yhat:
            s.fp += 1
        elif y:
            s.fn += 1
        else:
            s.tn += 1
        if g.get("span_annotated", bool(g.get("spans"))):
            _count_spans(s, g, p or {}, pspans, setting)
    return s


def _count_spans(s: Scores, g: Mapping, p: Mapping, pspans: list, setting: str) -> None:
    """A span-annotated record's characters (gold, predicted, both) and its flagged claims touching a gold span."""
    n = len(g["answer"])
    gchars = char_set([sp for sp in g.get("spans") or [] if gold_span_counts(sp, setting)], n)
    pchars = char_set(pspans, n)
    s.span_records += 1
    s.gold_chars += len(gchars)
    s.pred_chars += len(pchars)
    s.overlap_chars += len(gchars & pchars)
    for claim in p.get("claims") or []:
        if isinstance(claim, Mapping) and claim.get("verdict") in ("contradicted", "baseless"):
            s.claims_flagged += 1
            s.claims_flagged_in_gold += bool(char_set(claim.get("spans") or [], n) & gchars)


def auroc(pairs: list[tuple[float, bool]]) -> Optional[float]:
    """Area under the ROC curve of (score, gold) pairs: the chance that a hallucinated answer scores above
    a faithful one (ties count half). Sorted ranks, O(n log n)."""
    positives = sum(1 for _, y in pairs if y)
    negatives = len(pairs) - positives
    if not positives or not negatives:
        return None
    ranked = sorted(pairs, key=lambda pair: pair[0])
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mean_rank = (i + 1 + j) / 2  # ranks i+1 .. j share their mean
        rank_sum += mean_rank * sum(1 for _, y in ranked[i:j] if y)
        i = j
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def average_precision(pairs: list[tuple[float, bool]]) -> Optional[float]:
    """Area under the precision-recall curve (average precision, ties resolved as one threshold)."""
    positives = sum(1 for _, y in pairs if y)
    if not positives:
        return None
    total = hits = 0
    area = 0.0
    for _score, group in _by_threshold(pairs):
        total += len(group)
        new = sum(group)
        hits += new
        area += (hits / total) * new / positives
    return area


def precision_recall_curve(pairs: list[tuple[float, bool]]) -> list[tuple[float, float, float]]:
    """(threshold, precision, recall) at every distinct score, highest threshold first."""
    positives = sum(1 for _, y in pairs if y)
    points, total, hits = [], 0, 0
    for score, group in _by_threshold(pairs):
        total += len(group)
        hits += sum(group)
        points.append((score, hits / total, hits / positives if positives else 0.0))
    return points


def _by_threshold(pairs: list[tuple[float, bool]]):
    ordered = sorted(pairs, key=lambda pair: -pair[0])
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j][0] == ordered[i][0]:
            j += 1
        yield ordered[i][0], [bool(y) for _, y in ordered[i:j]]
        i = j


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (for hallucination rates)."""
    if n == 0:
        return (0.0, 0.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def fmt(x: Optional[float]) -> str:
    return "n/a" if x is None else f"{x:.4f}"


@dataclass(frozen=True)
class Rate:
    """The hallucination rate over decided answers: `count` flagged of `decided` (answers the judge
    decided: unverified and failed rows are in no rate), with its 95% Wilson interval. The one rate that
    every page, report, comparison and the store show."""

    count: int
    decided: int

    @property
    def value(self) -> Optional[float]:
        return self.count / self.decided if self.decided else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.count, self.decided)

    def as_dict(self) -> dict:
        low, high = self.interval
        return {"hallucinated": self.count, "n": self.decided, "rate": self.value, "low": low, "high": high}


def is_decided(flag) -> bool:
    """A decided answer's flag: True/False (or 1/0 from a table); None, NaN and errors are undecided."""
    return isinstance(flag, bool) or (type(flag) in (int, float) and flag in (0, 1)) or type(flag).__name__ == "bool_"


def hallucination_rate(flags: Iterable) -> Rate:
    """The rate over the decided flags among `flags` (one per answer)."""
    decided = [bool(f) for f in flags if is_decided(f)]
    return Rate(count=sum(decided), decided=len(decided))


def bootstrap_intervals(pairs: list[tuple[bool, bool]], resamples: int = 2000, seed: int = 13,
                        level: float = 0.95) -> dict[str, tuple[Optional[float], Optional[float]]]:
    """Percentile bootstrap intervals of precision, recall, F1 and balanced accuracy over (gold, predicted)
    pairs. Resampling rows with replacement only changes how many fall in each confusion cell, so each
    resample is one multinomial draw of the four counts (exact, and fast for any number of rows); a fixed
    seed shows the same interval for the same run. A resample where a figure is undefined is left out of it."""
    import numpy as np

    names = ("precision", "recall", "f1", "balanced_accuracy")
    if not pairs:
        return {k: (None, None) for k in names}
    counts = np.zeros(4)
    for y, p in pairs:
        counts[(0 if p else 2) if y else (1 if p else 3)] += 1  # tp, fp, fn, tn
    draws = np.random.default_rng(seed).multinomial(len(pairs), counts / len(pairs), size=resamples).astype(float)
    tp, fp, fn, tn = draws.T
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = tp / (tp + fp)
        recall = tp / (tp + fn)
        f1 = 2 * precision * recall / (precision + recall)
        balanced = (recall + tn / (tn + fp)) / 2
    out: dict[str, tuple[Optional[float], Optional[float]]] = {}
    for name, values in zip(names, (precision, recall, f1, balanced)):
        kept = values[np.isfinite(values)]
        if len(kept) < resamples // 2:
            out[name] = (None, None)
            continue
        lo, hi = np.quantile(kept, [(1 - level) / 2, (1 + level) / 2])
        out[name] = (float(lo), float(hi))
    return out
