"""Rater files with values turned into BLOBs with sqlite3 (same text, another type):
every one is refused at merge naming the file, and `session audit --project` reports
instead of stopping with a traceback (json: 'Object of type bytes', on meta values)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rating"))
import tamper_helpers as th  # noqa: E402

from core.rating.audit import audit_file  # noqa: E402
from core.rating.merge import merge_files  # noqa: E402

FIRST = "WHERE seq = (SELECT min(seq) FROM judgments)"
CASES = {
    "answer": f"UPDATE judgments SET answer = CAST(answer AS BLOB) {FIRST}",
    "uid": f"UPDATE judgments SET uid = CAST(uid AS BLOB) {FIRST}",
    "submitted_at": f"UPDATE judgments SET submitted_at = CAST(submitted_at AS BLOB) {FIRST}",
    "task_id": f"UPDATE judgments SET task_id = CAST(task_id AS BLOB) {FIRST}",
    "time_ms": f"UPDATE judgments SET time_ms = X'31' {FIRST}",
    "mac": "UPDATE judgments SET mac = CAST(mac AS BLOB)",
    "rater": "UPDATE rater SET name = CAST(name AS BLOB)",
    "chain_key": "UPDATE chain SET key = CAST(key AS BLOB)",
    "meta_session": "UPDATE meta SET value = CAST(value AS BLOB) WHERE key = 'session_uid'",
    "meta_slot": "UPDATE meta SET value = CAST(value AS BLOB) WHERE key = 'slot'",
    "meta_settings": "UPDATE meta SET value = CAST(value AS BLOB) WHERE key = 'settings'",
    "options": "UPDATE tasks SET options = CAST(options AS BLOB)",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_blob_values_are_refused_and_audited(rated: Any, case: str) -> None:
    project, (bad, good) = rated
    th.edit(bad, CASES[case])
    results, errors = merge_files(project, [bad, good])
    assert [r.slot for r in results] == ["R2"] and len(errors) == 1
    assert errors[0].startswith(bad.name) and "nothing merged" in errors[0]
    audit = audit_file(bad, project)
    assert audit.to_json()  # a report, not a traceback
