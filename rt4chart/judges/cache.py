"""A persistent memo of judge calls in SQLite, so a re-run of the same audit makes no LLM call.

Keys hash everything that changes a reply (judge, model, prompt text, schema, parameters) and
nothing secret: API keys are never part of a key or a value.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Optional


def default_cache_path() -> Path:
    """`$RT4CHART_CACHE_DIR/memo.sqlite3`, else the user's cache dir (platformdirs)."""
    base = os.environ.get("RT4CHART_CACHE_DIR")
    if not base:
        from platformdirs import user_cache_dir

        base = user_cache_dir("rt4chart")
    return Path(base) / "memo.sqlite3"


def cache_key(payload: dict) -> str:
    """SHA-256 of a canonical JSON form of everything that determines a reply."""
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class MemoCache:
    """Thread-safe key -> JSON value store in one SQLite file. A cache that cannot be written (a full disk, a
    read-only or damaged file) never fails an audit: it stops caching and says why in `problem`."""

    problem: Optional[str] = None

    def __init__(self, path: Optional[os.PathLike | str] = None):
        self.path = Path(path) if path else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("CREATE TABLE IF NOT EXISTS memo (key TEXT PRIMARY KEY, value TEXT NOT NULL, "
                               "created REAL NOT NULL)")
            self._conn.commit()

    def get(self, key: str) -> Optional[dict]:
        try:
            with self._lock:
                row = self._conn.execute("SELECT value FROM memo WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:  # an unreadable cache is a miss
            self._failed(exc)
            return None
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: dict) -> None:
        if self.problem is not None:
            return
        try:
            with self._lock:
                self._conn.execute("INSERT OR REPLACE INTO memo (key, value, created) VALUES (?, ?, ?)",
                                   (key, json.dumps(value), time.time()))
                self._conn.commit()
        except sqlite3.Error as exc:
            self._failed(exc)

    def _failed(self, exc: Exception) -> None:
        self.problem = f"{type(exc).__name__}: {exc}"
        try:
            self._conn.rollback()
        except sqlite3.Error:
            pass

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM memo").fetchone()[0]

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())

    def clear(self) -> int:
        """Delete every entry; returns how many there were."""
        with self._lock:
            n = self._conn.execute("SELECT COUNT(*) FROM memo").fetchone()[0]
            self._conn.execute("DELETE FROM memo")
            self._conn.commit()
            self._conn.execute("VACUUM")
        return n

    def close(self) -> None:
        with self._lock:
            self._conn.close()
