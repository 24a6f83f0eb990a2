"""One process at a time drives a provider batch: a lease in the run store, taken before anything is
submitted, renewed while the process waits on the provider, and given back when it ends. A second process
on the same batch (the same command started twice, or two analysts with the same input and settings) is
refused in one line that names the holder, instead of paying for every round twice. A lease whose process
is gone (dead on this host, or silent for `STALE_AFTER` on another) is taken over."""
from __future__ import annotations

import os
import socket
import uuid
from datetime import datetime, timedelta, timezone

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from rt4chart.core.errors import InputError
from rt4chart.store.schema import provider_leases

STALE_AFTER = timedelta(minutes=15)  # renewals come at least every poll (60 s by default)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class BatchLease:
    """The lease of one batch key; a context manager (`with BatchLease(store, key): ...`)."""

    def __init__(self, store, batch_key: str):
        self.engine, self.key = store.engine, batch_key
        self.owner, self.host, self.pid = uuid.uuid4().hex, socket.gethostname(), os.getpid()

    def __enter__(self) -> "BatchLease":
        self.take()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def take(self) -> None:
        """Hold the lease, or refuse (InputError, exit 2) while a live process holds it."""
        row = {"batch_key": self.key, "owner": self.owner, "host": self.host, "pid": self.pid, "heartbeat": _now()}
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(provider_leases).values(**row))
            return
        except IntegrityError:
            pass
        with self.engine.connect() as conn:
            held = conn.execute(select(provider_leases).where(provider_leases.c.batch_key == self.key)).mappings().first()
        if held is not None and not self._gone(held):
            seen = held["heartbeat"].strftime("%H:%M:%S UTC") if held["heartbeat"] else "?"
            raise InputError(f"this batch is already running in process {held['pid']} on {held['host']} (last heard "
                             f"from at {seen}); wait for it to end (`rt4chart runs batches` shows where it stands), "
                             "or stop that process and run the command again")
        with self.engine.begin() as conn:  # take it over, unless a third process just did
            taken = conn.execute(update(provider_leases)
                                 .where(provider_leases.c.batch_key == self.key,
                                        provider_leases.c.owner == (held["owner"] if held else ""))
                                 .values(owner=self.owner, host=self.host, pid=self.pid, heartbeat=_now())).rowcount
        if not taken:
            self.take()  # the lease changed hands meanwhile (or was given back): ask again

    def _gone(self, held) -> bool:
        beat = held["heartbeat"]
        if beat is not None and beat.tzinfo is None:
            beat = beat.replace(tzinfo=timezone.utc)
        if held["host"] == self.host and not _alive(int(held["pid"])):
            return True
        return beat is None or _now() - beat > STALE_AFTER

    def renew(self) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(provider_leases).where(provider_leases.c.batch_key == self.key,
                                                       provider_leases.c.owner == self.owner)
                         .values(heartbeat=_now()))

    def release(self) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(provider_leases).where(provider_leases.c.batch_key == self.key,
                                                       provider_leases.c.owner == self.owner))
