"""The batches going through a provider, as the run store keeps them: how to run one again (`rt4chart runs
resume KEY`), where it stands (the Runs page: "round 2: in_progress, 3,200 of 9,600 requests done"), and a
cancel request (from the app or `rt4chart runs cancel KEY`) that the process waiting on the provider honours.

The command line is kept without its secrets: `--api-key VALUE` is dropped (a resumed run reads the key from
OPENAI_API_KEY, or takes `--api-key` again)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Optional, Sequence

from sqlalchemy import insert, select, update

from rt4chart.core.errors import InputError
from rt4chart.store.schema import provider_jobs

SECRET_FLAGS = ("--api-key",)


def without_secrets(argv: Sequence[str]) -> list[str]:
    """The command line with every secret flag and its value left out (`--api-key K` and `--api-key=K`)."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in SECRET_FLAGS:
            skip = True
            continue
        if any(arg.startswith(flag + "=") for flag in SECRET_FLAGS):
            continue
        out.append(arg)
    return out


@dataclass
class ProviderJob:
    key: str
    via: str
    source: str
    output: str
    cwd: str
    argv: list[str]
    status: str                 # waiting | done | cancelled
    round: int
    progress: dict
    cancel_requested: bool
    run_id: Optional[str]
    created: datetime
    updated: datetime

    @property
    def line(self) -> str:
        """Where it stands, in a user's words."""
        if self.status == "done":
            return "done: the run is stored"
        if self.status == "cancelled":
            return "cancelled"
        p = self.progress
        if not p:
            return "starting" + (" (cancel requested)" if self.cancel_requested else "")
        total = p.get("total") or "?"
        total_text = f"{total:,}" if isinstance(total, int) else total
        planned = p.get("planned") or 0
        of = f" of {planned}" if planned >= self.round else ""  # repairs and retries may add rounds
        text = f"round {self.round}{of}: {p.get('status', '?')}, {p.get('done', 0):,} of {total_text} requests done"
        if p.get("failed"):
            text += f", {p['failed']:,} failed"
        return text + (" (cancel requested)" if self.cancel_requested else "")


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _job(r) -> ProviderJob:
    return ProviderJob(key=r["batch_key"], via=r["via"], source=r["source"], output=r["output"], cwd=r["cwd"],
                       argv=json.loads(r["argv"]), status=r["status"], round=r["round"],
                       progress=json.loads(r["progress"] or "{}"), cancel_requested=bool(r["cancel_requested"]),
                       run_id=r["run_id"], created=r["created"], updated=r["updated"])


class JobBook:
    """provider_jobs of one run store."""

    def __init__(self, store):
        self.engine = store.engine

    def started(self, key: str, via: str, source: str, output: str, cwd: str, argv: Sequence[str]) -> None:
        """The batch runs (first time or again): its row is made, or given the latest command line."""
        values = {"via": via, "source": source, "output": output, "cwd": cwd,
                  "argv": json.dumps(without_secrets(argv)), "updated": _now()}
        with self.engine.begin() as conn:
            found = conn.execute(select(provider_jobs.c.status).where(provider_jobs.c.batch_key == key)).first()
            if found is None:
                conn.execute(insert(provider_jobs).values(batch_key=key, status="waiting", round=0, progress="{}",
                                                          cancel_requested=False, created=_now(), **values))
            else:  # run again: a cancelled batch stays cancelled (nothing more is sent), a done one is read back
                conn.execute(update(provider_jobs).where(provider_jobs.c.batch_key == key).values(**values))

    def progressed(self, key: str, round_no: int, status: str, done: int, failed: int, total: int,
                   planned: int = 0) -> None:
        """The provider's last word on the round (`planned`: the rounds the plan needs without repairs)."""
        with self.engine.begin() as conn:
            conn.execute(update(provider_jobs).where(provider_jobs.c.batch_key == key).values(
                round=round_no, updated=_now(),
                progress=json.dumps({"status": status, "done": done, "failed": failed, "total": total,
                                     "planned": planned})))

    def finished(self, key: str, status: str, run_id: Optional[str]) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(provider_jobs).where(provider_jobs.c.batch_key == key)
                         .values(status=status, run_id=run_id, updated=_now()))

    def request_cancel(self, key: str) -> ProviderJob:
        """Ask the process waiting on the provider to cancel the batch (it cancels the provider's batches in
        flight at its next poll); a batch no process waits on is cancelled by `rt4chart runs resume KEY`."""
        job = self.find(key)
        if job.status != "waiting":
            raise InputError(f"batch {job.key[:12]} is {job.status}: there is nothing to cancel")
        with self.engine.begin() as conn:
            conn.execute(update(provider_jobs).where(provider_jobs.c.batch_key == job.key)
                         .values(cancel_requested=True, updated=_now()))
        return self.find(job.key)

    def cancel_requested(self, key: str) -> bool:
        with self.engine.connect() as conn:
            return bool(conn.execute(select(provider_jobs.c.cancel_requested)
                                     .where(provider_jobs.c.batch_key == key)).scalar())

    def get(self, key: str) -> Optional[ProviderJob]:
        with self.engine.connect() as conn:
            row = conn.execute(select(provider_jobs).where(provider_jobs.c.batch_key == key)).mappings().first()
        return _job(row) if row else None

    def find(self, prefix: str) -> ProviderJob:
        """The job whose key starts with `prefix` (at least 6 characters, as the Runs page shows 12)."""
        prefix = prefix.strip()
        if len(prefix) < 6:
            raise InputError("give at least the first 6 characters of the batch key (`rt4chart runs batches` "
                             "lists them)")
        with self.engine.connect() as conn:
            rows = conn.execute(select(provider_jobs).where(provider_jobs.c.batch_key.startswith(prefix, autoescape=True))
                                ).mappings().all()
        if not rows:
            raise InputError(f"no provider batch {prefix!r} in this run store (`rt4chart runs batches` lists them)")
        if len(rows) > 1:
            raise InputError(f"{prefix!r} matches {len(rows)} provider batches: give more of the key")
        return _job(rows[0])

    def all(self) -> list[ProviderJob]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(provider_jobs).order_by(provider_jobs.c.created.desc())).mappings().all()
        return [_job(r) for r in rows]
