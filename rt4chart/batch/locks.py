"""One writer per output file: an advisory lock (flock) held for the whole run.

The lock is released by the kernel when the process ends in any way (SIGKILL included), so a killed
run never leaves a stale lock behind; a second run on the same output refuses at once. A flock belongs to the open
file, which a forked child shares: the audit processes a run forks close the locks it holds (`held_here`), or a
child still auditing after its parent was killed would hold them.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from rt4chart.core.errors import InputError

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows: runs are not locked there
    fcntl = None  # type: ignore[assignment]


_HELD_HERE: set[int] = set()


def hold_here(fd: int) -> None:
    """Mark `fd`, a lock this process holds, as this process's alone: a process it forks to audit closes it."""
    _HELD_HERE.add(fd)


def let_go_here(fd: int) -> None:
    """`fd` is about to be closed: its number may name another file next."""
    _HELD_HERE.discard(fd)


def held_here() -> tuple[int, ...]:
    """The descriptors of the locks this process holds for itself (`hold_here`)."""
    return tuple(sorted(_HELD_HERE))


def lock_path(output: str | Path) -> Path:
    return Path(f"{output}.lock")


@contextmanager
def exclusive_output(output: str | Path) -> Iterator[None]:
    """Hold the lock of `output` while the body runs; raise InputError if another process holds it."""
    if fcntl is None:
        yield
        return
    path = lock_path(output)
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(3):  # the file may be unlinked by its previous holder between open and flock
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise InputError(f"{output} is being written by another rt4chart run (pid {holder}); wait for it "
                             "to finish, or write to another output file") from None
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    else:  # pragma: no cover - three lost races in a row
        raise InputError(f"could not lock {path}; retry")
    hold_here(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        yield
    finally:
        try:
            path.unlink()  # while still holding the lock: a waiter that opened it sees another inode
        except FileNotFoundError:
            pass
        let_go_here(fd)
        os.close(fd)
