"""`rt4chart batch FILE --judge openai --via batch-api|batch-file`: the file's rows audited in provider rounds,
the predictions written as the synchronous path writes them (same replies, same lines), the run stored."""
from __future__ import annotations

import os
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

from rt4chart.batch.audited import projected
from rt4chart.batch.journal import file_digest, run_fingerprint
from rt4chart.batch.output import PredictionsOutput, refuse_output_over_input
from rt4chart.batch.provider.deferred import DeferredSDK
from rt4chart.batch.provider.providers import BatchFiles, OpenAIBatchAPI, Progress, WaitingForRunner
from rt4chart.batch.provider.rounds import RoundsReport, audit_in_rounds
from rt4chart.batch.provider.state import RoundState
from rt4chart.batch.run import BatchSummary
from rt4chart.batch.spec import RunSpec
from rt4chart.batch.stored import open_writer, run_manifest
from rt4chart.core.cost import Cost
from rt4chart.core.errors import InputError
from rt4chart.data.records import open_table, table_records
from rt4chart.judges.llm.judge import OpenAIJudge
from rt4chart.judges.llm.openai_client import OpenAIChatClient
from rt4chart.store.leases import BatchLease
from rt4chart.store.provider_jobs import JobBook

VIA = ("batch-api", "batch-file")


@dataclass
class Estimate:
    """What the rounds would submit: at least `rounds` provider rounds, `cost.calls` requests and their tokens."""

    rounds: int = 0
    cost: Cost = field(default_factory=Cost)


def estimate(input_path: str, spec: RunSpec) -> tuple[BatchSummary, Estimate]:
    """What the rounds would submit, planned with neutral replies (a sentence per claim, each claim entailed):
    requests, rounds (decomposition, windows, global, and each reflection round) and tokens (characters / 4)."""
    from rt4chart.batch.rows import run_records

    records = list(table_records(open_table(input_path, spec.delimiter), spec.mapping))
    planned = Estimate(rounds=3 + (spec.config.max_rounds if spec.config.reflect else 0))
    for row in run_records(records, spec.judge, spec.config):
        if row.report is not None:
            planned.cost += row.report.coverage.cost
    return BatchSummary(rows=len(records)), planned


def _judge_maker(judge) -> Callable[[DeferredSDK], OpenAIJudge]:
    """The same openai judge as `judge` (model, endpoint, key, attempts, response format, cache), its requests
    answered by the rounds instead of sent."""
    client = getattr(judge, "client", None)
    if not isinstance(client, OpenAIChatClient):
        raise InputError("--via batch-api and --via batch-file send the openai judge's requests; use --judge openai")

    def make(sdk: DeferredSDK) -> OpenAIJudge:
        return OpenAIJudge(client.answered_by(sdk), judge.context_tokens)

    return make


def provider_for(via: str, judge, output_path: str, batch_dir: Optional[str], sleep: Callable[[float], None]):
    if via == "batch-file":
        return BatchFiles(batch_dir or f"{output_path}.batch-files")
    return OpenAIBatchAPI(judge.client.sdk(), sleep=sleep)


def run_in_rounds(input_path: str, output_path: str, spec: RunSpec, via: str, poll_every_s: float = 60.0,
                  batch_dir: Optional[str] = None, sleep: Callable[[float], None] = time.sleep,
                  on_progress: Optional[Callable[[int, Progress], None]] = None,
                  provider=None, command: Sequence[str] = ()) -> tuple[BatchSummary, RoundsReport]:
    """Audit `input_path` through the provider in rounds; resumable by calling it again with the same input
    and settings, or with `rt4chart runs resume KEY` (`command`: the command line that does it; the rounds'
    state is in the run store, or beside the output without one). A cancel request in the store (the app,
    `rt4chart runs cancel KEY`) stops the rounds: the run is written and stored, marked cancelled."""
    if via not in VIA:
        raise InputError(f"--via {via}: choose one of sync, {', '.join(VIA)}")
    started = time.perf_counter()
    table = open_table(input_path, spec.delimiter)
    records = list(table_records(table, spec.mapping))
    digest = file_digest(input_path)
    fingerprint = run_fingerprint(digest, {**spec.settings(), "mapping": spec.mapping, "delimiter": spec.delimiter,
                                           "via": via})
    from rt4chart.store import Store

    rounds_store = spec.store if spec.store is not None else Store(f"sqlite:///{Path(output_path).resolve()}.rounds.sqlite3")
    state = RoundState(rounds_store, fingerprint, via)
    refuse_output_over_input(input_path, output_path)  # before anything is paid
    lease = BatchLease(rounds_store, fingerprint)  # one process drives a batch: a second one is refused, not paid
    lease.take()
    with ExitStack() as stack:
        stack.callback(lease.release)
        output = PredictionsOutput(input_path, output_path, len(records), stack)  # one writer per output file
        return _rounds_held(records, input_path, output, spec, via, digest, fingerprint, rounds_store, state, lease,
                            provider, batch_dir, sleep, on_progress, poll_every_s, command, started)


def _rounds_held(records, input_path: str, output: PredictionsOutput, spec: RunSpec, via: str, digest: str,
                 fingerprint: str, rounds_store, state: RoundState, lease: BatchLease, provider, batch_dir: Optional[str],
                 sleep: Callable[[float], None], on_progress: Optional[Callable[[int, Progress], None]],
                 poll_every_s: float, command: Sequence[str], started: float) -> tuple[BatchSummary, RoundsReport]:
    """run_in_rounds, while this process holds the batch's lease."""
    jobs = JobBook(rounds_store)
    jobs.started(fingerprint, via, input_path, output.path, os.getcwd(), command)
    provider = provider or provider_for(via, spec.judge, output.path, batch_dir, sleep)

    planned = 3 + (spec.config.max_rounds if spec.config.reflect else 0)  # decompositions, windows, global, reflection

    def progressed(round_no: int, progress: Progress) -> None:
        lease.renew()
        jobs.progressed(fingerprint, round_no, progress.status, progress.done, progress.failed, progress.total,
                        planned)
        if on_progress is not None:
            on_progress(round_no, progress)

    try:
        rows, report = audit_in_rounds(records, _judge_maker(spec.judge), spec.config, provider, state,
                                       poll_every_s, sleep, progressed,
                                       cancelled=lambda: jobs.cancel_requested(fingerprint))
    except WaitingForRunner:  # the round's files are written: the Runs page says the runner is awaited
        waiting = sum(len(sub.custom_ids) for sub in state.open_submissions())
        jobs.progressed(fingerprint, state.rounds_done(), "waiting for its runner", 0, 0, waiting, planned)
        raise
    if file_digest(input_path) != digest:
        raise InputError(f"{input_path} changed while it was audited; nothing was written. Run again on a file that "
                         "stays as it is during the run")
    summary = BatchSummary(rows=len(rows), audited=len(rows))
    lines = [projected(position, row, keep=spec.store is not None) for position, row in enumerate(rows)]
    for audited, row in zip(lines, rows):
        summary.count(audited.status)
        summary.renamed_ids += [row.record.renamed_from] if row.record.renamed_from is not None else []
        output.write(audited.position, audited.line)
    output.commit()  # the paid replies are in the predictions before the store is asked anything
    before = jobs.get(fingerprint)
    kept = spec.store.find_run(before.run_id) if spec.store is not None and before and before.run_id else None
    if kept is not None:  # the same batch run again after it ended: its stored run is the one, not a copy
        summary.run_id, summary.run_name = kept.id, kept.name
    elif spec.store is not None and rows:
        writer = open_writer(spec, input_path, fingerprint)
        assert writer is not None
        for audited in lines:
            assert audited.stored is not None
            writer.add(audited.stored)
        run = writer.finish(time.perf_counter() - started, status="cancelled" if report.cancelled else "complete",
                            manifest={**run_manifest(spec), "provider": {"via": via, "rounds": report.rounds}})
        summary.run_id, summary.run_name = run.id, run.name
    jobs.finished(fingerprint, "cancelled" if report.cancelled else "done", summary.run_id)
    summary.elapsed_s = time.perf_counter() - started
    return summary, report
