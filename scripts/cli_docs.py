"""docs/cli.md's reference part, written from the parser itself: `rt4chart --help` and every command's (and
sub-command's) `--help`, at a fixed width, between two markers; the hand-written examples above the markers stay.
`--check` fails when the file is not what the parser says (tests/test_docs_current.py runs it).

    python scripts/cli_docs.py            # rewrite the reference part
    python scripts/cli_docs.py --check    # exit 1 when it is stale
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "cli.md"
BEGIN = "<!-- reference: written by scripts/cli_docs.py from --help; do not edit below -->"
WIDTH = "100"


def helps(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(command line, its help text) for the parser and every sub-command, depth first, in declared order."""
    found = [(" ".join(("rt4chart",) + path), parser.format_help())]
    for action in parser._actions:  # argparse keeps sub-parsers only here
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += helps(sub, path + (name,))
    return found


def reference() -> str:
    os.environ["COLUMNS"] = WIDTH  # argparse wraps at the terminal's width: fixed, so the file is one text
    sys.path.insert(0, str(ROOT))
    from rt4chart.cli.parser import build_parser

    parts = [BEGIN, "", "## Reference (`--help` of every command)", ""]
    for line, text in helps(build_parser()):
        parts += [f"### `{line}`", "", "```text", text.rstrip(), "```", ""]
    return "\n".join(parts)


def main() -> int:
    check = "--check" in sys.argv[1:]
    current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    head = current.split(BEGIN)[0].rstrip() + "\n\n" if BEGIN in current else current
    wanted = head + reference()
    if check:
        if current != wanted:
            print(f"{DOC.relative_to(ROOT)} is stale: run python scripts/cli_docs.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
