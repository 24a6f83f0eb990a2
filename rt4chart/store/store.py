"""The run store: every batch audit kept as a run (manifest, input records, flat results, full reports)
with the analysts' reviews, in any SQLAlchemy database (`RT4CHART_DB`; default a SQLite file in the user
data directory). The only module that talks SQL; callers get plain values.

Over 300 lines on purpose: the one module that speaks SQL to the run store; every query lives here.
"""
from __future__ import annotations

import json
import os
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Iterator, Optional

from sqlalchemy import create_engine, delete, event, func, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError

from rt4chart.core.errors import InputError, StoreError, database_fault
from rt4chart.core.types import AuditReport
from rt4chart.evaluation.metrics import Rate
from rt4chart.store.rows import StoredRow, unpack_report
from rt4chart.store.schema import migrate, reviews, run_rows, runs

_STORE_ADVICE = {
    "full": "free space on its disk and run again",
    "foreign": "it is not a readable run store: move the file aside (a new store is made) or set RT4CHART_DB",
    "other": "check that the store is reachable and writable, or set RT4CHART_DB to another store"}
MAX_NAME = 240  # the name column holds 255 characters; room is left for " (n)"


def default_url() -> str:
    """`$RT4CHART_DB` (a SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db), else a SQLite file in the
    user data directory."""
    url = os.environ.get("RT4CHART_DB")
    if url:
        return url if "://" in url else f"sqlite:///{Path(url).expanduser().resolve()}"  # a plain path: a SQLite file
    from platformdirs import user_data_dir

    folder = Path(os.environ.get("RT4CHART_DATA_DIR") or user_data_dir("rt4chart"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'runs.sqlite3'}"


def safe_url(url: str) -> str:
    """The URL without its password, for messages and the app."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - a malformed URL is shown as its scheme only
        return url.split(":", 1)[0] + ":…"


@dataclass
class RunInfo:
    id: str
    name: str
    created: str
    judge: str
    model: Optional[str]
    rows: int
    hallucinated: int
    unverified: int
    failed: int
    status: str
    source: str = ""
    tags: list[str] = field(default_factory=list)
    manifest: dict = field(default_factory=dict)
    mapping: dict = field(default_factory=dict)
    elapsed_s: float = 0.0
    fingerprint: str = ""

    @property
    def rate(self) -> Rate:
        return Rate(count=self.hallucinated, decided=self.rows - self.unverified - self.failed)

    def as_dict(self) -> dict:
        out = asdict(self)
        out["rate"] = self.rate.value
        return out


@dataclass
class Review:
    row_id: str
    claim: Optional[int]
    label: Optional[str]
    judge_right: Optional[bool]
    verdict: Optional[str]
    note: str
    reviewer: str
    created: str


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _iso(value) -> str:
    if value is None:
        return ""
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.isoformat(timespec="seconds")


def _info(row) -> RunInfo:
    """A `runs` table row as a RunInfo."""
    return RunInfo(id=row["id"], name=row["name"], created=_iso(row["created"]), judge=row["judge"],
                   model=row["model"], rows=row["rows"], hallucinated=row["hallucinated"],
                   unverified=row["unverified"], failed=row["failed"], status=row["status"],
                   source=row["source"], tags=json.loads(row["tags"]), manifest=json.loads(row["manifest"]),
                   mapping=json.loads(row["mapping"]), elapsed_s=row["elapsed_s"], fingerprint=row["fingerprint"])


class Store:
    """One database of runs. Thread-safe (a connection pool); every write is one short transaction."""

    def __init__(self, url: Optional[str] = None):
        self.url = url or default_url()
        options: dict = {"future": True, "pool_pre_ping": True}
        if self.url.startswith("sqlite"):
            options["connect_args"] = {"check_same_thread": False, "timeout": 30}
        try:
            self.engine = create_engine(self.url, **options)
        except Exception as exc:  # noqa: BLE001 - a bad URL or a missing driver, said in one line
            raise InputError(f"cannot use the run store {safe_url(self.url)}: {exc}") from None
        if self.url.startswith("sqlite"):
            @event.listens_for(self.engine, "connect")
            def _sqlite_pragmas(conn, _record):
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
        event.listen(self.engine, "handle_error", self._said_in_one_line)
        migrate(self.engine)
        self._file = self._identity()

    def _where(self) -> str:
        return self.engine.url.database or "" if self.url.startswith("sqlite") else safe_url(self.url)

    def _said_in_one_line(self, context) -> None:
        """A database fault (a damaged or foreign file, a full disk, a lost server) as one StoreError naming
        the store and what to do; a unique-name clash stays an IntegrityError (create_run retries on it)."""
        error = context.sqlalchemy_exception
        if isinstance(error, IntegrityError) or not isinstance(error, DBAPIError):
            return
        raise database_fault("run store", self._where(), context.original_exception, _STORE_ADVICE) from None

    def _identity(self) -> Optional[tuple[int, int]]:
        """(device, inode) of a SQLite store's file: a file deleted or replaced while open is noticed."""
        path = self.engine.url.database if self.url.startswith("sqlite") else None
        if not path or path == ":memory:":
            return None
        try:
            st = os.stat(path)
        except OSError:
            return (-1, -1)
        return (st.st_dev, st.st_ino)

    def check_file(self) -> None:
        """Raise when the store's file is no longer the one this store opened (deleted or replaced): rows
        written now would land in a file nobody can open again."""
        if self._file is not None and self._identity() != self._file:
            raise StoreError(f"the run store file {self.engine.url.database} was deleted or replaced while this run "
                             "was being stored")

    def close(self) -> None:
        self.engine.dispose()

    # -- runs -------------------------------------------------------------------------------------

    def create_run(self, name: str, *, judge: str, model: Optional[str] = None, source: str = "",
                   manifest: Optional[dict] = None, mapping: Optional[dict] = None, fingerprint: str = "",
                   tags: Iterable[str] = ()) -> RunInfo:
        """A new run named `name`, or `name (2)`, `name (3)`, … when taken (also by a batch starting at the same
        moment); a name longer than MAX_NAME characters is shortened with an ellipsis."""
        run_id = uuid.uuid4().hex
        name = name if len(name) <= MAX_NAME else name[:MAX_NAME - 1] + "…"
        for _attempt in range(50):
            try:
                with self.engine.begin() as conn:
                    taken = set(conn.execute(select(runs.c.name).where(runs.c.name.like(f"{name[:200]}%"))).scalars())
                    unique, n = name, 1
                    while unique in taken:
                        n += 1
                        unique = f"{name} ({n})"
                    conn.execute(runs.insert().values(
                        id=run_id, name=unique, created=_now(), source=source, fingerprint=fingerprint, judge=judge,
                        model=model, manifest=json.dumps(manifest or {}, default=str),
                        mapping=json.dumps(mapping or {}), tags=json.dumps(list(tags)), status="running"))
                return self.get_run(run_id)
            except IntegrityError:  # another process took the same name between our read and our insert
                continue
        raise StoreError(f"could not find a free run name for {name!r}")

    def same_run(self, fingerprint: str) -> Optional[RunInfo]:
        """The newest complete run of exactly this input and these settings, if any."""
        if not fingerprint:
            return None
        with self.engine.connect() as conn:
            run_id = conn.execute(select(runs.c.id).where(runs.c.fingerprint == fingerprint, runs.c.status == "complete")
                                  .order_by(runs.c.created.desc()).limit(1)).scalar()
        return self.get_run(run_id) if run_id else None

    def cancelled_run(self, fingerprint: str) -> Optional[RunInfo]:
        """The newest cancelled run of exactly this input and these settings: a batch to resume, not to redo."""
        if not fingerprint:
            return None
        with self.engine.connect() as conn:
            run_id = conn.execute(select(runs.c.id).where(runs.c.fingerprint == fingerprint,
                                                          runs.c.status == "cancelled")
                                  .order_by(runs.c.created.desc()).limit(1)).scalar()
        return self.get_run(run_id) if run_id else None

    def reopen(self, run_id: str) -> RunInfo:
        """A cancelled run goes on: `running` again, its stored rows kept."""
        with self.engine.begin() as conn:
            conn.execute(update(runs).where(runs.c.id == run_id, runs.c.status == "cancelled").values(status="running"))
        return self.get_run(run_id)

    def stored_results(self, run_id: str) -> dict[int, tuple[Optional[AuditReport], str]]:
        """Position -> (report, error) of every stored row (the rows a resumed run does not redo)."""
        with self.engine.connect() as conn:
            found = conn.execute(select(run_rows.c.position, run_rows.c.report, run_rows.c.result)
                                 .where(run_rows.c.run_id == run_id)).all()
        return {position: (unpack_report(blob) if blob else None, json.loads(result).get("error") or "")
                for position, blob, result in found}

    def find_run(self, run_id: str) -> Optional[RunInfo]:
        """The run with this exact id, or None when it is gone."""
        try:
            return self.get_run(run_id)
        except InputError:
            return None

    def add_rows(self, run_id: str, rows: list[StoredRow]) -> None:
        """Store a batch of rows in one transaction (a row stored again replaces its earlier copy)."""
        if not rows:
            return
        values = [{"run_id": run_id, **asdict(r)} for r in rows]
        with self.engine.begin() as conn:
            conn.execute(delete(run_rows).where(run_rows.c.run_id == run_id,
                                                run_rows.c.position.in_([r.position for r in rows])))
            conn.execute(run_rows.insert(), values)

    def stored_positions(self, run_id: str) -> set[int]:
        with self.engine.connect() as conn:
            return set(conn.execute(select(run_rows.c.position).where(run_rows.c.run_id == run_id)).scalars())

    def finish_run(self, run_id: str, elapsed_s: float = 0.0, status: str = "complete") -> RunInfo:
        """Count the stored rows by status and mark the run complete (or `cancelled`: a provider batch that was
        cancelled keeps the rows it returned)."""
        self.check_file()
        with self.engine.begin() as conn:
            counts: dict[str, int] = dict(conn.execute(select(run_rows.c.status, func.count()).where(run_rows.c.run_id == run_id)
                                       .group_by(run_rows.c.status)).all())
            conn.execute(update(runs).where(runs.c.id == run_id).values(
                status=status, rows=sum(counts.values()), hallucinated=counts.get("hallucinated", 0),
                unverified=counts.get("unverified", 0), failed=counts.get("error", 0),
                elapsed_s=runs.c.elapsed_s + elapsed_s))
        return self.get_run(run_id)

    def mark_cancelled(self, run_id: str) -> None:
        """A run stopped before its last row (the app's Cancel, a page left): its rows so far are kept. Only a
        running run is marked: a stop that lands after the run completed leaves it complete."""
        with self.engine.begin() as conn:
            counts: dict[str, int] = dict(conn.execute(select(run_rows.c.status, func.count()).where(
                run_rows.c.run_id == run_id).group_by(run_rows.c.status)).all())
            conn.execute(update(runs).where(runs.c.id == run_id, runs.c.status == "running").values(
                status="cancelled", rows=sum(counts.values()), hallucinated=counts.get("hallucinated", 0),
                unverified=counts.get("unverified", 0), failed=counts.get("error", 0)))

    def mark_failed(self, run_id: str) -> None:
        """A run that cannot be completed (its input changed under it): never resumed, shown as failed."""
        with self.engine.begin() as conn:
            conn.execute(update(runs).where(runs.c.id == run_id).values(status="failed"))

    def update_manifest(self, run_id: str, manifest: dict) -> None:
        """Record what was discovered while the run went (e.g. the response format an endpoint accepts)."""
        with self.engine.begin() as conn:
            conn.execute(update(runs).where(runs.c.id == run_id).values(manifest=json.dumps(manifest, default=str)))

    def list_runs(self) -> list[RunInfo]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(runs).order_by(runs.c.created.desc(), runs.c.name)).mappings().all()
        return [_info(row) for row in rows]

    def get_run(self, ref: str) -> RunInfo:
        """A run by its id, its name, or the first characters of its id (at least 6, and unambiguous)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(runs).where(runs.c.id == ref)).mappings().first()
            if row is None:
                row = conn.execute(select(runs).where(runs.c.name == ref)).mappings().first()
            if row is None and len(ref) >= 6 and all(c in "0123456789abcdef" for c in ref):
                matches = conn.execute(select(runs).where(runs.c.id.like(f"{ref}%"))).mappings().all()
                if len(matches) > 1:
                    raise InputError(f"{ref!r} starts the ids of {len(matches)} runs; give more of the id")
                row = matches[0] if matches else None
            if row is None:
                raise InputError(f"no run {ref!r} in the run store {safe_url(self.url)}; "
                                 "`rt4chart runs list` shows the runs")
        return _info(row)

    def rename(self, ref: str, name: str) -> RunInfo:
        run = self.get_run(ref)
        if not name.strip():
            raise InputError("a run name cannot be empty")
        with self.engine.begin() as conn:
            clash = conn.execute(select(runs.c.id).where(runs.c.name == name, runs.c.id != run.id)).scalar()
            if clash:
                raise InputError(f"another run is already named {name!r}")
            conn.execute(update(runs).where(runs.c.id == run.id).values(name=name))
        return self.get_run(run.id)

    def set_tags(self, ref: str, tags: Iterable[str]) -> RunInfo:
        run = self.get_run(ref)
        clean = list(dict.fromkeys(t.strip() for t in tags if t.strip()))
        with self.engine.begin() as conn:
            conn.execute(update(runs).where(runs.c.id == run.id).values(tags=json.dumps(clean)))
        return self.get_run(run.id)

    def delete(self, ref: str) -> RunInfo:
        run = self.get_run(ref)
        with self.engine.begin() as conn:
            conn.execute(delete(reviews).where(reviews.c.run_id == run.id))
            conn.execute(delete(run_rows).where(run_rows.c.run_id == run.id))
            conn.execute(delete(runs).where(runs.c.id == run.id))
        return run

    def mark_opened(self, run_id: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(runs).where(runs.c.id == run_id).values(opened=_now()))

    def last_opened(self) -> Optional[RunInfo]:
        """The run opened most recently (else the newest complete run): what a reloaded app shows."""
        with self.engine.connect() as conn:
            run_id = conn.execute(select(runs.c.id).where(runs.c.status == "complete").order_by(
                func.coalesce(runs.c.opened, runs.c.created).desc()).limit(1)).scalar()
        return self.get_run(run_id) if run_id else None

    # -- rows -------------------------------------------------------------------------------------

    def results(self, run_id: str) -> list[dict]:
        """The flat result rows, in input order."""
        with self.engine.connect() as conn:
            return [json.loads(r) for r in conn.execute(select(run_rows.c.result).where(run_rows.c.run_id == run_id)
                                                        .order_by(run_rows.c.position)).scalars()]

    def records(self, run_id: str) -> list[dict]:
        """The input records, exactly as read, in input order."""
        with self.engine.connect() as conn:
            return [json.loads(r) for r in conn.execute(select(run_rows.c.record).where(run_rows.c.run_id == run_id)
                                                        .order_by(run_rows.c.position)).scalars()]

    def row_index(self, run_id: str) -> list[dict]:
        """Per row: id, match key, status, hallucinated, score (what comparisons and queues need)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(run_rows.c.row_id, run_rows.c.match_key, run_rows.c.status,
                                       run_rows.c.hallucinated, run_rows.c.score, run_rows.c.result)
                                .where(run_rows.c.run_id == run_id).order_by(run_rows.c.position)).mappings().all()
        return [dict(r) for r in rows]

    def report(self, run_id: str, row_id: str) -> Optional[AuditReport]:
        with self.engine.connect() as conn:
            blob = conn.execute(select(run_rows.c.report).where(run_rows.c.run_id == run_id,
                                                                run_rows.c.row_id == row_id)).scalar()
        return unpack_report(blob) if blob else None

    def reports(self, run_id: str, row_ids: Optional[Iterable[str]] = None) -> Iterator[tuple[str, AuditReport]]:
        query = select(run_rows.c.row_id, run_rows.c.report).where(run_rows.c.run_id == run_id,
                                                                   run_rows.c.report.is_not(None))
        if row_ids is not None:
            query = query.where(run_rows.c.row_id.in_(list(row_ids)))
        with self.engine.connect() as conn:
            for row_id, blob in conn.execute(query.order_by(run_rows.c.position)):
                yield row_id, unpack_report(blob)

    # -- reviews ----------------------------------------------------------------------------------

    def add_review(self, run_ref: str, row_id: str, *, reviewer: str, claim: Optional[int] = None,
                   label: Optional[str] = None, judge_right: Optional[bool] = None, verdict: Optional[str] = None,
                   note: str = "") -> None:
        """Append one review (never overwrite: the latest review of a row or claim counts, and two analysts
        working at once keep both of their edits)."""
        run = self.get_run(run_ref)
        if label not in (None, "hallucinated", "faithful"):
            raise InputError(f"a label is hallucinated or faithful, not {label!r}")
        if verdict not in (None, "entailed", "contradicted", "baseless"):
            raise InputError(f"a claim verdict is entailed, contradicted or baseless, not {verdict!r}")
        if not reviewer.strip():
            raise InputError("a review needs the reviewer's name")
        with self.engine.begin() as conn:
            if conn.execute(select(run_rows.c.position).where(run_rows.c.run_id == run.id,
                                                              run_rows.c.row_id == row_id)).first() is None:
                raise InputError(f"run {run.name!r} has no row {row_id!r}")
            conn.execute(reviews.insert().values(run_id=run.id, row_id=row_id, claim=claim, label=label,
                                                 judge_right=judge_right, verdict=verdict, note=note,
                                                 reviewer=reviewer.strip(), created=_now()))

    def reviews(self, run_id: str) -> dict[tuple[str, Optional[int]], Review]:
        """The latest review of each (row, claim); claim None is the answer's label."""
        latest: dict[tuple[str, Optional[int]], Review] = {}
        with self.engine.connect() as conn:
            for r in conn.execute(select(reviews).where(reviews.c.run_id == run_id).order_by(reviews.c.id)).mappings():
                latest[(r["row_id"], r["claim"])] = Review(
                    row_id=r["row_id"], claim=r["claim"], label=r["label"], judge_right=r["judge_right"],
                    verdict=r["verdict"], note=r["note"], reviewer=r["reviewer"], created=_iso(r["created"]))
        return latest
