"""Work that outlives a page's script run: a thread of the app's server does it, so leaving the page, reloading it
or closing the tab does not stop it, and the page finds it again by its key (the same work asked again is the same
task, not a second one). A batch audit is a job in its own process (`_jobs`); this is for the Insights page's LLM
calls, which need no journal: their replies are in the judge's memo cache, so after an app restart, running the
same work again sends nothing that was answered before."""
from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import streamlit as st

WORKERS = 2  # tasks at once on the server; more wait their turn
KEPT = 32    # finished tasks kept for their pages; the oldest go first


@dataclass
class Task:
    key: str
    future: Future
    started: float = field(default_factory=time.monotonic)

    @property
    def running(self) -> bool:
        return not self.future.done()

    @property
    def elapsed_s(self) -> float:
        return time.monotonic() - self.started

    def outcome(self) -> tuple[Any, Optional[BaseException]]:
        """(result, None), or (None, the exception the work raised); only for a task that is not running."""
        error = self.future.exception()
        return (None, error) if error is not None else (self.future.result(), None)


@st.cache_resource(show_spinner=False)
def _board() -> tuple[ThreadPoolExecutor, dict[str, Task], threading.Lock]:
    """One pool and one list of tasks for the whole server (every session sees the same)."""
    return ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="rt4chart-task"), {}, threading.Lock()


def start(key: str, work: Callable[[], Any]) -> Task:
    """The task `key`: the one already running or finished well, else `work` started now (a failed task is
    started again: the cause may be fixed)."""
    pool, tasks, lock = _board()
    with lock:
        found = tasks.get(key)
        if found is not None and (found.running or found.future.exception() is None):
            return found
        finished = [k for k, t in tasks.items() if not t.running and k != key]
        for old in finished[:max(0, len(finished) - KEPT + 1)]:  # in the order they were started
            del tasks[old]
        tasks.pop(key, None)  # a failed task started again is the newest
        task = tasks[key] = Task(key, pool.submit(work))
        return task


def task(key: Optional[str]) -> Optional[Task]:
    if not key:
        return None
    _pool, tasks, lock = _board()
    with lock:
        return tasks.get(key)
