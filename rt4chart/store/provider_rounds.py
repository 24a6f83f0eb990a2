"""The rounds of one provider batch, as the run store keeps them: which provider batches were submitted (their
ids), which were collected, and every answer. Keyed by the batch's fingerprint (input bytes + settings), so the
same command run again finds them. Plain values in and out; `batch.provider.state` turns them into outcomes."""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import NamedTuple, Optional

from sqlalchemy import func, insert, select, update

from rt4chart.store.schema import provider_batches, provider_outcomes


@dataclass
class Submission:
    id: int
    round: int
    handle: str
    custom_ids: list[str]
    status: str


class StoredAnswer(NamedTuple):
    """One provider answer to one request: a reply body (status 200) or an error message."""

    custom_id: str
    status_code: int
    body: Optional[dict]
    message: str


class ProviderRounds:
    """provider_batches and provider_outcomes of one batch in one run store."""

    def __init__(self, store, batch_key: str, provider: str):
        self.engine, self.key, self.provider = store.engine, batch_key, provider

    def answers(self) -> list[StoredAnswer]:
        """Every answer kept for this batch, in the order it was kept."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(provider_outcomes).where(provider_outcomes.c.batch_key == self.key)
                                .order_by(provider_outcomes.c.id)).mappings().all()
        return [StoredAnswer(r["custom_id"], r["status_code"], json.loads(r["body"]) if r["body"] else None,
                             r["message"]) for r in rows]

    def rounds_done(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.coalesce(func.max(provider_batches.c.round), 0))
                                    .where(provider_batches.c.batch_key == self.key)).scalar() or 0)

    def open_submissions(self) -> list[Submission]:
        """Batches submitted and not yet collected (a killed run's: polled again, never submitted again)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(provider_batches).where(provider_batches.c.batch_key == self.key,
                                                               provider_batches.c.status == "submitted")
                                .order_by(provider_batches.c.id)).mappings().all()
        return [Submission(r["id"], r["round"], r["handle"], json.loads(r["custom_ids"]), r["status"]) for r in rows]

    def submitted(self, round_no: int, handle: str, custom_ids: list[str]) -> None:
        with self.engine.begin() as conn:
            conn.execute(insert(provider_batches).values(
                batch_key=self.key, round=round_no, provider=self.provider, handle=handle,
                custom_ids=json.dumps(custom_ids), status="submitted", created=datetime.now(timezone.utc)))

    def collected(self, submission_id: int, answers: list[StoredAnswer]) -> None:
        """The answers of one batch and its being collected, in one transaction (a kill keeps both or neither)."""
        with self.engine.begin() as conn:
            if answers:
                conn.execute(insert(provider_outcomes), [
                    {"batch_key": self.key, "custom_id": a.custom_id, "status_code": a.status_code,
                     "body": json.dumps(a.body) if a.body is not None else None, "message": a.message}
                    for a in answers])
            conn.execute(update(provider_batches).where(provider_batches.c.id == submission_id)
                         .values(status="collected"))

    def answered_here(self, custom_ids: list[str], status_code: int, message: str) -> None:
        """Requests that will not be sent (the batch was cancelled), answered here with one error."""
        with self.engine.begin() as conn:
            conn.execute(insert(provider_outcomes), [
                {"batch_key": self.key, "custom_id": cid, "status_code": status_code, "body": None,
                 "message": message} for cid in custom_ids])

    def submission_count(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(provider_batches)
                                    .where(provider_batches.c.batch_key == self.key)).scalar() or 0)


def waiting_batches(store) -> list[dict]:
    """Every provider batch submitted and not yet collected, in the whole store (for the Runs page)."""
    with store.engine.connect() as conn:
        rows = conn.execute(select(provider_batches).where(provider_batches.c.status == "submitted")
                            .order_by(provider_batches.c.created)).mappings().all()
    return [{"batch": r["batch_key"][:12], "round": r["round"], "provider": r["provider"], "handle": r["handle"],
             "requests": len(json.loads(r["custom_ids"])), "submitted": r["created"]} for r in rows]
