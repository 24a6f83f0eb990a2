"""What the tests that start real programs share: a free loopback port, and the side environments that
`.ci/run` installs (scripts/setup.sh --phoenix, --formats): required in CI, skipped with the command
elsewhere."""
from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def require(program: Path, what: str, setup_flag: str) -> None:
    """Fail in CI (where setup installs it), skip elsewhere, when `program` is missing."""
    if program.exists():
        return
    why = f"no {what} at {program}: scripts/setup.sh {setup_flag} installs it"
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)
