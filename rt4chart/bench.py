"""Benchmark harness: run a judge over gold records and score it like `shared/benchmarks/score.py`."""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

from .config import AuditConfig
from .batch import run_records
from .batch_run import output_line
from .io import iter_rows, records_from_rows
from .judges.base import Judge
from .metrics import Scores, fmt, score


@dataclass
class BenchResult:
    """Predictions, scores per group, and cost/throughput figures."""

    predictions: list[dict]
    scores: dict[str, Scores]
    elapsed_s: float
    answers: int
    judge_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def answers_per_s(self) -> float:
        return self.answers / self.elapsed_s if self.elapsed_s else 0.0

    def as_dict(self) -> dict:
        n = max(self.answers, 1)
        return {"answers": self.answers, "elapsed_s": round(self.elapsed_s, 3),
                "answers_per_s": round(self.answers_per_s, 2),
                "judge_calls_per_answer": self.judge_calls / n,
                "prompt_tokens_per_answer": self.prompt_tokens / n,
                "completion_tokens_per_answer": self.completion_tokens / n,
                "errors": self.errors,
                "results": {k: v.as_dict() for k, v in self.scores.items()}}


def load_gold(paths: Iterable[str], limit: Optional[int] = None, seed: Optional[int] = None) -> list[dict]:
    """Gold records of one or more benchmark files; `limit` keeps a seeded sample (or the first N)."""
    records: list[dict] = []
    for path in paths:
        records.extend(iter_rows(path))
    if limit is not None and limit < len(records):
        if seed is not None:
            records = random.Random(seed).sample(records, limit)
        else:
            records = records[:limit]
    return records


def group_scores(gold: list[dict], preds: dict[str, dict], strict: bool) -> dict[str, Scores]:
    """Scores over all records and per dataset and dataset/task."""
    groups: dict[str, list[dict]] = {"all": gold}
    for g in gold:
        ds = g.get("dataset", "?")
        groups.setdefault(ds, []).append(g)
        if g.get("task"):
            groups.setdefault(f"{ds}/{g['task']}", []).append(g)
    if len(groups) == 3 and "all" in groups:  # one dataset with one task: the extra rows repeat "all"
        groups = {"all": gold}
    return {name: score(records, preds, strict=strict) for name, records in groups.items()}


def run_bench(gold: list[dict], judge: Judge, config: Optional[AuditConfig] = None, strict: bool = False,
              progress: Optional[Callable[[int], None]] = None, workers: int = 1) -> BenchResult:
    """Audit every gold record (question from `meta.question`) and score the predictions."""
    preds: list[dict] = []
    errors: list[str] = []
    calls = ptok = ctok = 0
    started = time.perf_counter()
    records = list(records_from_rows(gold, source="benchmark"))
    for row in run_records(records, judge, config, workers=workers,
                           progress=(lambda _r: progress()) if progress else None):
        preds.append(output_line(row))
        if row.report is None:
            errors.append(f"{row.record.id}: {row.error}")
            continue
        calls += row.report.coverage.judge_calls
        ptok += row.report.coverage.prompt_tokens
        ctok += row.report.coverage.completion_tokens
    elapsed = time.perf_counter() - started
    by_id = {p["id"]: p for p in preds}
    return BenchResult(predictions=preds, scores=group_scores(gold, by_id, strict), elapsed_s=elapsed,
                       answers=len(gold), judge_calls=calls, prompt_tokens=ptok, completion_tokens=ctok,
                       errors=errors)


def format_scores(name: str, s: Scores) -> str:
    """The figures in the layout of score.py."""
    lines = [f"== {name}: n={s.n} (gold positives={s.tp + s.fn}, negatives={s.tn + s.fp})",
             f"   answer-level  P={fmt(s.precision)} R={fmt(s.recall)} F1={fmt(s.f1)} "
             f"BA={fmt(s.balanced_accuracy)} Acc={fmt(s.accuracy)}  (tp={s.tp} fp={s.fp} fn={s.fn} tn={s.tn})"]
    if s.span_records:
        lines.append(f"   span-level    P={fmt(s.span_precision)} R={fmt(s.span_recall)} F1={fmt(s.span_f1)}  "
                     f"(chars: overlap={s.overlap_chars} pred={s.pred_chars} gold={s.gold_chars}; "
                     f"span-annotated records={s.span_records})")
    else:
        lines.append("   span-level    n/a (no span-annotated gold records)")
    return "\n".join(lines)
