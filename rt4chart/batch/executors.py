"""Where a batch's rows are audited: threads, local processes or Dask workers. Every executor takes (position,
record) pairs in input order and gives back one `AuditedLine` per row, in that order; what becomes of the lines
(the output file, the journal, the stored run) is `batch.run.run_spec`'s. Every executor audits a row with
`batch.rows.audit_record` (one fault policy: a failing row is an error row, a refused configuration stops the
run) and projects it with `projected` (one projection: the same line on every executor)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Optional, Protocol

from rt4chart.batch.audited import AuditedLine, projected
from rt4chart.batch.spec import RunSpec
from rt4chart.core.rows import Record

Rows = Iterable[tuple[int, Record]]


class Executor(Protocol):
    def lines(self, rows: Rows) -> Iterator[AuditedLine]:
        """One line per row of `rows`, in their order."""
        ...


@dataclass(frozen=True)
class Threads:
    """Up to `spec.workers` threads in this process: the LLM judges (they wait on the network) and one worker."""

    spec: RunSpec
    keep: bool = False

    def lines(self, rows: Rows) -> Iterator[AuditedLine]:
        from rt4chart.batch.rows import run_records

        positions: dict[int, int] = {}

        def records() -> Iterator[Record]:
            for position, record in rows:
                positions[id(record)] = position
                yield record

        spec = self.spec
        for row in run_records(records(), spec.judge, spec.config, workers=spec.workers, cache=spec.cache):
            yield projected(positions.pop(id(row.record)), row, self.keep)


@dataclass(frozen=True)
class Processes:
    """`spec.workers` local processes: a judge that computes (threads would contend for the GIL)."""

    spec: RunSpec
    keep: bool = False

    def lines(self, rows: Rows) -> Iterator[AuditedLine]:
        from rt4chart.batch.local_pool import process_lines

        spec = self.spec
        yield from process_lines(rows, spec.judge, spec.config, spec.workers, self.keep,
                                 str(spec.cache.path) if spec.cache else None)


@dataclass(frozen=True)
class DaskWorkers:
    """Dask workers (a new local cluster of `spec.workers` processes, or the scheduler at `spec.dask_address`).
    They store their rows themselves (`run_id`, the store's URL among the secrets), so no line carries one."""

    spec: RunSpec
    secrets: dict
    run_id: Optional[str] = None
    roles: Optional[dict] = None   # for partitions the workers read themselves

    def lines(self, rows: Rows) -> Iterator[AuditedLine]:
        """Rows the driver read, shipped in chunks of `spec.partition_rows`."""
        from rt4chart.batch.ordered import chunks

        return self.partitions(chunks(rows, self.spec.partition_rows or 200))

    def partitions(self, parts: Iterable) -> Iterator[AuditedLine]:
        """Partitions (of the plan the workers read, or chunks of rows), each audited on one worker."""
        from rt4chart.batch.dask_engine import dask_lines

        spec = self.spec
        return dask_lines(parts, spec.judge, spec.config, self.secrets, spec.dask_address, spec.workers,
                          self.roles, self.run_id)


def in_processes(workers: int, makes_calls: bool) -> bool:
    """Whether the local engine audits in processes: a judge that computes, on more than one worker."""
    return workers > 1 and not makes_calls


def local_executor(spec: RunSpec, keep: bool) -> Executor:
    """The local engine's executor for `spec`: processes for a judge that computes on more than one worker, else
    threads. `keep`: each line carries its stored row."""
    if in_processes(spec.workers, spec.judge.makes_calls):
        return Processes(spec, keep)
    return Threads(spec, keep)
