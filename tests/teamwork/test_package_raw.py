"""Migration 13 (ADR 027) and what leaves a project: a curator package's base document
(which its MAC covers, ``raw`` included) and a benchmark export are the same bytes whether
the samples' lines are kept in their rows (schema 12) or beside them, and packages made
before schema 13 still merge — read as they are, or migrated by the curator's Winnow."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from core.curate.export import export_benchmark
from core.store import SCHEMA_VERSION, Project
from core.store.schema import has_sample_raw
from core.teamwork.merge import merge_package, merge_packages
from core.teamwork.package import base_document
from tests.store.schema_helpers import undo_m013, undo_m014, undo_m015
from tests.teamwork.team_helpers import Curator, make_project, raw, state, worked_team


def _as_version_12(path: Path) -> None:
    """Rewrite a current file as Winnow before m013 left it."""
    conn = raw(path)
    conn.execute("BEGIN")
    undo_m015(conn)
    undo_m014(conn)
    undo_m013(conn)
    conn.execute("PRAGMA user_version = 12")
    conn.execute("COMMIT")
    conn.close()


def _document(path: Path) -> bytes:
    conn = sqlite3.connect(path.as_uri() + "?mode=ro", uri=True)
    try:
        return base_document(conn)
    finally:
        conn.close()


def _tree(folder: Path) -> dict[str, str]:
    return {str(f.relative_to(folder)): hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(folder.rglob("*")) if f.is_file()}


@pytest.fixture
def team(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Alice labelled s2 and rewrote s4's prompt, Bob labelled s5 (team_helpers)."""
    project, alice, bob = worked_team(tmp_path)
    yield project, alice, bob
    project.close()


def test_a_package_carries_its_samples_lines_exactly(team) -> None:
    project, alice, _bob = team
    lines = project.conn.execute("SELECT sample_id, raw, raw_hash FROM sample_raw "
                                 "ORDER BY sample_id").fetchall()
    assert lines and all(r[1] and r[2] for r in lines)  # imported: every sample has one
    conn = raw(alice)
    try:
        assert conn.execute("SELECT sample_id, raw, raw_hash FROM sample_raw "
                            "ORDER BY sample_id").fetchall() == lines
    finally:
        conn.close()


def test_the_base_document_is_the_same_bytes_in_either_layout(team, tmp_path: Path) -> None:
    _project, alice, _bob = team
    old = tmp_path / "old-layout.winnow"
    shutil.copyfile(alice, old)
    _as_version_12(old)
    conn = raw(old)
    assert not has_sample_raw(conn)
    assert conn.execute("SELECT count(*) FROM samples WHERE raw IS NOT NULL").fetchone()[0] > 0
    conn.close()
    assert _document(old) == _document(alice)


def test_a_package_made_before_schema_13_merges_read_as_it_is(team) -> None:
    project, alice, _bob = team
    _as_version_12(alice)
    files = _tree(alice.parent)
    result = merge_package(project, alice)
    assert result.applied == 2 and not result.already
    assert project.conn.execute("SELECT quality FROM samples WHERE id = 's2'").fetchone()[0] \
        == "Benchmark"
    assert _tree(alice.parent) == files  # read-only: the package was not migrated


def test_a_package_made_before_schema_13_migrated_by_its_curator_still_merges(team) -> None:
    project, alice, _bob = team
    _as_version_12(alice)
    with Curator(alice) as c:  # the curator's newer Winnow migrates it, then they work
        assert c.project.schema_version == SCHEMA_VERSION and has_sample_raw(c.project.conn)
        c.label("s5", "Trash")
    _results, refused = merge_packages(project, [alice])
    assert refused == []
    assert project.conn.execute("SELECT quality FROM samples WHERE id = 's5'").fetchone()[0] \
        == "Trash"


@pytest.mark.parametrize("layout", ["current", "before 13"])
def test_a_line_changed_in_a_package_is_refused(team, layout: str) -> None:
    project, alice, _bob = team
    if layout == "before 13":
        _as_version_12(alice)
    table, key = ("sample_raw", "sample_id") if layout == "current" else ("samples", "id")
    conn = raw(alice)
    conn.execute(f"UPDATE {table} SET raw = raw || ' ' WHERE {key} = 's1'")
    conn.close()
    before = state(project)
    results, refused = merge_packages(project, [alice])
    assert results == [] and len(refused) == 1 and alice.name in refused[0]
    assert state(project) == before


def test_an_export_is_the_same_bytes_after_the_migration(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    with project.transaction() as conn:
        conn.execute("UPDATE samples SET quality = 'Benchmark'")
    export_benchmark(project, tmp_path / "now")
    path = project.path
    project.close()
    _as_version_12(path)
    with Project.open(path) as migrated:
        assert migrated.schema_version == SCHEMA_VERSION
        export_benchmark(migrated, tmp_path / "after")
    now, after = _tree(tmp_path / "now"), _tree(tmp_path / "after")
    # the folder's record of what Winnow wrote names the folder and the time: not data
    assert now.pop(".winnow-files.jsonl") and after.pop(".winnow-files.jsonl")
    assert "samples.jsonl" in now and now == after
