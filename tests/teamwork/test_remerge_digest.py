"""A no-op re-merge recognises the very bytes it merged and verified (ADR 144), and
still reads, verifies and refuses a package that changed since."""

from __future__ import annotations

from pathlib import Path

import pytest

import core.teamwork.merge as merge_mod
from core.store import Project
from core.teamwork.merge import merge_package, merge_packages
from core.teamwork.package import package_digest
from tests.store.schema_helpers import undo_m013, undo_m014, undo_m015
from tests.teamwork.team_helpers import Curator, make_project, package_path, raw, split, state


@pytest.fixture
def team(tmp_path: Path):  # type: ignore[no-untyped-def]
    project = make_project(tmp_path)
    report = split(project, tmp_path / "out")
    alice = package_path(report, "Alice")
    with Curator(alice) as c:
        c.label("s2", "Benchmark")
        c.prompt("s4", "a zebra-striped unicorn")
    yield project, alice
    project.close()


class Reads:
    """Counts the packages read (and verified) by merges."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[Path] = []
        real = merge_mod.read_package

        def counting(path: Path):  # type: ignore[no-untyped-def]
            self.paths.append(path)
            return real(path)

        monkeypatch.setattr(merge_mod, "read_package", counting)


def _digest(project: Project, path: Path) -> str | None:
    uid = project.conn.execute("SELECT package_uid FROM team_packages WHERE file_name = ?",
                               (path.name,)).fetchone()[0]
    return project.conn.execute("SELECT merged_digest FROM team_packages WHERE package_uid = ?",
                                (uid,)).fetchone()[0]


def test_the_same_bytes_again_are_not_read_again(team, monkeypatch) -> None:
    project, alice = team
    reads = Reads(monkeypatch)
    first = merge_package(project, alice)
    assert first.applied == 2 and not first.already
    assert _digest(project, alice) == package_digest(alice) is not None
    before = state(project)
    audit = project.conn.execute("SELECT count(*) FROM audit_log").fetchone()[0]
    again = merge_package(project, alice)
    assert again.already and (again.curator, again.package) == (first.curator, first.package)
    assert again.summary().endswith("already merged, nothing new")
    assert reads.paths == [alice]  # read and verified once, at the first merge
    assert state(project) == before
    assert project.conn.execute("SELECT count(*) FROM audit_log").fetchone()[0] == audit


def test_a_package_tampered_after_its_merge_is_refused_as_before(team, monkeypatch) -> None:
    project, alice = team
    merge_package(project, alice)
    conn = raw(alice)
    conn.execute("UPDATE samples SET quality = 'Trash' WHERE id = 's1'")
    conn.close()
    reads = Reads(monkeypatch)
    before = state(project)
    _results, refused = merge_packages(project, [alice])
    assert reads.paths == [alice]  # the changed bytes were read and verified again
    assert len(refused) == 1 and "sample s1: its quality was changed outside Winnow's " \
        "Curate" in refused[0]
    # exactly the refusal of a project that recorded no digest (an earlier Winnow's)
    project.conn.execute("UPDATE team_packages SET merged_digest = NULL")
    assert merge_packages(project, [alice]) == ([], refused)
    assert state(project) == before


def test_a_digest_is_recorded_by_a_re_merge_of_an_older_merge(team, monkeypatch) -> None:
    project, alice = team
    merge_package(project, alice)
    project.conn.execute("UPDATE team_packages SET merged_digest = NULL")  # merged before m012
    reads = Reads(monkeypatch)
    assert merge_package(project, alice).already
    assert _digest(project, alice) == package_digest(alice)
    assert merge_package(project, alice).already
    assert reads.paths == [alice]


def test_a_package_that_changes_while_it_is_read_gets_no_digest(team, monkeypatch) -> None:
    project, alice = team
    digests = iter(["before", "after"])
    monkeypatch.setattr(merge_mod, "package_digest", lambda path: next(digests))
    assert merge_package(project, alice).applied == 2
    assert _digest(project, alice) is None


def test_further_work_or_a_sample_gone_from_the_project_reads_it_again(team,
                                                                      monkeypatch) -> None:
    project, alice = team
    merge_package(project, alice)
    with Curator(alice) as c:
        c.label("s2", "Analysis")
    reads = Reads(monkeypatch)
    result = merge_package(project, alice)
    assert not result.already and result.applied == 1
    project.conn.execute("PRAGMA foreign_keys = OFF")
    project.conn.execute("DELETE FROM samples WHERE id = 's5'")
    result = merge_package(project, alice)
    assert result.already and "sample s5 is no longer in the project" in result.summary()
    assert len(reads.paths) == 2  # the warning is given as before: the package was read


def test_a_package_that_derived_samples_is_always_read(team, monkeypatch) -> None:
    from core.curate.derive import DeriveFromTemplate

    project, alice = team
    with Curator(alice) as c:
        assert c.run(DeriveFromTemplate("s3", "r3", "Design a soda can called FIZZ POP"))
    assert merge_package(project, alice).created == 1
    reads = Reads(monkeypatch)
    assert merge_package(project, alice).already
    assert reads.paths == [alice]  # a derived sample deleted since would be made again


def test_package_digest_covers_the_wal_and_a_missing_file(team, tmp_path: Path) -> None:
    _project, alice = team
    main = tmp_path / "p.winnow"
    main.write_bytes(alice.read_bytes())
    plain = package_digest(main)
    (tmp_path / "p.winnow-wal").write_bytes(b"frames")
    with_wal = package_digest(main)
    assert plain and with_wal and plain != with_wal
    (tmp_path / "p.winnow-wal").write_bytes(b"frameS")
    assert package_digest(main) not in (plain, with_wal)
    assert package_digest(tmp_path / "missing.winnow") is None
    stranger = tmp_path / "video.winnow"  # not hashed: its header is not a Winnow file's
    stranger.write_bytes(b"\0" * 4096)
    assert package_digest(stranger) is None


def test_a_project_merged_by_the_previous_schema_migrates_and_re_merges(team) -> None:
    from core.store.schema import SCHEMA_VERSION

    project, alice = team
    merge_package(project, alice)
    path = project.path
    with project.transaction() as conn:  # as Winnow before m012 left the file
        undo_m015(conn)
        undo_m014(conn)
        undo_m013(conn)
        conn.execute("ALTER TABLE team_packages DROP COLUMN merged_digest")
        conn.execute("PRAGMA user_version = 11")
    project.close()
    with Project.open(path) as reopened:
        assert reopened.schema_version == SCHEMA_VERSION
        assert _digest(reopened, alice) is None
        before = state(reopened)
        assert merge_package(reopened, alice).already
        assert state(reopened) == before
        assert _digest(reopened, alice) == package_digest(alice)


def test_a_full_disk_never_fails_a_re_merge_that_has_nothing_to_write(team,
                                                                     monkeypatch) -> None:
    import sqlite3
    from contextlib import contextmanager

    project, alice = team
    merge_package(project, alice)
    project.conn.execute("UPDATE team_packages SET merged_digest = NULL")  # merged before m012

    @contextmanager
    def full_disk():  # type: ignore[no-untyped-def]
        raise sqlite3.OperationalError("database or disk is full")
        yield

    monkeypatch.setattr(project, "transaction", full_disk)
    before = state(project)
    results, refused = merge_packages(project, [alice])
    assert refused == [] and results[0].already
    assert state(project) == before and _digest(project, alice) is None
