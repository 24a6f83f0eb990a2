"""Regenerate the module map of docs/architecture.md: every module of the package, its line count and its
docstring (shortened to ~150 characters). Run from the repository root: python scripts/module_map.py"""
from __future__ import annotations

import ast
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


def main() -> None:
    doc = ROOT / "docs" / "architecture.md"
    text = doc.read_text()
    start = text.index(HEADER)
    end = text.index("\n\n", start)
    table = [HEADER, "|---|---:|---|", *rows(ROOT / "rt4chart")]
    doc.write_text(text[:start] + "\n".join(table) + text[end:])


if __name__ == "__main__":
    main()
