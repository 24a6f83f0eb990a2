"""Benchmark harness: run a judge over gold records and score it like `shared/benchmarks/score.py`."""
from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Optional

from rt4chart.core.config import AuditConfig
from rt4chart.core.cost import Cost
from rt4chart.core.errors import InputError
from rt4chart.core.types import Coverage
from rt4chart.data.records import iter_rows, records_from_rows
from rt4chart.evaluation.metrics import Scores, as_bool, fmt, score
from rt4chart.judges.base import Judge


@dataclass
class BenchResult:
    """Predictions, scores per group, and cost/throughput figures."""

    predictions: list[dict]
    scores: dict[str, Scores]
    elapsed_s: float
    answers: int
    cost: Cost = field(default_factory=Cost)
    planned_calls: int = 0
    errors: list[str] = field(default_factory=list)
    unverified: int = 0     # answers the judge failed on: not scored (neither faithful nor hallucinated)
    scored: int = 0         # answers the scores are computed over
    refused: str = ""       # why no score is presented (most answers unverified or failed)
    workers: int = 1        # the workers that audited (processes for a judge that computes, else threads)

    @property
    def answers_per_s(self) -> float:
        return self.answers / self.elapsed_s if self.elapsed_s else 0.0

    def as_dict(self) -> dict:
        n = max(self.answers, 1)
        return {"answers": self.answers, "elapsed_s": round(self.elapsed_s, 3),
                "answers_per_s": round(self.answers_per_s, 2),
                "judge_calls_per_answer": self.cost.calls / n,
                "planned_calls_per_answer": self.planned_calls / n,
                "prompt_tokens_per_answer": self.cost.prompt_tokens / n,
                "completion_tokens_per_answer": self.cost.completion_tokens / n,
                "errors": self.errors, "unverified": self.unverified, "scored": self.scored,
                "refused": self.refused or None, "workers": self.workers,
                "results": {k: v.as_dict() for k, v in self.scores.items()}}


def load_gold(paths: Iterable[str], limit: Optional[int] = None, seed: Optional[int] = None,
              mapping: Optional[dict] = None, gold_column: str = "hallucinated", spans_column: str = "spans",
              delimiter: Optional[str] = None) -> list[dict]:
    """Gold records of one or more benchmark files (JSONL of ../shared/benchmarks, or any table with a
    mapping and a gold column); `limit` keeps a seeded sample (or the first N)."""
    records: list[dict] = []
    for path in paths:
        records.extend(normalise_gold(iter_rows(path, delimiter), path, mapping, gold_column, spans_column))
    if limit is not None and limit < len(records):
        if seed is not None:
            records = random.Random(seed).sample(records, limit)
        else:
            records = records[:limit]
    return records


def normalise_gold(rows: Iterable[dict], source: str, mapping: Optional[dict] = None,
                   gold_column: str = "hallucinated", spans_column: str = "spans") -> Iterator[dict]:
    """Rows in the benchmark format (id, context, answer, hallucinated, spans, meta.question); a row of
    the benchmark files passes unchanged, other tables are mapped."""
    rows = iter(rows)
    first = next(rows, None)
    if first is None:
        return
    if not mapping and gold_column == "hallucinated" and spans_column == "spans" and {"id", "context", "answer",
                                                                                        "hallucinated"} <= set(first):
        yield first
        yield from rows
        return
    import itertools

    pairs = itertools.tee(itertools.chain([first], rows))
    for record, row in zip(records_from_rows(pairs[0], mapping, source), pairs[1]):
        if gold_column not in row:
            raise InputError(f"{source}: no gold column {gold_column!r}; columns found: {', '.join(map(str, row))}")
        spans = row.get(spans_column)
        spans = json.loads(spans) if isinstance(spans, str) and spans.strip() else (spans or [])
        yield {"id": record.id, "context": record.context, "answer": record.answer, "hallucinated":
               as_bool(row[gold_column]), "spans": spans, "span_annotated": spans_column in row,
               "meta": {"question": record.question} if record.question else {},
               **{k: row[k] for k in ("dataset", "task") if k in row}}


def _lines(records: list, judge: Judge, config: AuditConfig, workers: int) -> Iterator[dict]:
    """Each record's predictions line, in input order, as `rt4chart batch` writes it (`workers` already resolved)."""
    from rt4chart.batch.executors import local_executor
    from rt4chart.batch.spec import RunSpec

    executor = local_executor(RunSpec(judge=judge, config=config, workers=workers), keep=False)
    for audited in executor.lines(enumerate(records)):
        yield json.loads(audited.line)


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
              progress: Optional[Callable[[], None]] = None, workers: int = 1) -> BenchResult:
    """Audit every gold record (question from `meta.question`) and score the predictions. The records are audited
    by the batch's local engine (`batch.executors.local_executor`): on several workers, a judge that computes runs
    in processes with its share of the cores, as `rt4chart batch` runs it; `workers` AUTO_WORKERS (`--workers auto`) lets
    the machine and the number of records decide (`batch.cores.auto_workers`)."""
    from rt4chart.batch.cores import resolved_workers

    preds: list[dict] = []
    errors: list[str] = []
    cost, planned = Cost(), 0
    started = time.perf_counter()
    records = list(records_from_rows(gold, source="benchmark"))
    workers = resolved_workers(workers, judge.makes_calls, len(records))
    for line in _lines(records, judge, config or AuditConfig(), workers):
        if progress:
            progress()
        preds.append(line)
        if line.get("status") == "error":
            errors.append(f"{line['id']}: {line['error']}")
            continue
        coverage = Coverage.model_validate(line["coverage"])
        cost += coverage.cost
        planned += coverage.planned_calls
    elapsed = time.perf_counter() - started
    by_id = {p["id"]: p for p in preds}
    # an unverified or failed answer is neither faithful nor hallucinated: it is not scored
    verified = [g for g in gold if by_id.get(g["id"], {}).get("hallucinated") is not None]
    unverified = sum(1 for p in preds if p.get("status") == "unverified")
    result = BenchResult(predictions=preds, scores={}, elapsed_s=elapsed, answers=len(gold), cost=cost, planned_calls=planned,
                         errors=errors, unverified=unverified,
                         scored=len(verified), workers=workers)
    if len(verified) * 2 < len(gold):
        result.refused = (f"only {len(verified)} of {len(gold)} answers were verified ({unverified} unverified, "
                          f"{len(errors)} failed): no score is presented; see the errors and the claims' reasons")
    else:
        result.scores = group_scores(verified, by_id, strict)
    return result


def format_scores(name: str, s: Scores) -> str:
    """The figures in the layout of score.py."""
    lines = [f"== {name}: n={s.n} (gold positives={s.tp + s.fn}, negatives={s.tn + s.fp})",
             f"   answer-level  P={fmt(s.precision)} R={fmt(s.recall)} F1={fmt(s.f1)} "
             f"BA={fmt(s.balanced_accuracy)} Acc={fmt(s.accuracy)}  (tp={s.tp} fp={s.fp} fn={s.fn} tn={s.tn})"]
    if s.scored:
        lines.append(f"   ranking       AUROC={fmt(s.auroc)} AUPRC={fmt(s.auprc)}  (scores of {len(s.scored)} answers)")
    if s.span_records:
        lines.append(f"   span-level    P={fmt(s.span_precision)} R={fmt(s.span_recall)} F1={fmt(s.span_f1)}  "
                     f"(chars: overlap={s.overlap_chars} pred={s.pred_chars} gold={s.gold_chars}; "
                     f"span-annotated records={s.span_records})")
    else:
        lines.append("   span-level    n/a (no span-annotated gold records)")
    if s.claims_flagged:
        lines.append(f"   claim-level   precision={fmt(s.claim_precision)}  (flagged claims touching a gold span: "
                     f"{s.claims_flagged_in_gold} of {s.claims_flagged})")
    return "\n".join(lines)
