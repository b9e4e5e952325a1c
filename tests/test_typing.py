"""Type checking in CI (issue #16, ADR 150): mypy over ``core``, ``ui`` and ``app`` with
the configuration in pyproject.toml finds no error.

mypy runs as a subprocess with its cache in a temporary folder, so every run is cold and
nothing a developer's own ``.mypy_cache`` holds can hide an error (about 10-20 s here).
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _mypy(args: list[str], cwd: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(cache), "--no-color-output", "--no-error-summary", *args],
        cwd=cwd, capture_output=True, text=True, timeout=280)


def test_mypy_finds_no_error_in_core_ui_and_app(tmp_path: Path) -> None:
    done = _mypy([], ROOT, tmp_path / "cache")
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert done.returncode == 0 and errors == [], (
        f"mypy found {len(errors)} error(s):\n{done.stdout}{done.stderr}")


def test_the_configuration_checks_what_issue_16_asks() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert sorted(config["packages"]) == ["app", "core", "ui"]
    assert config["check_untyped_defs"] and config["no_implicit_optional"]
    core = [o for o in config["overrides"] if "core.*" in o["module"]]
    assert len(core) == 1 and core[0]["disallow_untyped_defs"] and core[0]["warn_return_any"]
    # nothing of ours is silenced, but for the demo until its move lands (pyproject says so)
    silenced = [m for o in config["overrides"] if o.get("ignore_errors") for m in o["module"]]
    assert all(m.startswith("core.demo") for m in silenced), silenced


def test_the_configuration_catches_what_it_should(tmp_path: Path) -> None:
    """Not a vacuous pass: under the same configuration an untyped core function and a
    type error inside an untyped ui function are reported."""
    for package, body in (("core", "def untyped(x):\n    return x\n"),
                          ("ui", "def untyped():\n    return 1 + ''\n")):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
        (tmp_path / package / "probe.py").write_text(body)
    done = _mypy(["core/probe.py", "ui/probe.py"], tmp_path, tmp_path / "cache")
    assert "core/probe.py:1: error: Function is missing a type annotation" in done.stdout
    assert "ui/probe.py:2: error: Unsupported operand types" in done.stdout, done.stdout


def test_every_type_ignore_names_its_code_and_says_why() -> None:
    """An ignore is ``# type: ignore[code]`` with a reason: a comment after it on the line,
    or a comment line just above (ADR 150). core.demo* waits for its move (pyproject)."""
    bad = []
    for top in ("core", "ui", "app"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("core/demo"):
                continue
            lines = path.read_text(encoding="utf-8").splitlines()
            for k, line in enumerate(lines):
                if "type: ignore" not in line:
                    continue
                after = line.split("type: ignore", 1)[1]
                named = after.startswith("[")
                reason = "#" in after or (k > 0 and lines[k - 1].strip().startswith("#"))
                if not (named and reason):
                    bad.append(f"{rel}:{k + 1}: {line.strip()}")
    assert bad == [], "\n".join(bad)
