"""The code's shape: no function is longer than 80 lines or more complex than radon's rank C (cyclomatic
complexity over 20) unless the comment right above it says why ("# Long on purpose: …" or "# Complex on
purpose: …"); a reason is the exception, not a way around the rule."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

radon_visitors = pytest.importorskip("radon.visitors")

ROOT = Path(__file__).resolve().parents[1]
REASONS = ("# Long on purpose:", "# Complex on purpose:")
MAX_LINES, MAX_COMPLEXITY = 80, 20


def _reason_above(lines: list[str], first_line: int) -> bool:
    """A reason in the comment block right above line `first_line` (1-based: the def, or its first decorator)."""
    i = first_line - 2
    while i >= 0 and lines[i].strip().startswith("#"):
        if lines[i].strip().startswith(REASONS):
            return True
        i -= 1
    return False


def _functions(text: str):
    """Every function radon rates: module functions, methods, and the functions defined inside them."""
    visitor = radon_visitors.ComplexityVisitor.from_code(text)
    todo = [*visitor.functions, *(m for c in visitor.classes for m in c.methods)]
    while todo:
        f = todo.pop()
        yield f
        todo.extend(f.closures)


def unexplained(root: Path) -> list[str]:
    problems = []
    for path in sorted([*(root / "rt4chart").rglob("*.py"), *(root / "app_pages").glob("*.py"), root / "app.py"]):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        complexity = {(f.lineno, f.name): f.complexity for f in _functions(text)}
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            cc = complexity.get((node.lineno, node.name), 0)
            if (length > MAX_LINES or cc > MAX_COMPLEXITY) and not _reason_above(lines, first):
                problems.append(f"{path.relative_to(root)}:{node.lineno} {node.name}: {length} lines, complexity {cc}")
    return problems


def test_every_long_or_complex_function_says_why():
    assert unexplained(ROOT) == []


def test_a_complex_function_without_a_reason_is_found(tmp_path):
    (tmp_path / "rt4chart").mkdir()
    (tmp_path / "app_pages").mkdir()
    (tmp_path / "app.py").write_text("")
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(25))
    (tmp_path / "rt4chart" / "m.py").write_text(f"def tangled(x):\n{branches}    return -1\n\n\n"
                                                f"# Complex on purpose: a table.\ndef table(x):\n{branches}    return -1\n")
    assert unexplained(tmp_path) == ["rt4chart/m.py:1 tangled: 52 lines, complexity 26"]
