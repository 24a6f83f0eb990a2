"""The RT4CHART audit of one answer: decompose -> local verify -> global verify -> aggregate."""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable, Optional

from rt4chart.auditing.manifest import manifest_of, threshold_of
from rt4chart.auditing.reflection import check_supported, reflect
from rt4chart.auditing.scores import answer_score, calibrate, shown
from rt4chart.core.config import AuditConfig
from rt4chart.core.cost import Cost
from rt4chart.core.types import (
    AnswerStatus,
    AuditReport,
    Claim,
    ClaimResult,
    Coverage,
    Evidence,
    Relation,
    Verdict,
    Window,
    WindowVerdict,
)
from rt4chart.judges.base import AuditInput, Judge, Judgement
from rt4chart.text.coverage import ensure_coverage
from rt4chart.text.lexicon import tokenize
from rt4chart.text.retrieval import SentenceIndex
from rt4chart.text.segment import make_windows, split_sentences
from rt4chart.text.spans import clip_to, merge_spans

_OR_PRIORITY = (Verdict.CONTRADICTED, Verdict.ENTAILED, Verdict.UNVERIFIED, Verdict.BASELESS)


def or_join(verdicts: list[Verdict]) -> Verdict:
    """Local join over windows: contradiction first, then entailment; nothing found is baseless.
    A failed window (unverified) outranks baseless: a failure never reads as a finding."""
    for verdict in _OR_PRIORITY:
        if verdict in verdicts:
            return verdict
    return Verdict.BASELESS


def and_join(verdicts: list[Verdict], flagged: Optional[bool] = None) -> tuple[AnswerStatus, Optional[bool]]:
    """Answer-level status: the answer is hallucinated when its score reaches the threshold (`flagged`), or,
    without a score, when any claim is contradicted/baseless; otherwise a failed claim makes it unverified,
    never faithful."""
    if not verdicts:
        return "empty", False
    if flagged if flagged is not None else any(v.is_hallucination for v in verdicts):
        return "hallucinated", True
    if Verdict.UNVERIFIED in verdicts:
        return "unverified", None
    return "faithful", False


def claim_score(verdict: Verdict, judged: Optional[float]) -> Optional[float]:
    """The judge's score, else one from the verdict (judges without scores); None for a failed claim."""
    if verdict is Verdict.UNVERIFIED:
        return None
    if judged is not None:
        return judged  # exact: rounding could carry a claim just below the boundary onto it
    return {Verdict.CONTRADICTED: 0.95, Verdict.BASELESS: 0.85, Verdict.ENTAILED: 0.1}[verdict]


def route_claims(claims: list[Claim], windows: list[Window], audit: AuditInput,
                 per_claim: int) -> dict[int, list[Claim]]:
    """Window index -> the claims to check there: each claim goes to its best-matching windows
    (BM25 of the claim's stems against the window's best sentence)."""
    routed: dict[int, list[Claim]] = {w.index: [] for w in windows}
    index = audit.index
    for claim in claims:
        stems = {t.stem for t in tokenize(claim.text) if t.is_content}
        sentence_scores = [index.score(stems, i) for i in range(len(index))]  # once; windows overlap
        scores = []
        for window in windows:
            best = max((sentence_scores[i] for i in window.sentence_ids()), default=0.0)
            if best > 0:
                scores.append((best, window.index))
        scores.sort(key=lambda pair: (-pair[0], pair[1]))
        for _, window_index in scores[:per_claim]:
            routed[window_index].append(claim)
    return routed


def _evidence(judgement: Judgement, audit: AuditInput) -> list[Evidence]:
    items = []
    relations: tuple[tuple[Relation, list[int]], ...] = (
        ("contradicts", judgement.contradicting), ("supports", judgement.supporting), ("nearest", judgement.nearest))
    for relation, ids in relations:
        for i in ids:
            if 0 <= i < len(audit.context_sentences):
                s = audit.context_sentences[i]
                items.append(Evidence(sentence_index=i, start=s.start, end=s.end, text=s.text, relation=relation))
    return items


def _claim_result(claim: Claim, local: list[WindowVerdict], final: Judgement, audit: AuditInput,
                  threshold: float = 0.5,
                  calibration: tuple[float, float] = (1.0, 0.0)) -> tuple[ClaimResult, Optional[float]]:
    """A claim's score on the answers' calibrated scale; the claim is flagged when it reaches the threshold
    (at the default threshold: exactly its hallucination verdicts). Also returns the raw (uncalibrated) score
    that the answer's score aggregates."""
    raw = claim_score(final.verdict, final.score)
    score = calibrate(raw, *calibration) if raw is not None else None
    flagged = score >= threshold if score is not None else False
    score = shown(score, flagged) if score is not None else None  # decided on the exact value, shown rounded
    spans: list = []
    if flagged:
        spans = clip_to(final.unsupported, claim.spans) or list(claim.spans)
    return ClaimResult(claim=claim, local=local, local_verdict=or_join([w.verdict for w in local]),
                       verdict=final.verdict, evidence=_evidence(final, audit), rationale=final.rationale,
                       hallucinated_spans=spans, history=[final.verdict], score=score), raw


def prepare(context: str, answer: str, question: Optional[str]) -> AuditInput:
    """Segment both texts and index the context."""
    context_sentences = split_sentences(context)
    return AuditInput(context=context, answer=answer, question=(question or None),
                      context_sentences=context_sentences, answer_sentences=split_sentences(answer),
                      index=SentenceIndex(context_sentences))


Progress = Callable[[str, float], None]


@dataclass
class _Audit:
    """One audit in progress: what every step reads and adds to."""

    judge: Judge
    config: AuditConfig
    data: AuditInput
    windows: list[Window]
    tell: Progress
    usage: Cost = field(default_factory=Cost)
    notes: list[str] = field(default_factory=list)
    local: dict[int, list[WindowVerdict]] = field(default_factory=dict)
    window_checks: int = 0
    planned: int = 0


def audit(context: str, answer: str, question: Optional[str] = None, judge: Optional[Judge] = None,
          config: Optional[AuditConfig] = None, progress: Optional[Progress] = None) -> AuditReport:
    """Audit one answer against its context (and optional question) and return the full report.
    `progress(step, fraction)` is called before each step (decomposition, each window, global check,
    reflection), so a caller can show where a slow LLM audit is, or stop it there."""
    from rt4chart.judges.factory import make_judge

    for name, value in (("context", context), ("answer", answer)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string, got {type(value).__name__}")
    judge = judge or make_judge("offline")
    config = config or AuditConfig()
    if config.reflect:
        check_supported(judge)
    started = time.perf_counter()
    data = prepare(context, answer, question)
    run = _Audit(judge, config, data, make_windows(len(data.context_sentences), config.window_size,
                                                   config.window_stride),
                 tell=progress or (lambda _step, _fraction: None))
    claims = _decompose(run)
    finals = _verify(run, claims)
    finals, histories, reflection = _reflect(run, claims, finals)
    return _aggregate(run, claims, finals, histories, reflection, started)


def _decompose(run: _Audit) -> list[Claim]:
    """Step 1: atomic claims, every asserting sentence of the answer covered."""
    data = run.data
    run.tell("decomposing the answer into claims", 0.0)
    claims = run.judge.decompose(data, run.usage) if data.answer_sentences else []
    claims, added = ensure_coverage(claims, data.answer, data.answer_sentences)
    if added:
        run.notes.append(f"the decomposition left {added} part{'s' if added != 1 else ''} of the answer without a "
                         "claim; rule-based claims were added for them and verified like the others")
    if not claims:
        run.notes.append("the answer is empty: nothing to check" if not data.answer.strip()
                         else "no checkable claim was found in the answer")
    run.local = {c.id: [] for c in claims}
    run.planned = 1 if (run.judge.makes_calls and data.answer_sentences) else 0
    return claims


def _verify(run: _Audit, claims: list[Claim]) -> dict[int, Judgement]:
    """Steps 2 and 3: each claim in its best windows (OR-joined, contradiction first), then against the
    whole context with the local verdicts as hints."""
    data, judge = run.data, run.judge
    if claims and not data.context_sentences:
        run.notes.append("the context is empty: every claim is baseless")
        return {c.id: Judgement(Verdict.BASELESS, rationale="the context is empty") for c in claims}
    if not claims:
        return {}
    hints: dict[int, Judgement] = {}
    plan = [(i, routed) for i, routed in route_claims(claims, run.windows, data, run.config.windows_per_claim).items()
            if routed]
    run.planned += (len(plan) + 1) if judge.makes_calls else 0
    for step, (window_index, routed) in enumerate(plan):
        run.tell(f"local check: window {step + 1} of {len(plan)}", 0.1 + 0.7 * step / max(1, len(plan)))
        run.window_checks += len(routed)
        for claim_id, j in judge.verify_window(routed, run.windows[window_index], data, run.usage).items():
            run.local[claim_id].append(WindowVerdict(window_index=window_index, verdict=j.verdict,
                                                     evidence=j.supporting + j.contradicting, rationale=j.rationale))
            hints[claim_id] = _strongest(hints.get(claim_id), j)
    run.tell("global check against the whole context", 0.8)
    return judge.verify_global(claims, hints, data, run.usage)


def _reflect(run: _Audit, claims: list[Claim], finals: dict[int, Judgement]):
    """Optional: the judge re-examines its verdicts until it declares success, within the round cap."""
    if not (run.config.reflect and claims and finals):
        return finals, {}, None
    finals = {c.id: finals.get(c.id) or Judgement(Verdict.UNVERIFIED, rationale="the judge returned no verdict")
              for c in claims}
    run.tell("self-reflection", 0.9)
    finals, histories, reflection = reflect(claims, finals, run.judge, run.data, run.config.max_rounds, run.usage)
    if reflection.failure:
        run.notes.append(f"reflection stopped early: {reflection.failure}")
    return finals, histories, reflection


def _aggregate(run: _Audit, claims: list[Claim], finals: dict[int, Judgement], histories: dict[int, list[Verdict]],
               reflection, started: float) -> AuditReport:
    """Step 4: claim results and scores, the AND-join, merged spans, coverage and the manifest."""
    judge, data, usage = run.judge, run.data, run.usage
    calibration = judge.score_calibration()
    threshold = threshold_of(judge, run.config)
    results: list[ClaimResult] = []
    raw_scores: list[Optional[float]] = []
    for claim in claims:
        final = finals.get(claim.id) or Judgement(Verdict.UNVERIFIED, rationale="the judge returned no verdict")
        result, raw = _claim_result(claim, run.local[claim.id], final, data, threshold, calibration)
        raw_scores.append(raw)
        if claim.id in histories:
            result.history = histories[claim.id]
        results.append(result)
    run.notes.extend(data.notes)
    score = answer_score(raw_scores, calibration)
    if score is not None and score >= threshold and not any(r.hallucinated_spans for r in results):
        top = max((r for r in results if r.score is not None), key=lambda r: r.score or 0.0)  # the answer is flagged by
        top.hallucinated_spans = list(top.claim.spans)  # its claims together: mark the most doubtful one
    status, hallucinated = and_join([r.verdict for r in results], score is not None and score >= threshold)
    score = shown(score, score >= threshold) if score is not None else None
    spans = merge_spans((s for r in results for s in r.hallucinated_spans), join_gap=2, text=data.answer)
    rounds = len(reflection.rounds) if reflection else 0
    coverage = Coverage(context_sentences=len(data.context_sentences), windows=len(run.windows),
                        window_checks=run.window_checks, cost=replace(usage),  # a copy: the run's counter is its own
                        elapsed_s=round(time.perf_counter() - started, 4), reflection_rounds=rounds,
                        planned_calls=run.planned + (rounds if judge.makes_calls else 0))
    return AuditReport(context=data.context, answer=data.answer, question=data.question, status=status,
                       hallucinated=hallucinated, score=score, spans=spans, claims=results,
                       context_sentences=data.context_sentences, windows=run.windows, coverage=coverage,
                       manifest=manifest_of(judge, run.config, threshold), reflection=reflection, notes=run.notes)


def _strongest(current: Optional[Judgement], new: Judgement) -> Judgement:
    """Keep the OR-join winner between two local judgements of the same claim."""
    if current is None:
        return new
    return current if _OR_PRIORITY.index(current.verdict) <= _OR_PRIORITY.index(new.verdict) else new
