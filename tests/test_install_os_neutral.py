"""core runs on Windows and macOS too: it imports with ``fcntl`` unavailable and calls no
POSIX-only API (issue 15, item 5).
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

from test_layering import all_core_modules

REPO = Path(__file__).resolve().parent.parent
#: modules that exist only on POSIX (or only on Windows)
POSIX_MODULES = {"fcntl", "termios", "pwd", "grp", "resource", "posix", "pty", "tty",
                 "signal", "crypt", "syslog", "msvcrt", "winreg"}
#: os functions missing on Windows
POSIX_OS = {"fork", "forkpty", "setsid", "killpg", "getuid", "geteuid", "getgid", "getpgid",
            "setuid", "mkfifo", "chown", "lchown", "statvfs", "nice", "getloadavg", "sync",
            "wait3", "wait4", "uname"}
#: where a POSIX-only call is guarded by an ``os.name`` or ``hasattr`` check (file: names)
GUARDED = {"core/files.py": {"kill", "sync"}, "core/store/lock.py": {"msvcrt"}}


def _import_everything_without_fcntl() -> dict[str, list[str]]:
    code = (
        "import importlib, json, sys, traceback\n"
        "sys.modules['fcntl'] = None  # as on Windows: import fcntl fails\n"
        f"mods = {all_core_modules()!r}\n"
        "failed = {}\n"
        "for m in mods:\n"
        "    try:\n"
        "        importlib.import_module(m)\n"
        "    except BaseException as exc:\n"
        "        tb = traceback.extract_tb(exc.__traceback__)\n"
        "        failed[m] = [type(exc).__name__, getattr(exc, 'name', None) or '',\n"
        "                     tb[-1].filename.replace('\\\\', '/') if tb else '']\n"
        "        for k in [k for k in sys.modules if k.startswith('core')]:\n"
        "            sys.modules.pop(k)  # retry each module from scratch\n"
        "print(json.dumps(failed))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PATH": "", "PYTHONPATH": str(REPO)}, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_core_module_imports_without_fcntl() -> None:
    failed = _import_everything_without_fcntl()
    assert failed == {}, f"core modules that need a POSIX-only module: {failed}"


def _calls(path: Path) -> list[tuple[str, int, str]]:
    """(kind, line, name) of every POSIX-only import or os.<call> in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [("import", node.lineno, a.name.split(".")[0]) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(("import", node.lineno, node.module.split(".")[0]))
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "os":
            out.append(("os", node.lineno, node.attr))
    return out


def test_core_calls_no_posix_only_api() -> None:
    offenders = []
    for path in sorted((REPO / "core").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        for kind, line, name in _calls(path):
            bad = name in POSIX_MODULES if kind == "import" else name in POSIX_OS | {"kill"}
            if bad and name not in GUARDED.get(rel, ()):
                offenders.append(f"{rel}:{line}: {kind} {name}")
    assert offenders == []


def test_core_has_no_hard_coded_posix_paths() -> None:
    literal = re.compile(r"""["'](/(tmp|home|usr|var|etc|dev|proc)\b|~/)""")
    hits = [f"{p.relative_to(REPO).as_posix()}:{n}" for p in sorted((REPO / "core").rglob("*.py"))
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if literal.search(line) and not line.lstrip().startswith("#")]
    assert hits == []
