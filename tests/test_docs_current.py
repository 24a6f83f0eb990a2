"""Docs that check themselves: the module map of docs/architecture.md is the package as it is, docs/cli.md's
reference is every command's --help as it is, the exit codes that --help lists are the ones docs/cli.md explains,
and the README stays a first page (at most 120 lines)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_module_map_lists_every_module_as_it_is():
    done = subprocess.run([sys.executable, "scripts/module_map.py", "--check"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_cli_reference_is_every_commands_help_as_it_is():
    done = subprocess.run([sys.executable, "scripts/cli_docs.py", "--check"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_readme_is_a_first_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 120
    assert "make app" in readme and "make test" in readme and "docs/cli.md" in readme


def test_the_cli_docs_and_help_give_the_same_exit_codes():
    from rt4chart.cli.parser import EXIT_CODES

    listed = re.findall(r"^\s+(\d+)\s", EXIT_CODES, re.M)
    readme = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    paragraph = readme[readme.index("Exit codes (`rt4chart --help`)"):].split("\n\n")[0]
    named = re.findall(r"(?:^|[:;] )(\d+) ", paragraph.replace("\n", " "))
    assert listed and named == listed, (named, listed)
