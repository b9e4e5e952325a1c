"""``core`` must import no Qt and nothing from ``ui``/``app`` (checked in a fresh interpreter)."""

from __future__ import annotations

import ast
import json
import pathlib
import pkgutil
import subprocess
import sys

import core

FORBIDDEN = ("PySide6", "shiboken6", "qasync", "superqt", "PyQt5", "PyQt6", "ui", "app",
             "torch", "transformers")


def all_core_modules() -> list[str]:
    names = ["core"]
    for info in pkgutil.walk_packages(core.__path__, prefix="core."):
        names.append(info.name)
    return names


def test_core_imports_no_qt_ui_or_app() -> None:
    modules = all_core_modules()
    assert "core.store.project" in modules and "core.ingest.importer" in modules
    code = (
        "import importlib, json, sys\n"
        f"mods = {modules!r}\n"
        "for m in mods: importlib.import_module(m)\n"
        f"bad = sorted(k for k in sys.modules if k.split('.')[0] in {FORBIDDEN!r})\n"
        "print(json.dumps(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PATH": "", "PYTHONPATH": str(core.__path__[0] + "/..")})
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded == [], f"core pulled in forbidden modules: {loaded}"


def test_ui_does_not_import_app() -> None:
    import pathlib
    import re

    ui_dir = pathlib.Path(core.__path__[0]).parent / "ui"
    offenders = [str(p) for p in ui_dir.rglob("*.py")
                 if re.search(r"^\s*(from|import)\s+app(\.|\s)", p.read_text(), re.M)]
    assert offenders == []


#: (file, what) pairs allowed to break the rule below, each with its reason; empty: none is
SQL_OUTSIDE_CORE_ALLOWED: dict[tuple[str, str], str] = {}


def _sql_uses(path: pathlib.Path, rel: str) -> list[tuple[str, str, int]]:
    """``(file, what, line)`` for each database use the AST of ``path`` shows."""
    found: list[tuple[str, str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(rel, "import sqlite3", node.lineno) for a in node.names
                      if a.name.split(".")[0] == "sqlite3"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sqlite3":
            found.append((rel, "import sqlite3", node.lineno))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("execute", "executemany", "executescript"):
            found.append((rel, f".{node.func.attr}()", node.lineno))
        elif isinstance(node, ast.Attribute) and node.attr == "conn":
            found.append((rel, ".conn", node.lineno))
    return found


def test_sql_lives_in_core() -> None:
    """ui and app never touch the database: no ``sqlite3``, no ``.execute()``, no
    ``project.conn`` (issue #16); they call core functions, which raise
    ``core.store.errors.ProjectError`` rather than sqlite3's errors."""
    root = pathlib.Path(core.__path__[0]).parent
    files = sorted(p for top in ("ui", "app") for p in (root / top).rglob("*.py"))
    assert len(files) > 50
    offenders = [f"{rel}:{line}: {what}" for p in files
                 for rel, what, line in _sql_uses(p, str(p.relative_to(root)))
                 if (rel, what) not in SQL_OUTSIDE_CORE_ALLOWED]
    assert offenders == [], "database work outside core (move it to a core function):\n" \
        + "\n".join(offenders)


def _import_script(modules: list[str], alone: bool) -> str:
    """Python that imports ``modules`` in order (each with no core module loaded before it
    when ``alone``) and prints the ones that failed, as JSON."""
    return (
        "import importlib, json, sys, traceback\n"
        f"failed = []\n"
        f"for m in {modules!r}:\n"
        f"    if {alone!r}:\n"
        "        for k in [k for k in sys.modules if k == 'core' or k.startswith('core.')]:\n"
        "            del sys.modules[k]\n"
        "    try:\n"
        "        importlib.import_module(m)\n"
        "    except Exception:\n"
        "        failed.append(m + ': ' + traceback.format_exc(limit=-1).strip())\n"
        "print(json.dumps(failed))\n"
    )


def test_core_modules_import_alone_and_in_any_order() -> None:
    """Each core module imports first in a fresh interpreter, and all of them in sorted and
    in reverse order: an import cycle shows here as a partly initialised module."""
    modules = sorted(all_core_modules())
    root = str(pathlib.Path(core.__path__[0]).parent)
    for order, alone in ((modules, True), (modules, False), (modules[::-1], False)):
        out = subprocess.run([sys.executable, "-c", _import_script(order, alone)],
                             capture_output=True, text=True, check=True,
                             env={"PATH": "", "PYTHONPATH": root})
        failed = json.loads(out.stdout.strip().splitlines()[-1])
        assert failed == [], "\n".join(failed)


def core_import_graph() -> dict[str, set[str]]:
    """``{module: core modules it imports}``, from every import statement in its source
    (top level, in functions and under ``TYPE_CHECKING`` alike)."""
    root = pathlib.Path(core.__path__[0]).parent
    files = {".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): p
             for p in (root / "core").rglob("*.py")}

    def known(name: str) -> str | None:  # the module a dotted name lives in
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets: set[str | None] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets |= {known(a.name) for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join([*parent, *([node.module] if node.module else [])])
                targets |= {known(f"{base}.{a.name}") for a in node.names}
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_import_cycle_finder_finds_a_cycle() -> None:
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_core_has_no_import_cycles() -> None:
    """No two core modules import each other, directly or round a loop, even lazily: one
    of them then always meets the other half-initialised in some import order (#16)."""
    graph = core_import_graph()
    assert "core.analysis.project_sources" in graph["core.analysis.sources"]  # lazy: seen
    cycles = import_cycles(graph)
    assert cycles == [], "import cycles in core: " + "; ".join(" ↔ ".join(c) for c in cycles)
