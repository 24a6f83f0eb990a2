"""The rounds of one batch as outcomes: the run store keeps them (`store.provider_rounds`, plain values); this
turns them into the `Outcome`s the rounds read and write."""
from __future__ import annotations

from rt4chart.batch.provider.deferred import Outcome, Outcomes
from rt4chart.store.provider_rounds import ProviderRounds, StoredAnswer, Submission

__all__ = ["RoundState", "Submission"]


class RoundState:
    def __init__(self, store, batch_key: str, provider: str):
        self.rounds = ProviderRounds(store, batch_key, provider)
        self.key, self.provider = batch_key, provider

    def outcomes(self) -> Outcomes:
        found = Outcomes()
        for a in self.rounds.answers():
            found.add(a.custom_id, Outcome(status_code=a.status_code, message=a.message, body=a.body))
        return found

    def rounds_done(self) -> int:
        return self.rounds.rounds_done()

    def open_submissions(self) -> list[Submission]:
        """Batches submitted and not yet collected (a killed run's: polled again, never submitted again)."""
        return self.rounds.open_submissions()

    def submitted(self, round_no: int, handle: str, custom_ids: list[str]) -> None:
        self.rounds.submitted(round_no, handle, custom_ids)

    def collected(self, submission: Submission, outcomes: list[tuple[str, Outcome]]) -> None:
        """The answers of one batch and its being collected, in one transaction (a kill keeps both or neither)."""
        self.rounds.collected(submission.id, [StoredAnswer(cid, o.status_code, o.body, o.message)
                                              for cid, o in outcomes])

    def answered_here(self, custom_ids: list[str], outcome: Outcome) -> None:
        """Requests that will not be sent (the batch was cancelled), answered with `outcome`."""
        self.rounds.answered_here(custom_ids, outcome.status_code, outcome.message)

    def submission_count(self) -> int:
        return self.rounds.submission_count()
