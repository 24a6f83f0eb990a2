"""File-to-file batch audits (`rt4chart predict` and `rt4chart batch`): a validated input streamed
row by row, exactly one output line per input record in input order (failed rows included), one
writer per output, and an optional checkpoint journal for resume after a kill."""
from __future__ import annotations

import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterator, Optional

from rt4chart.batch.audited import AuditedLine
from rt4chart.batch.executors import DaskWorkers, local_executor
from rt4chart.batch.journal import Journal, file_digest, run_fingerprint
from rt4chart.batch.output import PredictionsOutput, refuse_output_over_input
from rt4chart.batch.partitions import plan_input, plannable
from rt4chart.batch.spec import RunSpec
from rt4chart.batch.stored import open_writer, run_manifest
from rt4chart.core.config import AuditConfig
from rt4chart.core.errors import InputError, StoreError
from rt4chart.core.rows import Record
from rt4chart.data.columns import known_format
from rt4chart.data.records import open_table, table_records
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


# Long on purpose: one `with` block owns the output lock, the journal, the store writer and the temporary file;
# split up, their lifetimes and the order of commit points (store, then journal) would be scattered.
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
    judge, mapping, store, engine = spec.judge, spec.mapping, spec.store, spec.engine
    refuse_output_over_input(input_path, output_path)
    started = time.perf_counter()
    plan = (plan_input(input_path, mapping, spec.workers, spec.partition_rows)
            if engine == "dask" and plannable(input_path) else None)
    table = open_table(input_path, spec.delimiter) if plan is None else None
    count = plan.count if plan is not None else table.count if table is not None else 0
    summary = BatchSummary()
    known = known_format(plan.columns if plan is not None else table.columns if table is not None else [])
    if table is not None and table.format:
        summary.recognised = table.format
    elif known is not None and not mapping:
        summary.recognised = f"{known[0]} (" + ", ".join(f"{role}: {col}" for role, col in known[1].items() if col) + ")"
    with ExitStack() as stack:
        output = PredictionsOutput(input_path, output_path, count, stack)
        journal: Optional[Journal] = None
        digest = file_digest(input_path)  # checked again at the end: an input edited during the run is refused
        fingerprint = batch_fingerprint(input_path, spec, digest)
        if journal_path:
            journal = Journal(journal_path, fingerprint)
            stack.callback(journal.close)
        if journal is not None and not resume:
            journal.forget()
        done = journal.done_positions() if journal is not None else set()
        # a file without records is no run: its (empty) output is written, nothing is stored
        writer = open_writer(spec, spec.source or input_path, fingerprint, resume_run=journal.stored_run() if journal else None) \
            if count else None
        if writer is not None:
            stack.enter_context(_kept_on_the_way_out(writer))
        if journal is not None and writer is not None:
            journal.remember_stored_run(writer.run.id)
        if store is not None and writer is not None:
            summary.run_id, summary.run_name = writer.run.id, writer.run.name
            done &= store.stored_positions(writer.run.id)
        summary.resumed = len(done)
        finished = len(done)

        def todo() -> Iterator[tuple[int, Record]]:
            assert table is not None, "only a driver-read input has rows here"
            for position, record in enumerate(table_records(table, mapping)):
                summary.rows += 1
                if record.renamed_from is not None:
                    summary.renamed_ids.append(record.renamed_from)
                if position not in done:
                    yield position, record

        results: Iterator[AuditedLine]
        if engine == "dask":  # the workers audit, and write the run store themselves
            from rt4chart.judges.spec import secrets_of

            secrets = secrets_of(judge)
            if writer is not None:
                secrets["store_url"] = writer.store.url
            workers = DaskWorkers(spec, secrets, writer.run.id if writer is not None else None,
                                  plan.roles if plan is not None else None)
            if plan is not None:  # workers read their partitions; a partition is redone unless all its rows are done
                summary.rows, summary.renamed_ids = plan.count, list(plan.renamed)
                results = workers.partitions(p for p in plan.partitions
                                             if not all(q in done for q in range(p.first, p.first + p.count)))
            else:  # CSV/TSV: the driver reads the rows and ships them
                results = workers.lines(todo())
        else:
            results = local_executor(spec, keep=writer is not None).lines(todo())
        output.open()
        store_fault: Optional[StoreError] = None  # the store failed during the run: auditing and output go on
        for position, line, status, stored in results:
            summary.audited += 1
            finished += position not in done
            if writer is not None and stored is not None and store_fault is None:
                try:
                    writer.add(stored)
                except StoreError as exc:
                    store_fault = exc
            if journal is not None:
                journal.record(position, line, status)
            else:
                summary.count(status)
                output.write(position, line)
            if progress:
                progress(finished, count)
        if journal is not None:
            for position, line in journal.lines():
                output.write(position, line)
            summary.failed, summary.unverified = journal.count_status("error"), journal.count_status("unverified")
            summary.hallucinated = journal.count_status("hallucinated")
        output.ordered.finish()
        if file_digest(input_path) != digest:
            raise InputError(f"{input_path} changed while it was audited, so the rows would mix two versions of it; "
                             "nothing was written. Run again on a file that stays as it is during the run")
        output.commit()  # the predictions are complete, whatever happens to the store
        if writer is not None:
            try:
                if store_fault is not None:
                    raise store_fault
                said = {"input_format": summary.recognised} if summary.recognised else {}  # which format was read
                writer.finish(time.perf_counter() - started, manifest={**run_manifest(spec), **said})
            except StoreError as exc:
                raise StoreError(f"{exc}; the run is not stored (the predictions are complete in {output.where}). "
                                 "Run the batch again to store it") from None
    summary.elapsed_s = time.perf_counter() - started
    return summary
