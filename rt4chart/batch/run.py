"""File-to-file batch audits (`rt4chart predict` and `rt4chart batch`): a validated input streamed
row by row, exactly one output line per input record in input order (failed rows included), one
writer per output, and an optional checkpoint journal for resume after a kill."""
from __future__ import annotations

import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Iterator, Optional

from rt4chart.batch.audited import AuditedLine
from rt4chart.batch.cores import resolved_workers
from rt4chart.batch.executors import DaskWorkers, local_executor
from rt4chart.batch.journal import Journal, file_digest, run_fingerprint
from rt4chart.batch.output import PredictionsOutput, refuse_output_over_input
from rt4chart.batch.partitions import Plan, plan_input, plannable
from rt4chart.batch.spec import RunSpec
from rt4chart.batch.stored import open_writer, run_manifest
from rt4chart.core.config import AuditConfig
from rt4chart.core.errors import InputError, StoreError
from rt4chart.core.rows import Record
from rt4chart.data.columns import known_format
from rt4chart.data.records import open_table, table_records
from rt4chart.data.tables import Table
from rt4chart.judges.base import Judge
from rt4chart.store.writer import RunWriter

if TYPE_CHECKING:
    pass


@dataclass
class BatchSummary:
    """What a batch run did."""

    rows: int = 0
    audited: int = 0
    failed: int = 0
    unverified: int = 0
    hallucinated: int = 0
    resumed: int = 0
    renamed_ids: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0
    run_id: Optional[str] = None      # the run in the store, when stored
    run_name: Optional[str] = None
    recognised: Optional[str] = None  # the evaluation format the columns were recognised as (RAGAS, DeepEval)

    def count(self, status: str) -> None:
        """One written row of this status in the totals."""
        self.failed += status == "error"
        self.unverified += status == "unverified"
        self.hallucinated += status == "hallucinated"


@contextmanager
def _kept_on_the_way_out(writer: RunWriter) -> Iterator[None]:
    """The stored run keeps what was audited when the run stops early. Input that proves bad during the run
    (edited, truncated, appended) marks it failed: it can never be resumed, so it must not stay `running`. A
    stop (a cancelled job, Ctrl-C) stores the rows audited so far and leaves it `running`, to be resumed."""
    try:
        yield
    except InputError:
        try:
            writer.flush()
            writer.store.mark_failed(writer.run.id)
        except StoreError:
            pass  # the store is failing too; the input's message is the one to give
        raise
    except BaseException:
        try:
            writer.flush()
        except StoreError:
            pass  # the journal redoes the rows the store lacks
        raise


def batch_fingerprint(input_path: str, spec: RunSpec, digest: Optional[str] = None) -> str:
    """What makes two batches the same batch (a journal resumes it, a job is found again): the input's bytes,
    the settings, the mapping and the delimiter."""
    return run_fingerprint(digest or file_digest(input_path),
                           {**spec.settings(), "mapping": spec.mapping, "delimiter": spec.delimiter})


def run_batch(input_path: str, output_path: str, judge: Judge, config: Optional[AuditConfig] = None,
              journal_path: Optional[str] = None, resume: bool = True,
              progress: Optional[Callable[[int, int], None]] = None, **options) -> BatchSummary:
    """`run_spec` with a `RunSpec` made of `judge`, `config` and `options` (its fields)."""
    return run_spec(input_path, output_path, RunSpec(judge=judge, config=config or AuditConfig(), **options),
                    journal_path=journal_path, resume=resume, progress=progress)


@dataclass
class _Input:
    """The input as the engine reads it: partitions the Dask workers read themselves (`plan`), or a table the
    driver reads row by row."""

    plan: Optional[Plan]
    table: Optional[Table]

    @classmethod
    def of(cls, input_path: str, spec: RunSpec) -> "_Input":
        plan = (plan_input(input_path, spec.mapping, spec.workers, spec.partition_rows)
                if spec.engine == "dask" and plannable(input_path) else None)
        return cls(plan, open_table(input_path, spec.delimiter) if plan is None else None)

    @property
    def count(self) -> int:
        return self.plan.count if self.plan is not None else self.table.count if self.table is not None else 0

    def recognised(self, mapping: Optional[dict]) -> Optional[str]:
        """The format the input was read as (a trace export, RAGAS, DeepEval), when it was recognised."""
        if self.table is not None and self.table.format:
            return self.table.format
        known = known_format(self.plan.columns if self.plan is not None else
                             self.table.columns if self.table is not None else [])
        if known is not None and not mapping:
            return f"{known[0]} (" + ", ".join(f"{role}: {col}" for role, col in known[1].items() if col) + ")"
        return None


@dataclass
class _Sinks:
    """Where the audited lines go, in this order of commit points: the stored run (rows added in batches), then
    the journal (which writes the output at the end), or the output directly without a journal."""

    output: PredictionsOutput
    journal: Optional[Journal]
    writer: Optional[RunWriter]
    summary: BatchSummary
    done: set[int]          # positions finished by an earlier try (journaled, and stored when there is a store)
    total: int
    progress: Optional[Callable[[int, int], None]]
    finished: int = 0
    store_fault: Optional[StoreError] = None  # the store failed during the run: auditing and output go on

    def take(self, audited: AuditedLine) -> None:
        position, line, status, stored = audited
        self.summary.audited += 1
        self.finished += position not in self.done
        if self.writer is not None and stored is not None and self.store_fault is None:
            try:
                self.writer.add(stored)
            except StoreError as exc:
                self.store_fault = exc
        if self.journal is not None:
            self.journal.record(position, line, status)
        else:
            self.summary.count(status)
            self.output.write(position, line)
        if self.progress:
            self.progress(self.finished, self.total)

    def complete(self) -> None:
        """Every position written, in order (from the journal when there is one), and the totals counted."""
        if self.journal is not None:
            for position, line in self.journal.lines():
                self.output.write(position, line)
            summary, journal = self.summary, self.journal
            summary.failed, summary.unverified = journal.count_status("error"), journal.count_status("unverified")
            summary.hallucinated = journal.count_status("hallucinated")
        self.output.ordered.finish()

    def keep_run(self, spec: RunSpec, elapsed_s: float) -> None:
        """The stored run finished (after the output is committed: a failing store loses no prediction)."""
        if self.writer is None:
            return
        try:
            if self.store_fault is not None:
                raise self.store_fault
            recognised = self.summary.recognised
            said = {"input_format": recognised} if recognised else {}  # which format was read
            self.writer.finish(elapsed_s, manifest={**run_manifest(spec), **said})
        except StoreError as exc:
            raise StoreError(f"{exc}; the run is not stored (the predictions are complete in {self.output.where}). "
                             "Run the batch again to store it") from None


def _open_sinks(stack: ExitStack, output: PredictionsOutput, source: str, spec: RunSpec, fingerprint: str,
                total: int, journal_path: Optional[str], resume: bool, summary: BatchSummary,
                progress: Optional[Callable[[int, int], None]]) -> _Sinks:
    """The journal (resumed unless `resume` is off) and the stored run (the one the journal was writing while it is
    unfinished); a row counts as done only once it is both journaled and stored."""
    journal: Optional[Journal] = None
    if journal_path:
        journal = Journal(journal_path, fingerprint)
        stack.callback(journal.close)
        if not resume:
            journal.forget()
    done = journal.done_positions() if journal is not None else set()
    # a file without records is no run: its (empty) output is written, nothing is stored
    writer = open_writer(spec, source, fingerprint, resume_run=journal.stored_run() if journal else None) \
        if total else None
    if writer is not None:
        stack.enter_context(_kept_on_the_way_out(writer))
        if journal is not None:
            journal.remember_stored_run(writer.run.id)
        if spec.store is not None:
            summary.run_id, summary.run_name = writer.run.id, writer.run.name
            done &= spec.store.stored_positions(writer.run.id)
    summary.resumed = len(done)
    return _Sinks(output, journal, writer, summary, done, total, progress, finished=len(done))


def _audited(spec: RunSpec, source: _Input, sinks: _Sinks) -> Iterator[AuditedLine]:
    """The rows not done yet, audited by the executor the spec asks for, in input order."""
    summary, done, writer = sinks.summary, sinks.done, sinks.writer

    def todo() -> Iterator[tuple[int, Record]]:
        assert source.table is not None, "only a driver-read input has rows here"
        for position, record in enumerate(table_records(source.table, spec.mapping)):
            summary.rows += 1
            if record.renamed_from is not None:
                summary.renamed_ids.append(record.renamed_from)
            if position not in done:
                yield position, record

    if spec.engine != "dask":
        return local_executor(spec, keep=writer is not None).lines(todo())
    from rt4chart.judges.spec import secrets_of  # the workers audit, and write the run store themselves

    secrets = secrets_of(spec.judge)
    if writer is not None:
        secrets["store_url"] = writer.store.url
    plan = source.plan
    workers = DaskWorkers(spec, secrets, writer.run.id if writer is not None else None,
                          plan.roles if plan is not None else None)
    if plan is None:  # CSV/TSV: the driver reads the rows and ships them
        return workers.lines(todo())
    summary.rows, summary.renamed_ids = plan.count, list(plan.renamed)
    # workers read their partitions; a partition is redone unless all its rows are done
    return workers.partitions(p for p in plan.partitions if not all(q in done for q in range(p.first, p.first + p.count)))


def _close(lines: Iterator[AuditedLine]) -> None:
    close = getattr(lines, "close", None)
    if close is not None:
        close()


def run_spec(input_path: str, output_path: str, spec: RunSpec, journal_path: Optional[str] = None,
             resume: bool = True, progress: Optional[Callable[[int, int], None]] = None) -> BatchSummary:
    """Audit every record of `input_path` into `output_path` (JSONL, one line per input record, in order;
    '-' is standard output). `progress(done, total)` is called after each row.

    The input is validated before any row is audited; the output is locked against a second writer,
    written to a temporary file and moved into place only when every row is there. With a journal,
    each finished row is committed before the next is reported, and a re-run with the same input and
    settings skips the rows already done. With a `store`, the run is kept there (rows written in batches);
    a resumed run continues the same stored run, and a row counts as done only once it is both journaled
    and stored, so the store never misses a row."""
    refuse_output_over_input(input_path, output_path)
    started = time.perf_counter()
    if spec.engine == "dask":  # its partitions are planned for its workers, before the rows are counted
        spec = replace(spec, workers=resolved_workers(spec.workers, spec.judge.makes_calls, None))
    source = _Input.of(input_path, spec)
    spec = replace(spec, workers=resolved_workers(spec.workers, spec.judge.makes_calls, source.count))
    summary = BatchSummary(recognised=source.recognised(spec.mapping))
    with ExitStack() as stack:  # owns the output lock, the journal, the stored run and the temporary file
        output = PredictionsOutput(input_path, output_path, source.count, stack)
        digest = file_digest(input_path)  # checked again at the end: an input edited during the run is refused
        sinks = _open_sinks(stack, output, spec.source or input_path, spec, batch_fingerprint(input_path, spec, digest),
                            source.count, journal_path, resume, summary, progress)
        lines = _audited(spec, source, sinks)
        stack.callback(_close, lines)  # a run that stops early stops its workers first, not when `lines` is collected
        output.open()
        for audited in lines:
            sinks.take(audited)
        sinks.complete()
        if file_digest(input_path) != digest:
            raise InputError(f"{input_path} changed while it was audited, so the rows would mix two versions of it; "
                             "nothing was written. Run again on a file that stays as it is during the run")
        output.commit()  # the predictions are complete, whatever happens to the store
        sinks.keep_run(spec, time.perf_counter() - started)
    summary.elapsed_s = time.perf_counter() - started
    return summary
