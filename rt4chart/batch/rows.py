"""Dataset runs: every record audited in isolation, results in input order, failures kept as rows."""
from __future__ import annotations

from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable, Iterator, Optional

from rt4chart.auditing.pipeline import audit
from rt4chart.core.config import AuditConfig
from rt4chart.core.errors import JudgeFatalError
from rt4chart.core.rows import Record, RowResult
from rt4chart.core.types import AuditReport, Verdict
from rt4chart.core.version import METHOD_REVISION, __version__
from rt4chart.judges.base import Judge
from rt4chart.judges.cache import MemoCache, cache_key
from rt4chart.text.segment import segmenter_name


def report_key(record: Record, judge: Judge, config: Optional[AuditConfig]) -> str:
    """Everything that determines a report (never the API key)."""
    return cache_key({"kind": "report", "version": __version__, "method": METHOD_REVISION,
                      "segmenter": segmenter_name(), "judge": judge.name, "model": judge.model,
                      "judge_settings": judge.settings(), "config": (config or AuditConfig()).model_dump(),
                      "context": record.context, "answer": record.answer, "question": record.question})


def audit_record(record: Record, judge: Judge, config: Optional[AuditConfig],
                 cache: Optional[MemoCache] = None) -> RowResult:
    """Audit one record (or take its report from `cache`); any failure is captured on the row."""
    if record.error:
        return RowResult(record, error=record.error)
    try:
        key = report_key(record, judge, config) if cache is not None else ""
        if cache is not None and (hit := cache.get(key)) is not None:
            return RowResult(record, report=served_from_cache(AuditReport.model_validate(hit)))
        report = audit(record.context, record.answer, record.question, judge=judge, config=config)
        if cache is not None and not any(c.verdict is Verdict.UNVERIFIED for c in report.claims):
            cache.put(key, report.model_dump(mode="json"))  # a report with a failed claim is redone next time
        return RowResult(record, report=report)
    except JudgeFatalError:
        raise  # the endpoint refuses the configuration: no row can succeed, so the run stops
    except Exception as exc:  # per-row isolation: a bad row is reported, the run goes on
        return RowResult(record, error=f"{type(exc).__name__}: {exc}")


def served_from_cache(report: AuditReport) -> AuditReport:
    """A stored report as served now: its calls were made by an earlier run, so they count as cached
    and cost nothing now (no calls, no tokens, no failures)."""
    report.coverage = report.coverage.model_copy(update={"cost": report.coverage.cost.as_cached()})
    return report


def run_records(records: Iterable[Record], judge: Judge, config: Optional[AuditConfig] = None,
                workers: int = 1, progress: Optional[Callable[[RowResult], None]] = None,
                cache: Optional[MemoCache] = None) -> Iterator[RowResult]:
    """Audit records with up to `workers` threads; yields results in input order.

    Records are consumed lazily and at most `4 * workers` are in flight, so memory stays bounded
    for inputs of any size."""
    if workers <= 1:
        for record in records:
            result = audit_record(record, judge, config, cache)
            if progress:
                progress(result)
            yield result
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending: deque = deque()
        for record in records:
            pending.append(pool.submit(audit_record, record, judge, config, cache))
            if len(pending) >= 4 * workers:
                yield _finish(pending.popleft(), progress)
        while pending:
            yield _finish(pending.popleft(), progress)


def _finish(future, progress) -> RowResult:
    result = future.result()
    if progress:
        progress(result)
    return result
