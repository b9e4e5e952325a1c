"""Curator packages edited with sqlite3 in ways tests/teamwork does not plant: audit rows
deleted, re-timed or re-attributed, samples deleted or added, tags, notes and boxes
changed without an audit row. Each is refused naming the file and nothing of it is
merged; renamed or VACUUMed packages merge as themselves, and a copy of one curator's
package under another's name is reported as that curator's, already merged."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from core.teamwork.merge import merge_packages
from tests.teamwork.team_helpers import (
    raw,
    state,
    worked_team,
)


def _sql(*statements: str) -> Callable[[Path], None]:
    def tamper(path: Path) -> None:
        conn = raw(path)
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                    ).fetchall():
            conn.execute(f"DROP TRIGGER {name}")
        conn.execute("PRAGMA foreign_keys = OFF")
        for sql in statements:
            conn.execute(sql)
        conn.close()
    return tamper


REFUSED: dict[str, tuple[Callable[[Path], None], str]] = {
    "audit_deleted": (_sql("DELETE FROM audit_log WHERE field = 'prompt'"),
                      "changed, added or moved"),
    "last_audit_deleted": (_sql("DELETE FROM audit_log WHERE id = (SELECT max(id) FROM "
                                "audit_log)"), "removed outside"),
    "audit_retimed": (_sql("UPDATE audit_log SET at = '2020-01-01T00:00:00Z' WHERE "
                           "field = 'quality'"), "changed, added or moved"),
    "audit_actor": (_sql("UPDATE audit_log SET actor = 'Bob'"), "changed, added or moved"),
    "sample_deleted": (_sql("DELETE FROM samples WHERE id = 's1'"), "base MAC"),
    "sample_added": (_sql("INSERT INTO samples(id, prompt, original_prompt, split, quality, "
                          "created_at, modified_at) VALUES ('zz', 'x', 'x', 'text-to-image', "
                          "'Benchmark', '2020', '2020')"), "sample 'zz' was added"),
    "tag_added": (_sql("INSERT INTO sample_tags(sample_id, tag) VALUES ('s1', 'evil')"),
                  "sample s1: its tags"),
    "notes_set": (_sql("UPDATE samples SET notes = '=cmd' WHERE id = 's1'"),
                  "sample s1: its notes"),
    "prompt_blob": (_sql("UPDATE samples SET prompt = CAST(prompt AS BLOB) WHERE id = 's1'"),
                    "sample s1: its prompt"),
    "audit_blob": (_sql("UPDATE audit_log SET new = CAST(new AS BLOB)"),
                   "changed, added or moved"),
    "box_moved": (_sql("UPDATE sample_images SET bbox_x = 1, bbox_y = 1, bbox_w = 2, "
                       "bbox_h = 2 WHERE sample_id = 's1'"), "sample s1: its images"),
}


@pytest.fixture
def team(tmp_path: Path) -> Iterator[tuple[Any, Path, Path]]:
    project, alice, bob = worked_team(tmp_path, tag=True)
    yield project, alice, bob
    project.close()


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_tampered_package_is_refused_naming_the_file(team: Any, case: str) -> None:
    project, alice, bob = team
    tamper, reason = REFUSED[case]
    if case in ("sample_deleted", "tag_added", "notes_set", "box_moved", "prompt_blob"):
        conn = sqlite3.connect(alice)  # the sample must be Alice's for the check to apply
        assert conn.execute("SELECT count(*) FROM samples WHERE id = 's1'").fetchone()[0] == 1
        conn.close()
    tamper(alice)
    results, refused = merge_packages(project, [alice])
    assert results == [] and len(refused) == 1
    assert refused[0].startswith(f"{alice.name}: edited outside Winnow's Curate, nothing "
                                 "merged") and reason in refused[0]
    before = state(project)
    results, refused = merge_packages(project, [bob])  # the honest one still merges
    assert len(results) == 1 and refused == [] and state(project) != before


def test_renamed_and_vacuumed_packages_merge_as_themselves(team: Any) -> None:
    project, alice, bob = team
    tmp = alice.with_suffix(".tmp")
    alice.rename(tmp)
    bob.rename(alice)
    tmp.rename(bob)
    conn = raw(bob)
    conn.execute("VACUUM")
    conn.close()
    results, refused = merge_packages(project, [alice, bob])
    assert refused == [] and {r.curator for r in results} == {"Alice", "Bob"}
    assert {Path(r.path).name: r.curator for r in results} == {alice.name: "Bob",
                                                                bob.name: "Alice"}
    assert sum(r.applied for r in results) == 4


def test_a_copy_under_another_curators_name_is_that_curators(team: Any) -> None:
    project, alice, bob = team
    shutil.copy(alice, bob)
    results, refused = merge_packages(project, [alice, bob])
    assert refused == []
    assert [(r.curator, r.already) for r in results] == [("Alice", False), ("Alice", True)]
