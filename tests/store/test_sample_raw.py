"""Migration 13 (ADR 027): a sample's imported line and its hash move from ``samples`` into
``sample_raw``; data moved exactly, every earlier schema opens, read-only opens change
nothing, and a process killed at any point of the migration leaves version 12 intact."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from core.store import SCHEMA_VERSION, Project
from core.store.project import APPLICATION_ID
from core.store.schema import MIGRATIONS, has_sample_raw

REPO = Path(__file__).resolve().parents[2]

#: raw lines as the importer keeps them, with what a byte-exact copy must survive
RAWS = [
    '{"id":"s1","prompt":"a red fox"}',
    '{"id":"s2","prompt":"zürich 🔥 \\"quoted\\" \\u0000 nul"}',
    "x" * 5000,  # longer than a WITHOUT ROWID row keeps on its page: overflow pages
    "",
]


def _old_project(path: Path, version: int, n: int = 40) -> list[tuple[Any, ...]]:
    """A project at schema ``version`` (< 13) with posts and samples carrying ``raw``;
    returns its (rowid, id, raw, raw_hash) sample rows."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA journal_mode = WAL")
    for migration in MIGRATIONS[:version]:
        migration(conn)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("BEGIN")
    for k in range(n):
        conn.execute("INSERT INTO posts(id, text, raw, raw_hash, imported_at) VALUES "
                     "(?, ?, ?, ?, 'now')", (f"p{k}", f"post {k} fox", f"praw{k}", f"ph{k}"))
    for k in range(n):
        raw = RAWS[k % len(RAWS)] if k % 5 else None  # every fifth made in Winnow: none
        digest = None if raw is None else hashlib.sha1(raw.encode()).hexdigest()
        conn.execute("INSERT INTO samples(id, post_id, prompt, original_prompt, raw, raw_hash, "
                     "created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?, 'now', 'now')",
                     (f"s{k:03d}", f"p{k}", f"cat number {k}", f"cat number {k}", raw, digest))
        conn.execute("INSERT INTO sample_images(sample_id, role, position, ref) VALUES "
                     "(?, 'output', 0, 'x.png')", (f"s{k:03d}",))
        conn.execute("INSERT INTO sample_tags(sample_id, tag) VALUES (?, 'style')",
                     (f"s{k:03d}",))
        conn.execute("INSERT INTO feedback(sample_id, position, text) VALUES (?, 0, 'nice')",
                     (f"s{k:03d}",))
    conn.execute("DELETE FROM samples WHERE id = 's003'")  # rowids with a gap
    conn.execute("COMMIT")
    rows = conn.execute("SELECT rowid, id, raw, raw_hash FROM samples ORDER BY rowid").fetchall()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return rows


def _moved(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    return conn.execute("SELECT s.rowid, s.id, r.raw, r.raw_hash FROM samples s LEFT JOIN "
                        "sample_raw r ON r.sample_id = s.id ORDER BY s.rowid").fetchall()


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]


def test_the_migration_moves_raw_exactly_and_keeps_rowids_children_and_search(
        tmp_path: Path) -> None:
    path = tmp_path / "v12.winnow"
    before = _old_project(path, 12)
    posts = sqlite3.connect(path).execute("SELECT * FROM posts ORDER BY id").fetchall()
    with Project.open(path) as p:
        conn = p.conn
        assert p.schema_version == SCHEMA_VERSION >= 13 and has_sample_raw(conn)
        assert _moved(conn) == before  # same rowid, id, raw and hash, byte for byte
        assert "raw" not in _columns(conn, "samples")
        assert "raw_hash" not in _columns(conn, "samples")
        # a row only where there was something to keep
        assert conn.execute("SELECT count(*) FROM sample_raw").fetchone()[0] == sum(
            1 for r in before if r[2] is not None)
        assert conn.execute("SELECT * FROM posts ORDER BY id").fetchall() == posts
        for table in ("sample_images", "sample_tags", "feedback"):
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == len(before)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        # the search indexes are keyed by the samples' rowids: still consistent
        conn.execute("INSERT INTO samples_fts(samples_fts, rank) VALUES ('integrity-check', 1)")
        conn.execute("INSERT INTO sample_search(sample_search, rank) "
                     "VALUES ('integrity-check', 1)")
        hits = conn.execute("SELECT s.id FROM sample_search JOIN samples s ON s.rowid = "
                            "sample_search.rowid WHERE sample_search MATCH '\"number 17\"'"
                            ).fetchall()
        assert hits == [("s017",)]
        # deleting a sample takes its line with it
        with p.transaction() as c:
            c.execute("DELETE FROM samples WHERE id = 's001'")
        assert conn.execute("SELECT 1 FROM sample_raw WHERE sample_id = 's001'").fetchone() \
            is None


@pytest.mark.parametrize("version", range(1, 13))
def test_a_project_of_every_earlier_schema_opens_with_its_lines(tmp_path: Path,
                                                                version: int) -> None:
    path = tmp_path / f"v{version}.winnow"
    before = _old_project(path, version, n=12)
    with Project.open(path) as p:
        assert p.schema_version == SCHEMA_VERSION
        assert _moved(p.conn) == before


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_version_12_project_opened_read_only_is_read_as_it_is(tmp_path: Path) -> None:
    from core.curate.detail import load_sample
    from core.curate.queries import SampleLister
    from core.selection import SampleFilter

    path = tmp_path / "v12.winnow"
    _old_project(path, 12, n=10)
    files = {f.name: _digest(f) for f in tmp_path.iterdir()}
    with Project.open(path, readonly=True) as p:
        assert p.schema_version == 12 and not has_sample_raw(p.conn)
        ids = SampleLister(p).ordered_ids(SampleFilter(text="cat"))
        assert len(ids) == 9
        assert load_sample(p, ids[0]).prompt.startswith("cat number")
    assert {f.name: _digest(f) for f in tmp_path.iterdir()} == files  # nothing changed


def _assert_still_version_12(path: Path, before: list[tuple[Any, ...]]) -> None:
    """The file is the undamaged version-12 project it was, lines in their rows."""
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 12
        assert not has_sample_raw(conn)
        assert conn.execute("SELECT rowid, id, raw, raw_hash FROM samples ORDER BY rowid"
                            ).fetchall() == before
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


KILL_CHILD = r"""
import os, signal, sys
import core.store.schema as schema
from core.store import Project

at = int(sys.argv[2])
migrate = schema.MIGRATIONS[12]
calls = [0]

def die():
    calls[0] += 1
    if calls[0] == at:
        os.kill(os.getpid(), signal.SIGKILL)
    return 0

def killed_midway(conn):
    if at == 0:  # every statement done, the transaction not committed
        migrate(conn)
        os.kill(os.getpid(), signal.SIGKILL)
    conn.set_progress_handler(die, 50)  # every 50 SQLite VM instructions
    migrate(conn)

schema.MIGRATIONS[12] = killed_midway
Project.open(sys.argv[1])
print("migrated without being killed")
"""


#: progress-handler calls at which the child dies; with 200 samples the statements end
#: near calls 8 (CREATE), 98 (copy), 287 and 472 (the two DROP COLUMNs), 796 and 1119
#: (the rows moved past the largest rowid, and back)
@pytest.mark.parametrize("at", [0, 1, 5, 50, 150, 250, 400, 600, 900, 1100])
def test_kill_9_during_the_migration_leaves_version_12_and_the_next_open_migrates(
        tmp_path: Path, at: int) -> None:
    path = tmp_path / "v12.winnow"
    before = _old_project(path, 12, n=200)
    done = subprocess.run([sys.executable, "-c", KILL_CHILD, str(path), str(at)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == -9, done.stdout + done.stderr
    _assert_still_version_12(path, before)
    with Project.open(path) as p:
        assert p.schema_version == SCHEMA_VERSION and _moved(p.conn) == before


def test_rowids_near_the_limit_are_left_in_place(tmp_path: Path) -> None:
    """Rows are compacted by moving them past the largest rowid and back; a file whose
    rowids could overflow that (never written by Winnow) keeps them as they are."""
    path = tmp_path / "v12.winnow"
    _old_project(path, 12, n=5)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("INSERT INTO samples(rowid, id, raw, raw_hash, created_at, modified_at) "
                  "VALUES (9223372036854775800, 'big', 'r', 'h', 'now', 'now')")
    before = conn.execute("SELECT rowid, id, raw, raw_hash FROM samples ORDER BY rowid"
                          ).fetchall()
    conn.close()
    with Project.open(path) as p:
        assert _moved(p.conn) == before


def test_re_import_matches_lines_stored_before_and_after_the_migration(tmp_path: Path) -> None:
    """Re-import finds a sample's line by ``raw_hash`` whichever schema stored it: the
    same line is unchanged, a changed one replaces the line (or, for a sample a curator
    edited, refreshes only the original prompt and the line)."""
    import json

    from core.curate import bulk
    from core.ingest.importer import import_jsonl
    from tests.store.schema_helpers import undo_m013, undo_m014, undo_m015

    lines = [{"id": f"s{k}", "prompt": f"a cat number {k}", "output_images": []}
             for k in range(4)]
    src = tmp_path / "lines.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    path = tmp_path / "p.winnow"
    with Project.create(path) as p:
        assert import_jsonl(p, src, fetch_images=False).imported == 4
        stored = p.conn.execute("SELECT * FROM sample_raw ORDER BY sample_id").fetchall()
        with p.transaction() as conn:
            bulk.write_field(p, "prompt", ["s1"], "a curated cat")
            undo_m015(conn)
            undo_m014(conn)
            undo_m013(conn)
            conn.execute("PRAGMA user_version = 12")
    with Project.open(path) as p:
        assert p.conn.execute("SELECT * FROM sample_raw ORDER BY sample_id").fetchall() \
            == stored
        report = import_jsonl(p, src, fetch_images=False)
        assert (report.imported, report.updated, report.unchanged) == (0, 0, 4)
        lines[0]["prompt"] = "a dog"
        lines[1]["prompt"] = "a cat renamed"
        src.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
        report = import_jsonl(p, src, fetch_images=False)
        assert (report.imported, report.updated, report.unchanged) == (0, 2, 2)
        rows = dict(p.conn.execute("SELECT sample_id, raw FROM sample_raw"))
        assert '"a dog"' in rows["s0"] and '"a cat renamed"' in rows["s1"]
        assert p.conn.execute("SELECT prompt, original_prompt FROM samples WHERE id = 's1'"
                              ).fetchone() == ("a curated cat", "a cat renamed")
        assert p.conn.execute("SELECT count(*) FROM sample_raw").fetchone()[0] == 4


def test_a_full_disk_during_the_migration_is_said_and_leaves_version_12(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite runs out of pages midway (``max_page_count`` a few pages above the file's
    size): the open is refused as a full disk, nothing moved, the lock is released, and
    the next open with room migrates."""
    import core.store.schema as schema
    from core.store import DiskFullError

    path = tmp_path / "v12.winnow"
    before = _old_project(path, 12, n=300)
    migrations = schema.MIGRATIONS
    migrate = migrations[12]

    def cramped(conn: sqlite3.Connection) -> None:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + 3}")
        migrate(conn)

    monkeypatch.setattr(schema, "MIGRATIONS", [*migrations[:12], cramped])
    monkeypatch.setattr("core.store.project.MIGRATIONS", schema.MIGRATIONS)
    with pytest.raises(DiskFullError, match="disk holding v12.winnow is full"):
        Project.open(path)
    _assert_still_version_12(path, before)
    monkeypatch.undo()
    with Project.open(path) as p:
        assert _moved(p.conn) == before
