"""What a team asks of its runs, computed from plain values (no database): v1 vs v2 (paired rates,
McNemar's test, flipped rows, per-group deltas, settings that differ), how far the judge agrees with the
analysts' reviews (Cohen's κ, precision of flags, character-span F1), and reviewed labels as benchmark
records."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from math import comb
from typing import Iterable, Optional

from rt4chart.core.types import AuditReport, Span
from rt4chart.evaluation.metrics import Rate, char_set
from rt4chart.text.spans import merge_spans


def mcnemar_p(b: int, c: int) -> float:
    """Exact two-sided McNemar test on the discordant pairs b and c (binomial, p = 0.5)."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(min(b, c) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def _rate(k: int, n: int) -> dict:
    return Rate(count=k, decided=n).as_dict()


def _flatten(value, prefix: str = "") -> dict:
    if isinstance(value, dict):
        out = {}
        for key, sub in value.items():
            out.update(_flatten(sub, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: value}


CHOSEN = ("rt4chart_version", "settings.method", "judge", "model", "settings.threshold", "settings.segmenter")


def _chosen(key: str, same_judge: bool) -> bool:
    """A setting the user chose: the judge, its model, the audit settings, the threshold; a judge's own settings
    only between runs of that judge (between two judges every one of them differs and says nothing more)."""
    return key in CHOSEN or key.startswith("settings.audit.") or (same_judge and key.startswith("settings.judge."))


def settings_diff(a: dict, b: dict) -> list[dict]:
    """The chosen settings of two manifests whose values differ (nested keys joined with dots); prompt hashes
    and what the endpoint accepted are left out (the manifest keeps them)."""
    fa, fb = _flatten(a), _flatten(b)
    same_judge = a.get("judge") == b.get("judge")
    return [{"key": k, "a": fa.get(k), "b": fb.get(k)} for k in sorted(set(fa) | set(fb))
            if fa.get(k) != fb.get(k) and _chosen(k, same_judge)]


@dataclass
class Comparison:
    matched_rows: int
    matched_by: str                       # "id" or "context+answer"
    a: dict
    b: dict
    flipped_to_hallucinated: list[str]    # faithful in A, hallucinated in B (ids of B)
    flipped_to_faithful: list[str]
    pairs: list[tuple[str, str]]          # (id in A, id in B) of every matched row
    excluded: int                         # matched, but unverified or failed in A or B
    mcnemar_p: float
    groups: list[dict] = field(default_factory=list)
    settings: list[dict] = field(default_factory=list)
    unmatched_a: int = 0
    unmatched_b: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


def compare(a_rows: list[dict], b_rows: list[dict], a_manifest: dict, b_manifest: dict,
            groups: Iterable[str] = ()) -> Comparison:
    """Pair two runs' rows by id (or by context+answer when fewer than half the ids match) and compare."""
    pairs, by_id = _paired(a_rows, b_rows)
    decided = [(x, y) for x, y in pairs if x["hallucinated"] is not None and y["hallucinated"] is not None]
    to_h = [y["row_id"] for x, y in decided if not x["hallucinated"] and y["hallucinated"]]
    to_f = [y["row_id"] for x, y in decided if x["hallucinated"] and not y["hallucinated"]]
    comparison = Comparison(
        matched_rows=len(pairs), matched_by="id" if by_id else "context+answer",
        a=_rate(sum(bool(x["hallucinated"]) for x, _ in decided), len(decided)),
        b=_rate(sum(bool(y["hallucinated"]) for _, y in decided), len(decided)),
        flipped_to_hallucinated=to_h, flipped_to_faithful=to_f,
        pairs=[(x["row_id"], y["row_id"]) for x, y in pairs], excluded=len(pairs) - len(decided),
        mcnemar_p=mcnemar_p(len(to_f), len(to_h)), settings=settings_diff(a_manifest, b_manifest),
        unmatched_a=len(a_rows) - len(pairs), unmatched_b=len(b_rows) - len(pairs))
    for group in groups:
        comparison.groups += _group_rates(decided, group)
    return comparison


def _paired(a_rows: list[dict], b_rows: list[dict]) -> tuple[list[tuple[dict, dict]], bool]:
    """The rows of A with their row of B: by id when at least half the ids match, else by context+answer."""
    a_ids, b_ids = {r["row_id"]: r for r in a_rows}, {r["row_id"]: r for r in b_rows}
    by_id = bool(len(set(a_ids) & set(b_ids)) * 2 >= min(len(a_ids), len(b_ids)) and a_ids)
    if by_id:
        return [(a_ids[k], b_ids[k]) for k in a_ids if k in b_ids], True
    b_keys: dict[str, dict] = {}
    for r in b_rows:
        b_keys.setdefault(r["match_key"], r)
    return [(r, b_keys[r["match_key"]]) for r in a_rows if r["match_key"] in b_keys], False


def _group_rates(decided: list[tuple[dict, dict]], group: str) -> list[dict]:
    """Both runs' rates per value of the `group` column, over the pairs both decided."""
    values: dict[str, list[tuple[dict, dict]]] = {}
    for x, y in decided:
        value = json.loads(x["result"]).get(group) if isinstance(x.get("result"), str) else None
        if value is not None:
            values.setdefault(str(value), []).append((x, y))
    out = []
    for value, part in sorted(values.items()):
        ra = _rate(sum(bool(x["hallucinated"]) for x, _ in part), len(part))
        rb = _rate(sum(bool(y["hallucinated"]) for _, y in part), len(part))
        out.append({"group": group, "value": value, "n": len(part), "a_rate": ra["rate"], "b_rate": rb["rate"],
                    "delta": rb["rate"] - ra["rate"]})
    return out


@dataclass
class ClaimChanges:
    """Claim verdicts of the rows two runs share, matched by claim text within each row."""

    rows: int = 0
    claims_compared: int = 0
    changed: int = 0
    transitions: dict[str, int] = field(default_factory=dict)   # "entailed → baseless": count
    only_in_a: int = 0                                           # claims one decomposition made and the other did not
    only_in_b: int = 0
    changed_rows: list[str] = field(default_factory=list)       # ids in B of the rows with a changed claim

    def as_dict(self) -> dict:
        return asdict(self)


def _claim_key(text: str) -> str:
    return " ".join(text.split()).lower()


def claim_changes(report_pairs: Iterable[tuple[str, AuditReport, AuditReport]]) -> ClaimChanges:
    """Per shared row (id in B, report in A, report in B): which claim verdicts changed, and how."""
    out = ClaimChanges()
    for row_id, a, b in report_pairs:
        out.rows += 1
        a_claims: dict[str, list[str]] = {}
        for r in a.claims:
            a_claims.setdefault(_claim_key(r.claim.text), []).append(r.verdict.value)
        changed_here = False
        for r in b.claims:
            before = a_claims.get(_claim_key(r.claim.text))
            if not before:
                out.only_in_b += 1
                continue
            verdict_a = before.pop(0)
            out.claims_compared += 1
            if verdict_a != r.verdict.value:
                out.changed += 1
                key = f"{verdict_a} → {r.verdict.value}"
                out.transitions[key] = out.transitions.get(key, 0) + 1
                changed_here = True
        out.only_in_a += sum(len(v) for v in a_claims.values())
        if changed_here:
            out.changed_rows.append(row_id)
    return out


# -- judge-human agreement ----------------------------------------------------------------------

def reviewed_claim_hallucinated(verdict: str, review) -> Optional[bool]:
    """Whether the analyst says the claim is hallucinated (None: the claim was not reviewed)."""
    if review is None:
        return None
    if review.verdict:
        return review.verdict in ("contradicted", "baseless")
    if review.judge_right is None:
        return None
    judged = verdict in ("contradicted", "baseless")
    return judged if review.judge_right else not judged


def reviewed_spans(report: AuditReport, claim_reviews: dict[int, object]) -> list[Span]:
    """The answer characters the analyst holds hallucinated: a confirmed flag keeps the judge's span; a
    claim the judge passed but the analyst flags counts whole."""
    spans: list[Span] = []
    for index, result in enumerate(report.claims):
        flagged = reviewed_claim_hallucinated(result.verdict.value, claim_reviews.get(index))
        if flagged is None:
            flagged = result.verdict.is_hallucination  # unreviewed claims keep the judge's word
        if flagged:
            spans += result.hallucinated_spans if result.verdict.is_hallucination else result.claim.spans
    return merge_spans(spans)


MIN_REVIEWS = 10  # below this many reviews, agreement figures are too noisy to show as numbers


def reviewed_figure(value: Optional[float], n: int) -> str:
    """An agreement figure as shown: "too few reviews (n of 10)" below MIN_REVIEWS, else 3 decimals."""
    if n < MIN_REVIEWS:
        return f"too few reviews ({n} of {MIN_REVIEWS})"
    return "–" if value is None else f"{value:.3f}"


@dataclass
class Agreement:
    rows_reviewed: int = 0
    rows_compared: int = 0                 # reviewed rows the judge decided (not unverified or failed)
    kappa: Optional[float] = None          # Cohen's κ on the answer label
    agreement: Optional[float] = None      # share of equal labels
    flags_reviewed: int = 0
    flag_precision: Optional[float] = None  # reviewed flagged claims the analysts confirmed
    span_precision: Optional[float] = None
    span_recall: Optional[float] = None
    span_f1: Optional[float] = None
    confusion: dict = field(default_factory=dict)  # judge x analyst counts

    def as_dict(self) -> dict:
        return asdict(self)


def cohen_kappa(pairs: list[tuple[bool, bool]]) -> Optional[float]:
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    pa, pb = sum(a for a, _ in pairs) / n, sum(b for _, b in pairs) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    return 1.0 if expected == 1 else (observed - expected) / (1 - expected)


def claim_reviews_by_row(reviews: dict) -> dict[str, dict[int, object]]:
    """Row id -> claim index -> its latest review (grouped once, not searched per row)."""
    grouped: dict[str, dict[int, object]] = {}
    for (row, claim), review in reviews.items():
        if claim is not None:
            grouped.setdefault(row, {})[claim] = review
    return grouped


def _reviewed_flags(reports: dict[str, AuditReport], reviews: dict) -> list[bool]:
    """For every flagged claim an analyst reviewed: was it hallucinated (the analyst's say)."""
    flags = [(rid, claim, r) for (rid, claim), r in reviews.items() if claim is not None and rid in reports
             and claim < len(reports[rid].claims) and reports[rid].claims[claim].verdict.is_hallucination]
    verdicts = [reviewed_claim_hallucinated(reports[rid].claims[c].verdict.value, r) for rid, c, r in flags]
    return [x for x in verdicts if x is not None]


def agreement(reports: dict[str, AuditReport], reviews: dict) -> Agreement:
    """The judge against the analysts on the reviewed rows (`reviews`: (row id, claim) -> latest review)."""
    labels = {row: r.label for (row, claim), r in reviews.items() if claim is None and r.label}
    by_row = claim_reviews_by_row(reviews)
    result = Agreement(rows_reviewed=len(labels))
    pairs, overlap, predicted, gold = [], 0, 0, 0
    confusion = {"judge hallucinated / analyst hallucinated": 0, "judge hallucinated / analyst faithful": 0,
                 "judge faithful / analyst hallucinated": 0, "judge faithful / analyst faithful": 0}
    for row, label in labels.items():
        report = reports.get(row)
        if report is None or report.hallucinated is None:
            continue
        human = label == "hallucinated"
        pairs.append((bool(report.hallucinated), human))
        confusion[f"judge {'hallucinated' if report.hallucinated else 'faithful'} / analyst {label}"] += 1
        truth = reviewed_spans(report, by_row.get(row, {})) if human else []
        n = len(report.answer)
        judged, held = char_set([s.model_dump() for s in report.spans], n), char_set([s.model_dump() for s in truth], n)
        overlap, predicted, gold = overlap + len(judged & held), predicted + len(judged), gold + len(held)
    result.rows_compared, result.confusion = len(pairs), confusion
    result.kappa = cohen_kappa(pairs)
    result.agreement = sum(a == b for a, b in pairs) / len(pairs) if pairs else None
    confirmed = _reviewed_flags(reports, reviews)
    result.flags_reviewed = len(confirmed)
    result.flag_precision = sum(confirmed) / len(confirmed) if confirmed else None
    if pairs:
        p = overlap / predicted if predicted else None
        r = overlap / gold if gold else None
        result.span_precision, result.span_recall = p, r
        result.span_f1 = (2 * p * r / (p + r) if (p + r) else 0.0) if p is not None and r is not None else None
    return result


def label_records(records: list[dict], reports: dict[str, AuditReport], reviews: dict,
                  reviewed_only: bool = False) -> tuple[list[dict], int]:
    """Benchmark records (the format of ../shared/benchmarks) with the analysts' labels where they exist,
    else the judge's; rows without any known label (unverified, failed) are left out and counted."""
    out, skipped = [], 0
    by_row = claim_reviews_by_row(reviews)
    for record in records:
        row = record["id"]
        review = reviews.get((row, None))
        report = reports.get(row)
        if review is not None and review.label:
            hallucinated = review.label == "hallucinated"
            spans = reviewed_spans(report, by_row.get(row, {})) if (report is not None and hallucinated) else []
            source = "review"
        elif not reviewed_only and report is not None and report.hallucinated is not None:
            hallucinated, spans, source = bool(report.hallucinated), list(report.spans), "judge"
        else:
            skipped += 1
            continue
        out.append({"id": row, "context": record["context"], "answer": record["answer"],
                    "question": record.get("question"), "hallucinated": hallucinated,
                    "spans": [{"start": s.start, "end": s.end, "text": record["answer"][s.start:s.end],
                               "label": "reviewed" if source == "review" else "judge"} for s in spans],
                    "span_annotated": True, "label_source": source,
                    "meta": {"question": record.get("question")} if record.get("question") else {}})
    return out, skipped
