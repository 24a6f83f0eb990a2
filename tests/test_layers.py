"""The layer contract: rooms of the package import only rooms below them, never siblings, and no module
takes part in an import cycle (imports inside functions count: hiding an edge does not remove it).

Rooms, bottom to top (one line = one layer; rooms on one line are independent of each other):
"""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS: list[list[str]] = [
    ["rt4chart.core"],
    ["rt4chart.text", "rt4chart.evaluation"],
    ["rt4chart.judges"],
    ["rt4chart.auditing", "rt4chart.data"],
    ["rt4chart.reporting"],
    ["rt4chart.store"],
    ["rt4chart.batch"],
    ["rt4chart.bench", "rt4chart.insights", "rt4chart.runs"],
    ["rt4chart.cli"],
]
__doc__ += "\n".join("    " + " | ".join(layer) for layer in LAYERS)
APP_MAY_NOT_IMPORT = ("rt4chart.cli",)


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path, package: str = "rt4chart") -> dict[str, set[str]]:
    """Module -> the package's modules it imports (anywhere in the file)."""
    files = {module_name(p, root): p for p in (root / package).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            edges.update(t for t in targets if t in files and t != name)
        graph[name] = edges
    return graph


def room_of(module: str) -> tuple[int, str] | None:
    for level, layer in enumerate(LAYERS):
        for room in layer:
            if module == room or module.startswith(room + "."):
                return level, room
    return None


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def violations(root: Path) -> list[str]:
    """Every broken rule of the contract, in words."""
    graph = import_graph(root)
    problems = [f"import cycle: {' <-> '.join(c)}" for c in cycles(graph)]
    for module, edges in sorted(graph.items()):
        mine = room_of(module)
        if module == "rt4chart" or module == "rt4chart.__main__":
            continue
        if mine is None:
            problems.append(f"{module} belongs to no room of the layer contract")
            continue
        for target in sorted(edges):
            theirs = room_of(target)
            if theirs is None or theirs[1] == mine[1] or target == "rt4chart":
                continue
            if theirs[0] > mine[0]:
                problems.append(f"upward import: {module} ({mine[1]}) imports {target} ({theirs[1]})")
            elif theirs[0] == mine[0]:
                problems.append(f"sibling import: {module} ({mine[1]}) imports {target} ({theirs[1]})")
    for page in [root / "app.py", *sorted((root / "app_pages").glob("*.py"))]:
        if not page.exists():
            continue
        for node in ast.walk(ast.parse(page.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(APP_MAY_NOT_IMPORT):
                problems.append(f"{page.name} imports {node.module}: the app calls the library, not the CLI")
            if isinstance(node, ast.Attribute) and node.attr == "session_state" and page.name != "state.py":
                problems.append(f"{page.name}:{node.lineno} uses st.session_state: every session key lives in "
                                "app_pages/state.py")
    return problems


def test_the_package_keeps_its_layer_contract():
    assert violations(ROOT) == []


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "rt4chart", tmp_path / "rt4chart", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_an_upward_import_fails_the_contract_even_inside_a_function(tmp_path):
    root = _copy(tmp_path)
    target = root / "rt4chart" / "core" / "config.py"
    target.write_text(target.read_text() + "\n\ndef _late():\n    from rt4chart.store import Store  # noqa\n")
    found = violations(root)
    assert "upward import: rt4chart.core.config (rt4chart.core) imports rt4chart.store (rt4chart.store)" in found


def test_a_cycle_inside_one_room_fails_the_contract(tmp_path):
    root = _copy(tmp_path)
    target = root / "rt4chart" / "text" / "lexicon.py"
    target.write_text(target.read_text() + "\nfrom rt4chart.text import retrieval  # noqa\n")
    found = violations(root)
    assert len(found) == 1 and found[0].startswith("import cycle: ")
    assert {"rt4chart.text.lexicon", "rt4chart.text.retrieval"} <= set(found[0].removeprefix("import cycle: ").split(" <-> "))


def test_a_sibling_import_and_a_module_outside_every_room_fail_the_contract(tmp_path):
    root = _copy(tmp_path)
    (root / "rt4chart" / "stray.py").write_text("")
    target = root / "rt4chart" / "data" / "columns.py"
    target.write_text(target.read_text() + "\nimport rt4chart.auditing.scores  # noqa\n")
    assert violations(root) == [
        "sibling import: rt4chart.data.columns (rt4chart.data) imports rt4chart.auditing.scores (rt4chart.auditing)",
        "rt4chart.stray belongs to no room of the layer contract"]


def test_only_the_store_writes_sql():
    """The run store owns its tables: no module outside `rt4chart/store` imports SQLAlchemy or the schema."""
    outside = []
    for path in (ROOT / "rt4chart").rglob("*.py"):
        if path.relative_to(ROOT / "rt4chart").parts[0] == "store":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n.split(".")[0] == "sqlalchemy" or n.startswith("rt4chart.store.schema") for n in names):
                outside.append(str(path.relative_to(ROOT)))
    assert outside == []


def test_a_page_that_keeps_its_own_session_key_fails_the_contract(tmp_path):
    root = _copy(tmp_path)
    shutil.copytree(ROOT / "app_pages", root / "app_pages", ignore=shutil.ignore_patterns("__pycache__"))
    assert violations(root) == []
    page = root / "app_pages" / "metrics.py"
    lines = page.read_text().splitlines()
    page.write_text("\n".join(lines + ["st.session_state['mine'] = 1"]) + "\n")
    assert violations(root) == [f"metrics.py:{len(lines) + 1} uses st.session_state: every session key lives in "
                                "app_pages/state.py"]
