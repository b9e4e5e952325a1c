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
