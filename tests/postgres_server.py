"""A real PostgreSQL server for the store's tests: Debian's binaries, a temporary data directory, a
loopback port and a socket in that directory; started by the tests and stopped after them. As root (CI),
the server runs as the `postgres` system user, since PostgreSQL refuses to run as root."""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from contextlib import contextmanager
from typing import Iterator, Optional


def binaries() -> Optional[str]:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return os.path.dirname(found[-1]) if found else None


def _as_server_user(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


@contextmanager
def postgres_server() -> Iterator[str]:
    """Yields a SQLAlchemy URL of a fresh, empty database; stops and removes the server afterwards."""
    bindir = binaries()
    if bindir is None:
        raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = tempfile.mkdtemp(prefix="rt4chart-pg-")
    data, sockets = os.path.join(base, "data"), os.path.join(base, "sockets")
    os.makedirs(sockets)
    os.chmod(base, 0o755)
    if os.geteuid() == 0:
        shutil.chown(base, "postgres")
        shutil.chown(sockets, "postgres")
    run = lambda cmd: subprocess.run(_as_server_user(cmd), check=True, capture_output=True, text=True,  # noqa: E731
                                     timeout=120, cwd=base)
    try:
        run([f"{bindir}/initdb", "-D", data, "-U", "rt4chart", "--auth=trust", "-E", "UTF8", "--locale=C"])
        run([f"{bindir}/pg_ctl", "-D", data, "-w", "-t", "60", "-l", os.path.join(base, "server.log"), "-o",
             f"-h 127.0.0.1 -p {port} -k {sockets} -c fsync=off", "start"])
        try:
            yield f"postgresql+psycopg://rt4chart@127.0.0.1:{port}/postgres"
        finally:
            run([f"{bindir}/pg_ctl", "-D", data, "-w", "-t", "60", "-m", "fast", "stop"])
    finally:
        shutil.rmtree(base, ignore_errors=True)
