"""Project store: schema, migrations, refusals, locking, durability, audit log."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from core.store import (
    SCHEMA_VERSION,
    NewerProjectError,
    NotAProjectError,
    Project,
    ProjectLockedError,
    ReadOnlyProjectError,
)
from core.store.project import APPLICATION_ID
from core.store.schema import MIGRATIONS


def test_new_project_has_current_schema_wal_and_foreign_keys(tmp_path: Path) -> None:
    with Project.create(tmp_path / "a.winnow") as p:
        assert p.schema_version == SCHEMA_VERSION
        assert p.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert p.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert p.counts() == {"posts": 0, "samples": 0, "images": 0, "audit_entries": 0}
        with pytest.raises(sqlite3.IntegrityError), p.transaction() as conn:
            conn.execute("INSERT INTO samples(id, post_id, created_at, modified_at) "
                         "VALUES ('s', 'no-such-post', 'x', 'x')")


def test_create_refuses_to_clobber(tmp_path: Path) -> None:
    Project.create(tmp_path / "a.winnow").close()
    with pytest.raises(FileExistsError):
        Project.create(tmp_path / "a.winnow")


def test_old_file_is_migrated_forward(tmp_path: Path) -> None:
    path = tmp_path / "old.winnow"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    MIGRATIONS[0](conn)  # a version-1 file: no full-text index yet
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO posts(id, text, imported_at) VALUES ('p1', 'a red fox', 'now')")
    conn.close()
    with Project.open(path) as p:
        assert p.schema_version == SCHEMA_VERSION
        hits = p.conn.execute("SELECT rowid FROM posts_fts WHERE posts_fts MATCH 'fox'").fetchall()
        assert len(hits) == 1  # existing rows were indexed by the migration


def test_newer_file_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "new.winnow"
    Project.create(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(NewerProjectError, match="newer version of Winnow"):
        Project.open(path)
    with pytest.raises(NewerProjectError):
        Project.open(path, readonly=True)
    assert path.read_bytes() == before


def test_not_a_project(tmp_path: Path) -> None:
    junk = tmp_path / "junk.winnow"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(NotAProjectError):
        Project.open(junk)
    other = tmp_path / "other.winnow"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t(x)")
    conn.commit()
    conn.close()
    with pytest.raises(NotAProjectError, match="not a Winnow project"):
        Project.open(other)


def test_second_writer_refused_read_only_allowed(tmp_path: Path) -> None:
    path = tmp_path / "a.winnow"
    Project.create(path).close()
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from core.store import Project\n"
         f"p = Project.open({str(path)!r}); print('open', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(ProjectLockedError, match="already open for writing"):
            Project.open(path)
        with Project.open(path, readonly=True) as ro:
            assert ro.counts()["posts"] == 0
            with pytest.raises(ReadOnlyProjectError), ro.transaction():
                pass
    finally:
        holder.kill()
        holder.wait()
    # the lock dies with its process (even on SIGKILL)
    lock_file = path.with_name(path.name + ".lock")
    assert lock_file.exists()  # the killed holder's file is still there ...
    with Project.open(path):  # ... and is taken over, since its lock died with it
        assert "Winnow (pid" in lock_file.read_text()
    assert not lock_file.exists()  # closed: no lock file left behind (ADR 003)


def test_transaction_rolls_back_as_a_whole(project: Project) -> None:
    with pytest.raises(RuntimeError), project.transaction() as conn:
        conn.execute("INSERT INTO posts(id, text, imported_at) VALUES ('p', 't', 'now')")
        raise RuntimeError("boom")
    assert project.counts()["posts"] == 0


def test_audit_log_is_append_only(project: Project) -> None:
    with project.transaction():
        project.audit("edit", "sample", "s1", "prompt", "old", "new")
    row = project.conn.execute("SELECT actor, field, old, new FROM audit_log").fetchone()
    assert row == ("tester", "prompt", '"old"', '"new"')
    with pytest.raises(sqlite3.IntegrityError, match="append-only"), project.transaction() as c:
        c.execute("UPDATE audit_log SET new = 'x'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"), project.transaction() as c:
        c.execute("DELETE FROM audit_log")
    assert project.counts()["audit_entries"] == 1


def test_assets_are_content_addressed_and_read_only(project: Project) -> None:
    sha, path = project.assets.put(b"abc", "png")
    sha2, path2 = project.assets.put(b"abc", "png")
    assert (sha, path) == (sha2, path2)
    assert path.read_bytes() == b"abc"
    assert not path.stat().st_mode & 0o222
    assert project.assets.find(sha) == path


def test_a_commit_that_fails_leaves_nothing_half_done(tmp_path: Path) -> None:
    """A COMMIT refused by SQLite (here a deferred foreign key; a full disk or an I/O
    error alike) kept the transaction open: the next write then failed with 'cannot start
    a transaction within a transaction', and a later COMMIT would have written the
    refused rows. The transaction is rolled back and the project goes on."""
    project = Project.create(tmp_path / "p.winnow")
    try:
        with pytest.raises(sqlite3.IntegrityError), project.transaction() as conn:
            conn.execute("PRAGMA defer_foreign_keys = ON")
            conn.execute("INSERT INTO sample_tags (sample_id, tag) VALUES ('ghost', 'x')")
            project.audit("edit", "sample", "ghost", "tags", None, ["x"])
        assert not project.conn.in_transaction
        with project.transaction() as conn:  # the next write works
            project.audit("edit", "project", "p", "note", None, "after")
        assert project.conn.execute("SELECT count(*) FROM sample_tags").fetchone()[0] == 0
        audit = project.conn.execute("SELECT entity_id FROM audit_log").fetchall()
        assert ("ghost",) not in audit and ("p",) in audit
    finally:
        project.close()
