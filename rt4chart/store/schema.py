"""The run store's tables and their migrations (SQLAlchemy Core; the same code for SQLite and PostgreSQL).

The schema is versioned: `store_meta` holds the version, and `migrate()` applies every step after it in
order, each in its own transaction. A new step is appended to MIGRATIONS, never edited in place.
"""
from __future__ import annotations

from contextlib import contextmanager

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows
    fcntl = None  # type: ignore[assignment]

from typing import Callable, Iterator

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    inspect,
    select,
    text,
)
from sqlalchemy.engine import Connection, Engine

from rt4chart.core.errors import StoreError
from rt4chart.store.lossless import LosslessString, LosslessText

metadata = MetaData()

store_meta = Table("store_meta", metadata, Column("key", String(64), primary_key=True),
                   Column("value", Text, nullable=False))

runs = Table(
    "runs", metadata,
    Column("id", String(32), primary_key=True),
    Column("name", LosslessString(255), nullable=False, unique=True),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("opened", DateTime(timezone=True), nullable=True),       # last opened in the app
    Column("source", LosslessText, nullable=False, default=""),              # the input's file name
    Column("fingerprint", String(64), nullable=False, default=""),   # input bytes + settings (resume)
    Column("judge", String(64), nullable=False),
    Column("model", String(255), nullable=True),
    Column("manifest", Text, nullable=False, default="{}"),         # JSON: version, judge, settings, prompts
    Column("mapping", Text, nullable=False, default="{}"),          # JSON: role -> column, gold, groups
    Column("tags", Text, nullable=False, default="[]"),             # JSON list
    Column("status", String(16), nullable=False, default="running"),  # running | complete
    Column("rows", Integer, nullable=False, default=0),
    Column("hallucinated", Integer, nullable=False, default=0),
    Column("unverified", Integer, nullable=False, default=0),
    Column("failed", Integer, nullable=False, default=0),
    Column("elapsed_s", Float, nullable=False, default=0.0),
)

run_rows = Table(
    "run_rows", metadata,
    Column("run_id", String(32), primary_key=True),
    Column("position", Integer, primary_key=True),                  # 0-based input order
    Column("row_id", LosslessText, nullable=False),
    Column("match_key", String(40), nullable=False),                # sha1 of context + answer (to pair runs)
    Column("status", String(16), nullable=False),
    Column("hallucinated", Boolean, nullable=True),                  # None: unverified or failed
    Column("score", Float, nullable=True),
    Column("result", Text, nullable=False),                          # JSON: the flat result row
    Column("record", Text, nullable=False),                          # JSON: the input record, exactly
    Column("report", LargeBinary, nullable=True),                    # zlib(JSON AuditReport); None for errors
    Column("elapsed_s", Float, nullable=False, default=0.0),
)
Index("ix_run_rows_row_id", run_rows.c.run_id, run_rows.c.row_id)

reviews = Table(
    "reviews", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(32), nullable=False),
    Column("row_id", LosslessText, nullable=False),
    Column("claim", Integer, nullable=True),                         # None: the answer itself
    Column("label", String(16), nullable=True),                      # answer: hallucinated | faithful
    Column("judge_right", Boolean, nullable=True),                   # claim: is the judge's verdict right?
    Column("verdict", String(16), nullable=True),                    # claim: the analyst's verdict, if other
    Column("note", LosslessText, nullable=False, default=""),
    Column("reviewer", LosslessString(255), nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
)
Index("ix_reviews_run_row", reviews.c.run_id, reviews.c.row_id)

# A batch audited through a provider's batch interface moves in rounds; what was submitted (the provider's
# batch ids) and every answer collected are kept here, keyed by the batch's fingerprint, so the same command
# run again resumes: nothing submitted is submitted again, nothing is paid twice.
provider_batches = Table(
    "provider_batches", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("batch_key", String(64), nullable=False),                 # the batch's fingerprint (input + settings)
    Column("round", Integer, nullable=False),
    Column("provider", String(32), nullable=False),                  # batch-api | batch-file
    Column("handle", Text, nullable=False),                          # the provider's batch id, or the file stem
    Column("custom_ids", Text, nullable=False),                      # JSON list: the requests it holds
    Column("status", String(16), nullable=False),                    # submitted | collected
    Column("created", DateTime(timezone=True), nullable=False),
)
Index("ix_provider_batches_key", provider_batches.c.batch_key)

provider_outcomes = Table(
    "provider_outcomes", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("batch_key", String(64), nullable=False),
    Column("custom_id", String(64), nullable=False),
    Column("status_code", Integer, nullable=False),
    Column("body", Text, nullable=True),                              # JSON of the reply (status 200)
    Column("message", Text, nullable=False, default=""),              # the provider's words otherwise
)
Index("ix_provider_outcomes_key", provider_outcomes.c.batch_key)

# One row per batch going through a provider: how to run it again (`rt4chart runs resume KEY`: the working
# folder and the command line, never a key), where it stands (for the Runs page), and a cancel request that the
# process waiting on the provider honours.
provider_jobs = Table(
    "provider_jobs", metadata,
    Column("batch_key", String(64), primary_key=True),
    Column("via", String(32), nullable=False),
    Column("source", LosslessText, nullable=False),                  # the input file, as given
    Column("output", LosslessText, nullable=False),
    Column("cwd", LosslessText, nullable=False),
    Column("argv", Text, nullable=False),                            # JSON list, secrets left out
    Column("status", String(16), nullable=False),                    # waiting | done | cancelled
    Column("round", Integer, nullable=False, default=0),
    Column("progress", Text, nullable=False, default="{}"),          # JSON: the provider's last word on the round
    Column("cancel_requested", Boolean, nullable=False, default=False),
    Column("run_id", String(36), nullable=True),                     # the stored run, once done
    Column("created", DateTime(timezone=True), nullable=False),
    Column("updated", DateTime(timezone=True), nullable=False),
)

provider_leases = Table(  # which process drives a provider batch now (one at a time: no round is paid twice)
    "provider_leases", metadata,
    Column("batch_key", String(64), primary_key=True),
    Column("owner", String(64), nullable=False),                     # unique per process run
    Column("host", LosslessText, nullable=False),
    Column("pid", Integer, nullable=False),
    Column("heartbeat", DateTime(timezone=True), nullable=False),
)

SCHEMA_VERSION = 4


def _create_v1(conn: Connection) -> None:
    metadata.create_all(conn, tables=[runs, run_rows, reviews])


def _provider_rounds_v2(conn: Connection) -> None:
    metadata.create_all(conn, tables=[provider_batches, provider_outcomes])


def _provider_jobs_v3(conn: Connection) -> None:
    metadata.create_all(conn, tables=[provider_jobs])


def _provider_leases_v4(conn: Connection) -> None:
    metadata.create_all(conn, tables=[provider_leases])


MIGRATIONS: list[tuple[int, Callable[[Connection], None]]] = [(1, _create_v1), (2, _provider_rounds_v2),
                                                              (3, _provider_jobs_v3), (4, _provider_leases_v4)]


def current_version(conn: Connection) -> int:
    if not inspect(conn).has_table("store_meta"):
        return 0
    value = conn.execute(select(store_meta.c.value).where(store_meta.c.key == "schema_version")).scalar()
    return int(value) if value is not None else 0


@contextmanager
def _one_migrator(engine: Engine) -> Iterator[None]:
    """Processes opening a fresh store at once migrate one at a time: PostgreSQL through an advisory lock
    (taken inside the migration's transaction), a SQLite file through a lock file beside it."""
    database = engine.url.database if engine.dialect.name == "sqlite" else None
    if not database or database == ":memory:" or fcntl is None:
        yield
        return
    with open(f"{database}.migrate-lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def migrate(engine: Engine) -> int:
    """Bring the database to SCHEMA_VERSION in one transaction; returns the version it had before. A
    database written by a newer rt4chart is refused rather than changed."""
    with _one_migrator(engine), engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(4242)"))
        metadata.create_all(conn, tables=[store_meta])
        before = current_version(conn)
        if before > SCHEMA_VERSION:
            where = engine.url.database if engine.dialect.name == "sqlite" else engine.url.render_as_string(True)
            raise StoreError(f"the run store {where} has schema version {before}, newer than this rt4chart knows "
                             f"({SCHEMA_VERSION}): upgrade rt4chart (pip install -U rt4chart), or set RT4CHART_DB "
                             "to another store")
        for version, step in MIGRATIONS:
            if version <= before:
                continue
            step(conn)
            conn.execute(store_meta.delete().where(store_meta.c.key == "schema_version"))
            conn.execute(store_meta.insert().values(key="schema_version", value=str(version)))
    return before
