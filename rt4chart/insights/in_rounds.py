"""`rt4chart insights FILE --via batch-api|batch-file`: the warm-up stays sequential (each step needs the list
the step before it made); the parallel phase, one independent request per row, goes through the provider as
rounds of batches (usually one; a failed line is retried in the next within the client's budget).

Durable like the audit rounds: the submissions and answers are kept in the run store under `key` (the input
and the settings), so the same command again collects what was submitted. A request is named by the digest of
its body, which holds the warm-up's list: another list asks other requests, and the answers of the first
are never taken for them."""
from __future__ import annotations

import time
from typing import Callable, Optional

from rt4chart.batch.provider.deferred import DeferredSDK, ReplyPending
from rt4chart.batch.provider.providers import Progress
from rt4chart.batch.provider.rounds import RoundsReport, in_rounds
from rt4chart.batch.provider.state import RoundState
from rt4chart.insights.engine import Check, ParallelPhase
from rt4chart.insights.types import AuditedRow


def checks_in_rounds(client, provider, state: RoundState, poll_every_s: float = 60.0,
                     sleep: Callable[[float], None] = time.sleep,
                     on_progress: Optional[Callable[[int, Progress], None]] = None,
                     report: Optional[RoundsReport] = None) -> ParallelPhase:
    """A parallel phase that sends each row's check through `provider`, with the openai `client`'s settings
    and cache (read first: a cached check is not submitted). `report`, when given, receives the rounds' figures."""

    def run(rows: list[AuditedRow], check: Check) -> list[tuple]:
        sdk = DeferredSDK(state.outcomes())
        deferred = client.answered_by(sdk)

        def attempt(i: int):
            sdk.begin_row()
            try:
                return check(rows[i], deferred)
            except ReplyPending as waiting:
                return {waiting.custom_id: waiting.body}

        results, rounds = in_rounds(len(rows), attempt, sdk, provider, state, poll_every_s, sleep, on_progress)
        if report is not None:
            report.__dict__.update(rounds.__dict__)
        return results

    return run
