"""A batch through a provider's batch interface, in rounds: every unfinished row is audited with the replies
collected so far; the requests the rows wait for make the next round's provider batch; a row is final when
it waits for nothing. Decompositions come first, then every window check of a row together (they do not
depend on each other), then its global check, then reflection and repairs, as the steps depend on each other.

Durable: submissions and answers are in the run store (RoundState) before anything else is done with them,
so a killed run resumes by running the same command again; a submitted batch is polled again, never
resubmitted."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable, Optional, TypeVar

from rt4chart.batch.provider.deferred import DeferredSDK, Outcome, Outcomes, ReplyPending
from rt4chart.batch.provider.lines import split
from rt4chart.batch.provider.providers import FAILED_BATCH, NOT_RESUBMITTED, Progress, wait_for
from rt4chart.batch.provider.state import RoundState
from rt4chart.batch.rows import audit_record
from rt4chart.core.config import AuditConfig
from rt4chart.core.cost import Cost
from rt4chart.core.rows import Record, RowResult
from rt4chart.core.types import Verdict
from rt4chart.judges.base import Judge, Judgement

MAX_ROUNDS = 50  # a bound far above any plan (decomposition + windows + global + reflection + repairs)
CANCELLED = Outcome(status_code=499, message="the batch was cancelled before the provider answered this request "
                                             "(rt4chart runs cancel, or Cancel on the app's Runs page)")


def refusal_of(outcomes: Outcomes) -> Optional[Outcome]:
    """When the provider failed a batch of this run (it refused the batch as sent, e.g. a model its batch
    interface does not serve), the answer every later request gets instead of being sent; else None."""
    for answers in outcomes.by_id.values():
        for outcome in answers:
            if outcome.status_code == FAILED_BATCH:
                return Outcome(status_code=FAILED_BATCH, message="not sent: " + outcome.message.removesuffix(NOT_RESUBMITTED)
                               + "; these rows stay unverified in this batch: fix the cause and run again with the "
                                 "settings it needs (e.g. another --model), or with --via sync")
    return None


class _RowWaits(BaseException):
    """The row's next step needs replies that are not in yet."""


class DeferringJudge(Judge):
    """The openai judge as the rounds run it: a window check waiting for its reply lets the row's other window
    checks be asked in the same round; any other step waiting stops the row until the next round."""

    def __init__(self, inner: Judge):
        self.inner = inner
        self.name, self.model = inner.name, inner.model
        self.supports_reflection, self.makes_calls = inner.supports_reflection, inner.makes_calls
        self._row = threading.local()

    def begin_row(self) -> None:
        self._row.pending = {}

    @property
    def pending(self) -> dict[str, dict]:
        return getattr(self._row, "pending", {})

    def decompose(self, audit_input, usage):
        return self.inner.decompose(audit_input, usage)

    def verify_window(self, claims, window, audit_input, usage):
        try:
            return self.inner.verify_window(claims, window, audit_input, usage)
        except ReplyPending as waiting:
            self._row.pending[waiting.custom_id] = waiting.body
            return {c.id: Judgement(Verdict.UNVERIFIED, rationale="waiting for the provider") for c in claims}

    def verify_global(self, claims, hints, audit_input, usage):
        if self.pending:
            raise _RowWaits()  # the global check takes the window verdicts as hints: not before they are in
        return self.inner.verify_global(claims, hints, audit_input, usage)

    def reflect(self, claims, current, audit_input, usage):
        return self.inner.reflect(claims, current, audit_input, usage)

    def settings(self) -> dict:
        return self.inner.settings()

    def prompt_hashes(self) -> dict[str, str]:
        return self.inner.prompt_hashes()

    def score_calibration(self) -> tuple[float, float]:
        return self.inner.score_calibration()

    def endpoint_info(self) -> dict:
        return self.inner.endpoint_info()


@dataclass
class RoundsReport:
    rounds: int = 0                  # provider batches' rounds this run waited for (resumed ones included)
    submissions: int = 0             # provider batches submitted by this process
    requests_submitted: int = 0
    per_round: list[int] = field(default_factory=list)   # requests per round submitted now
    cancelled: bool = False          # a cancel was honoured: unanswered requests end unverified, none sent
    cost: Cost = field(default_factory=Cost)  # the usage the provider reported for the replies the reports rest on


T = TypeVar("T")


def in_rounds(count: int, attempt: Callable[[int], "T | dict[str, dict]"], sdk: DeferredSDK, provider,
              state: RoundState, poll_every_s: float = 60.0, sleep: Optional[Callable[[float], None]] = None,
              on_progress: Optional[Callable[[int, Progress], None]] = None,
              cancelled: Callable[[], bool] = lambda: False) -> tuple[list[T], RoundsReport]:
    """Items 0..count-1 done in provider rounds: `attempt(i)` gives the item's result, or the requests it
    waits for (custom id -> body); the requests of every waiting item make one round. Once `cancelled()` is
    true, the batches in flight are cancelled at the provider (what they answered is kept), nothing more is
    submitted, and every request left unanswered is answered with CANCELLED (the client fails it: its item
    ends unverified, in those words)."""
    import time

    sleep = sleep or time.sleep
    report = RoundsReport()
    sdk.outcomes = state.outcomes()
    done: dict[int, T] = {}
    for _attempt in range(MAX_ROUNDS + 1):
        for submission in state.open_submissions():  # a killed run's batch: waited for, not submitted again
            tell: Optional[Callable[[Progress], None]] = None
            if on_progress is not None:
                tell = (lambda p, r=submission.round, f=on_progress: f(r, p))
            ended = wait_for(provider, submission.handle, poll_every_s, sleep, tell, cancelled)
            state.collected(submission, provider.results(submission.handle, submission.custom_ids) if ended
                            else [(cid, CANCELLED) for cid in submission.custom_ids])
            sdk.outcomes = state.outcomes()
        waiting: dict[str, dict] = {}
        for position in range(count):
            if position in done:
                continue
            result = attempt(position)
            if isinstance(result, dict):
                waiting.update(result)
            else:
                done[position] = result
        if not waiting:
            report.rounds = state.rounds_done()
            report.cancelled = report.cancelled or cancelled()
            return [done[i] for i in range(count)], report
        if cancelled():  # answered here, in the store like a provider's answers: a rerun reads the same
            report.cancelled = True
            state.answered_here(sorted(waiting), CANCELLED)
            sdk.outcomes = state.outcomes()
            continue
        refused = refusal_of(sdk.outcomes)
        if refused is not None:  # the provider failed a batch of this run: the next one would fail alike
            state.answered_here(sorted(waiting), refused)
            sdk.outcomes = state.outcomes()
            continue
        round_no = state.rounds_done() + 1
        if round_no > MAX_ROUNDS:
            break
        parts = split(waiting, provider.max_requests, provider.max_bytes)
        for k, part in enumerate(parts):
            handle = provider.submit(part, f"rt4chart-{state.key[:12]}-round-{round_no}-{k + 1}")
            state.submitted(round_no, handle, sorted(part))
            report.submissions += 1
            report.requests_submitted += len(part)
        report.per_round.append(len(waiting))
    raise RuntimeError(f"the rounds did not converge in {MAX_ROUNDS} rounds (please report this)")


def audit_in_rounds(records: list[Record], make: Callable[[DeferredSDK], Judge], config: Optional[AuditConfig],
                    provider, state: RoundState, poll_every_s: float = 60.0,
                    sleep: Optional[Callable[[float], None]] = None,
                    on_progress: Optional[Callable[[int, Progress], None]] = None,
                    cancelled: Callable[[], bool] = lambda: False) -> tuple[list[RowResult], RoundsReport]:
    """Every record's result, in order, and what the rounds took (`in_rounds`, one item per record)."""
    sdk = DeferredSDK(state.outcomes())
    judge = DeferringJudge(make(sdk))
    rows, report = in_rounds(len(records), lambda i: _audit_row(records[i], judge, sdk, config), sdk, provider,
                             state, poll_every_s, sleep, on_progress, cancelled)
    for row in rows:
        if row.report is not None:
            report.cost += Cost(prompt_tokens=row.report.coverage.cost.prompt_tokens,
                                completion_tokens=row.report.coverage.cost.completion_tokens)
    return rows, report


def _audit_row(record: Record, judge: DeferringJudge, sdk: DeferredSDK,
               config: Optional[AuditConfig]) -> RowResult | dict[str, dict]:
    """The row's result (as the synchronous path audits it, failures kept on the row), or the requests it waits
    for (ReplyPending and _RowWaits are BaseExceptions: audit_record lets them through)."""
    judge.begin_row()
    sdk.begin_row()
    try:
        row = audit_record(record, judge, config)
    except ReplyPending as waiting:
        return {**judge.pending, waiting.custom_id: waiting.body}
    except _RowWaits:
        return dict(judge.pending)
    if judge.pending:  # a window check waited although the row ran on (it cannot: the global check waits)
        return dict(judge.pending)
    return row
