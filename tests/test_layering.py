"""``core`` must import no Qt and nothing from ``ui``/``app`` (checked in a fresh interpreter)."""

from __future__ import annotations

import json
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
