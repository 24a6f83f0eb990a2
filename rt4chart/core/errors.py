"""One hierarchy of errors that carry a message for the user: what is wrong and what to do.

The CLI turns exactly these into a one-line message and exit code 2; anything else is a bug in rt4chart and
is reported as one (traceback, exit code 70, a hint to report it). The standard bases (`ValueError`,
`RuntimeError`, `ImportError`) are kept so that callers catching those still do.
"""
from __future__ import annotations


class Rt4chartError(Exception):
    """An error whose message tells the user what is wrong and what to do."""


class InputError(Rt4chartError, ValueError):
    """Bad input (a file, a column, an option value)."""


class JudgeConfigError(Rt4chartError, ValueError):
    """The judge cannot be set up as asked (e.g. no API key, an unknown judge); the message says how to fix it."""


class JudgeFatalError(JudgeConfigError):
    """The endpoint refuses the run's configuration (key, model, URL, request shape): no row can succeed,
    so the run stops instead of marking every row unverified. The message names endpoint, model and fix."""


class LLMCallError(Rt4chartError, RuntimeError):
    """One call failed after its retries. `reason` names the cause with the server's own words (never the
    key); `requests` and `failed` count what was sent; `kind` is 'overflow', 'timeout', 'http' or 'network'."""

    def __init__(self, reason: str, requests: int = 0, failed: int = 0, kind: str = "http"):
        super().__init__(reason)
        self.reason, self.requests, self.failed, self.kind = reason, requests, failed, kind


class MissingDependencyError(Rt4chartError, ImportError):
    """An optional extra is not installed; the message gives the command that installs it."""


class WorkerLostError(Rt4chartError, RuntimeError):
    """An audit process ended abruptly before its rows were done (out of memory, a signal, a crash)."""


class StoreError(Rt4chartError, RuntimeError):
    """The run store cannot be used as it is (e.g. a newer schema than this rt4chart knows)."""


def first_line(cause: BaseException, limit: int = 200) -> str:
    """A library's error in one line: the first line of its text (at most `limit` characters), else its kind."""
    text = str(cause).strip()
    return text.splitlines()[0][:limit] if text else type(cause).__name__


def database_fault(kind: str, where: str, cause: BaseException, advice: dict[str, str]) -> StoreError:
    """A SQLite/database driver fault as one StoreError line: the `kind` of file and `where` it is, the driver's
    first line, and the advice for what went wrong: `advice["full"]` (a full disk), `advice["foreign"]` (not a
    database, or a damaged one), else `advice["other"]`."""
    first = first_line(cause)
    if "full" in first.lower():
        what = "full"
    elif "not a database" in first or "malformed" in first:
        what = "foreign"
    else:
        what = "other"
    return StoreError(f"the {kind} {where} cannot be used ({first}): {advice[what]}")

