"""Modules stay small and the stored time stamp has one source (ADR 224, 227).

Checked on the source text, so a new module over the limit, or a new copy of the
clock, is named here with its file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: the lines a module in core/, ui/ or app/ may have (the project's ~500-line rule)
MAX_LINES = 500
#: the one function that makes the time stamp stored in projects and rater files
CLOCK = ("core/store/project.py", "now_iso")


def _modules() -> list[Path]:
    return sorted(p for top in ("core", "ui", "app") for p in (REPO / top).rglob("*.py"))


def test_no_module_in_core_ui_or_app_is_over_the_line_limit() -> None:
    over = [f"{p.relative_to(REPO)}: {n} lines" for p in _modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert over == [], (f"over {MAX_LINES} lines (split at a seam, ADR 227): "
                        + "; ".join(over))


def _is_clock_call(node: ast.expr) -> bool:
    """``now_iso()`` or ``datetime.now(...).isoformat(...)``."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name):
        return func.id == "now_iso"
    return (isinstance(func, ast.Attribute) and func.attr == "isoformat"
            and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Attribute) and func.value.func.attr == "now")


def _clock_copies(path: Path, rel: str) -> list[str]:
    """Functions without parameters that only return the current time as text: a copy
    of (or a wrapper around) the clock."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), rel)):
        if not isinstance(node, ast.FunctionDef) or node.args.args or (rel, node.name) == CLOCK:
            continue
        body = [s for s in node.body if not isinstance(s, ast.Import | ast.ImportFrom)
                and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if (len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None
                and _is_clock_call(body[0].value)):
            found.append(f"{rel}:{node.lineno} {node.name}()")
    return found


def test_the_stored_time_stamp_comes_from_one_function() -> None:
    copies = [c for p in _modules() for c in _clock_copies(p, str(p.relative_to(REPO)))]
    assert copies == [], ("a copy of the clock (use core.store.project.now_iso): "
                          + ", ".join(copies))
    assert (REPO / CLOCK[0]).read_text(encoding="utf-8").count(f"def {CLOCK[1]}(") == 1


def test_the_split_modules_hand_out_the_names_callers_import() -> None:
    """The old import paths still work and give the very same objects."""
    from app import cli_stats, cli_stats_args
    from core.imaging import release, release_files
    from core.ingest import record_fields, records
    from core.rating import session_file, session_schema

    assert release.metadata_found is release_files.metadata_found
    assert release.write_release is release_files.write_release
    assert release.EncodeError is release_files.EncodeError
    assert session_file.SessionFileError is session_schema.SessionFileError
    assert session_file.connect is session_schema.connect
    assert session_file.FORMAT_VERSION == session_schema.FORMAT_VERSION
    assert records.RecordError is record_fields.RecordError
    assert records.type_name is record_fields.type_name
    assert cli_stats.probability is cli_stats_args.probability
