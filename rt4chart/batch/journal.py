"""A checkpoint journal for batch runs: every finished row is committed to SQLite at once, so a
run that is killed resumes where it stopped and redoes no finished row.

Rows are keyed by a fingerprint of the run (input bytes, judge, settings, version) and the row's
position, so a changed input or setting never reuses stale rows.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

from rt4chart.core.errors import database_fault


def file_digest(path: str, chunk: int = 1 << 20) -> str:
    """SHA-256 of the bytes the input is read from (both files of a RAGTruth folder)."""
    from rt4chart.data.ragtruth import input_files

    digest = hashlib.sha256()
    for file in input_files(path):
        with open(file, "rb") as handle:
            while block := handle.read(chunk):
                digest.update(block)
    return digest.hexdigest()


def run_fingerprint(input_digest: str, settings: dict) -> str:
    payload = json.dumps({"input": input_digest, "settings": settings}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32]


_JOURNAL_ADVICE = {
    "full": "free space on its disk and run the same command again (it resumes)",
    "foreign": "it is no rt4chart journal: pass another --journal path, or delete the file to start afresh",
    "other": "check that it is writable and its disk has room, or pass another --journal path"}


@contextmanager
def _faults(path: Path) -> Iterator[None]:
    """A SQLite fault of the journal (not a database, disk full, read-only) as one StoreError naming it."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise database_fault("journal", str(path), exc, _JOURNAL_ADVICE) from None


class Journal:
    """Finished rows of one run: position -> output line (JSON text)."""

    def __init__(self, path: str | Path, fingerprint: str, commit_every: int = 2048, commit_seconds: float = 1.0):
        self.path = Path(path)
        self.fingerprint = fingerprint
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _faults(self.path):
            self._open()
        self._pending: list[tuple] = []
        self._commit_every, self._commit_seconds = commit_every, commit_seconds
        self._last_commit = time.monotonic()

    def _open(self) -> None:
        self._conn = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS journal_rows (run TEXT NOT NULL, position INTEGER NOT NULL, "
                           "line TEXT NOT NULL, status TEXT NOT NULL, PRIMARY KEY (run, position))")
        self._conn.execute("CREATE TABLE IF NOT EXISTS journal_stored_runs (run TEXT PRIMARY KEY, stored_run TEXT "
                           "NOT NULL)")
        self._conn.commit()

    def done_positions(self) -> set[int]:
        self.flush()
        cur = self._conn.execute("SELECT position FROM journal_rows WHERE run = ?", (self.fingerprint,))
        return {row[0] for row in cur}

    def stored_run(self) -> Optional[str]:
        """The id of the stored run this journal's rows go to (None before the first batch that stored)."""
        row = self._conn.execute("SELECT stored_run FROM journal_stored_runs WHERE run = ?", (self.fingerprint,))
        found = row.fetchone()
        return found[0] if found else None

    def remember_stored_run(self, run_id: str) -> None:
        self._conn.execute("INSERT OR REPLACE INTO journal_stored_runs (run, stored_run) VALUES (?, ?)",
                           (self.fingerprint, run_id))
        self._conn.commit()

    def forget(self) -> None:
        """Start this run afresh (`--restart`): its finished rows and its stored run are no longer resumed."""
        self._conn.execute("DELETE FROM journal_rows WHERE run = ?", (self.fingerprint,))
        self._conn.execute("DELETE FROM journal_stored_runs WHERE run = ?", (self.fingerprint,))
        self._conn.commit()

    def record(self, position: int, line: str, status: str) -> None:
        """Keep one finished row; rows are committed in batches, at least every `commit_seconds` (a row written
        twice keeps one copy). A kill loses at most the rows of the last second, which a resumed run redoes."""
        self._pending.append((self.fingerprint, position, line, status))
        if len(self._pending) >= self._commit_every or time.monotonic() - self._last_commit >= self._commit_seconds:
            self.flush()

    def flush(self) -> None:
        if self._pending:
            with _faults(self.path):
                self._write_pending()
        self._last_commit = time.monotonic()

    def _write_pending(self) -> None:
        if self._pending:
            self._conn.executemany("INSERT OR REPLACE INTO journal_rows (run, position, line, status) "
                                   "VALUES (?, ?, ?, ?)", self._pending)
            self._conn.commit()
            self._pending = []

    def count_status(self, status: str) -> int:
        """Finished rows of this run with this status ('error', 'unverified', ...)."""
        self.flush()
        return self._conn.execute("SELECT COUNT(*) FROM journal_rows WHERE run = ? AND status = ?",
                                  (self.fingerprint, status)).fetchone()[0]

    def lines(self) -> Iterator[tuple[int, str]]:
        """Every finished row's (position, line), in input order (streamed)."""
        self.flush()
        cur = self._conn.execute("SELECT position, line FROM journal_rows WHERE run = ? ORDER BY position",
                                 (self.fingerprint,))
        yield from cur

    def count(self) -> int:
        self.flush()
        return self._conn.execute("SELECT COUNT(*) FROM journal_rows WHERE run = ?",
                                  (self.fingerprint,)).fetchone()[0]

    def close(self) -> None:
        self.flush()
        self._conn.close()
