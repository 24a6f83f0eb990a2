"""Regenerate the module map of docs/architecture.md: every module of the package, its line count and its
docstring (shortened to ~150 characters). Run from the repository root: python scripts/module_map.py
(`--check`: write nothing, exit 1 when the map is stale; tests/test_docs_current.py runs it)."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = "| module | lines | what it holds |"


def rows(package: Path) -> list[str]:
    out = []
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        source = path.read_text()
        summary = " ".join((ast.get_docstring(ast.parse(source)) or "").split())
        if len(summary) > 148:
            summary = summary[:148].rsplit(" ", 1)[0] + " …"
        summary = summary.replace("|", "\\|")
        out.append(f"| `{path.relative_to(package)}` | {len(source.splitlines())} | {summary} |")
    return out


def current(text: str) -> str:
    """The document with its module map made from the package as it is."""
    start = text.index(HEADER)
    end = text.index("\n\n", start)
    table = [HEADER, "|---|---:|---|", *rows(ROOT / "rt4chart")]
    return text[:start] + "\n".join(table) + text[end:]


def main() -> int:
    doc = ROOT / "docs" / "architecture.md"
    text = doc.read_text()
    made = current(text)
    if "--check" in sys.argv[1:]:
        if made != text:
            print("docs/architecture.md: the module map is stale; run python scripts/module_map.py", file=sys.stderr)
            return 1
        return 0
    doc.write_text(made)
    return 0


if __name__ == "__main__":
    sys.exit(main())
