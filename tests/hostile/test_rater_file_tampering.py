"""A rater edits a returned file with sqlite3 in ways tests/rating/test_tamper.py does not
plant: reorder, re-time, delete or insert a judgment, strip the MAC chain, swap two files'
ids, re-order a task's options. Each is refused naming the file, nothing of it is merged,
and the honest file beside it merges. Renaming files or VACUUM changes nothing."""

from __future__ import annotations

import json
import sqlite3
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rating"))
import tamper_helpers as th  # noqa: E402

from core.rating.merge import merge_files  # noqa: E402


def _first(path: Path) -> int:
    return int(th.rows(path, "SELECT min(seq) FROM judgments")[0][0])


def reorder(a: Path, b: Path) -> None:
    s1 = _first(a)
    th.edit(a, f"UPDATE judgments SET seq = -1 WHERE seq = {s1}",
            f"UPDATE judgments SET seq = {s1} WHERE seq = {s1 + 1}",
            f"UPDATE judgments SET seq = {s1 + 1} WHERE seq = -1")


def retime(a: Path, b: Path) -> None:
    th.edit(a, "UPDATE judgments SET submitted_at = '2020-01-01T00:00:00.000+00:00' "
               f"WHERE seq = {_first(a)}")


def slower(a: Path, b: Path) -> None:  # to dodge the minimum-time penalty
    th.edit(a, f"UPDATE judgments SET time_ms = 99999 WHERE seq = {_first(a)}")


def delete_middle(a: Path, b: Path) -> None:
    th.edit(a, f"DELETE FROM judgments WHERE seq = {_first(a) + 2}")


def insert_row(a: Path, b: Path) -> None:
    task, at, mac = th.rows(a, "SELECT task_id, submitted_at, mac FROM judgments "
                               "ORDER BY seq DESC LIMIT 1")[0]
    th.edit(a, "INSERT INTO judgments(uid, task_id, answer, time_ms, submitted_at, mac) "
               "VALUES (?,?,?,?,?,?)",
            params=(str(uuid.uuid4()), task, '{"winner": "right"}', 2000, at, mac))


def drop_chain(a: Path, b: Path) -> None:
    th.edit(a, "DROP TABLE chain")


def null_macs(a: Path, b: Path) -> None:
    th.edit(a, "DELETE FROM chain", "UPDATE judgments SET mac = NULL",
            "UPDATE rater SET mac = NULL")


def options_reversed(a: Path, b: Path) -> None:
    task, options = th.rows(a, "SELECT task_id, options FROM tasks LIMIT 1")[0]
    th.edit(a, "UPDATE tasks SET options = ? WHERE task_id = ?",
            params=(json.dumps(list(reversed(json.loads(options)))), task))


def swap_ids(a: Path, b: Path) -> None:
    """Each file claims to be the other (file id and slot in its meta table)."""
    ma, mb = (dict(th.rows(p, "SELECT key, value FROM meta")) for p in (a, b))
    for path, other in ((a, mb), (b, ma)):
        th.edit(path, "UPDATE meta SET value = ? WHERE key = 'file_uid'",
                params=(other["file_uid"],))
        th.edit(path, "UPDATE meta SET value = ? WHERE key = 'slot'", params=(other["slot"],))


REFUSED: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    "reorder": (reorder, "changed, added or moved"),
    "retime": (retime, "changed, added or moved"),
    "slower": (slower, "changed, added or moved"),
    "delete_middle": (delete_middle, "changed, added or moved"),
    "insert_row": (insert_row, "changed, added or moved"),
    "drop_chain": (drop_chain, "key chain is missing"),
    "null_macs": (null_macs, "does not match"),
    "options_reversed": (options_reversed, "its tasks differ"),
}


def _merged(project: Any) -> dict[str, int]:
    return dict(project.conn.execute(
        "SELECT f.slot, count(j.file_uid) FROM rating_files f LEFT JOIN rating_judgments j "
        "ON j.file_uid = f.file_uid GROUP BY f.slot").fetchall())


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_tampering_is_refused_naming_the_file(rated: Any, case: str) -> None:
    project, (bad, good) = rated
    tamper, reason = REFUSED[case]
    tamper(bad, good)
    results, errors = merge_files(project, [bad, good])
    assert [r.slot for r in results] == ["R2"] and len(errors) == 1
    assert errors[0].startswith(f"{bad.name}: ") and reason in errors[0]
    assert "nothing merged" in errors[0]
    assert _merged(project)["R1"] == 0 and _merged(project)["R2"] == results[0].added > 0


def test_swapped_ids_merge_neither_file(rated: Any) -> None:
    project, (a, b) = rated
    swap_ids(a, b)
    results, errors = merge_files(project, [a, b])
    assert results == [] and len(errors) == 2
    assert errors[0].startswith(f"{a.name}: ") and errors[1].startswith(f"{b.name}: ")
    assert all("its tasks differ" in e for e in errors)
    assert set(_merged(project).values()) == {0}


def test_renamed_or_vacuumed_files_merge_as_themselves(rated: Any) -> None:
    """Identity lives inside the file: swapping the names on disk, or VACUUM, is harmless."""
    project, (a, b) = rated
    slots = {th.rows(p, "SELECT value FROM meta WHERE key = 'slot'")[0][0] for p in (a, b)}
    tmp = a.with_suffix(".tmp")
    a.rename(tmp)
    b.rename(a)
    tmp.rename(b)
    conn = sqlite3.connect(a)
    conn.execute("VACUUM")
    conn.close()
    results, errors = merge_files(project, [a, b])
    assert errors == []
    assert {r.slot: r.added for r in results} == _merged(project)
    assert {r.slot for r in results} == slots
    assert merge_files(project, [a, b])[0][0].added == 0  # merging again adds nothing
