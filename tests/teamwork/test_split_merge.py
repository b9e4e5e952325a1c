"""Split → edit in two packages through Curate's own commands → merge (issue #20)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.curate.image_edits import add_box, set_box, set_image_role
from core.store import Project
from core.teamwork.conflicts import ResolveConflict, list_conflicts
from core.teamwork.merge import merge_package, merge_packages
from core.teamwork.values import read_values
from tests.teamwork.team_helpers import Curator, make_project, package_path, split, state


def _row_id(project: Project, sid: str, **where: object) -> int:
    sql = " AND ".join(f"{k} = ?" for k in where)
    return int(project.conn.execute(f"SELECT id FROM sample_images WHERE sample_id = ? AND {sql}"
                                    " ORDER BY id LIMIT 1", (sid, *where.values())).fetchone()[0])


@pytest.fixture
def team(tmp_path: Path):  # type: ignore[no-untyped-def]
    project = make_project(tmp_path)
    report = split(project, tmp_path / "out")
    yield project, package_path(report, "Alice"), package_path(report, "Bob")
    project.close()


def test_split_writes_one_package_per_curator_that_opens_as_a_project(tmp_path: Path,
                                                                      team) -> None:
    project, alice, bob = team
    with Project.open(alice) as pkg:
        ids = {r[0] for r in pkg.conn.execute("SELECT id FROM samples")}
        assert ids == {"s1", "s2", "s3", "s4", "s5"}
        assert pkg.conn.execute("SELECT count(*) FROM posts WHERE id IN ('r1', 'r1a', 'ctx')"
                                ).fetchone()[0] == 3  # replies and the thread above travel
        assert pkg.conn.execute("SELECT count(*) FROM team_image_data").fetchone()[0] >= 4
        from core.curate.detail import image_bytes

        sha = pkg.conn.execute("SELECT sha256 FROM sample_images WHERE sample_id = 's1' AND "
                               "sha256 IS NOT NULL").fetchone()[0]
        assert image_bytes(pkg, sha)[:8] == b"\x89PNG\r\n\x1a\n"  # no asset folder needed
        with pytest.raises(sqlite3.IntegrityError, match="curator package cannot"), \
                pkg.transaction() as conn:
            conn.execute("DELETE FROM samples WHERE id = 's1'")
        with pytest.raises(sqlite3.IntegrityError, match="cannot import or change posts"), \
                pkg.transaction() as conn:
            conn.execute("UPDATE posts SET text = 'x' WHERE id = 'p1'")
    assert not (alice.parent / "lead.assets").exists()


def test_edits_arrive_conflicts_appear_once_and_adjudication_resolves(team) -> None:
    project, alice_path, bob_path = team
    with Curator(alice_path) as alice:
        alice.label("s2", "Benchmark")             # only Alice: arrives
        alice.prompt("s1", "Turn the cat green")   # both, differently: a conflict
        alice.tag("s4", "zebra")                   # tags merge as sets
        alice.label("s5", "Analysis")              # both, the same: no conflict
        shot = alice.project.conn.execute("SELECT sha256 FROM sample_images WHERE "
                                          "sample_id = 's2' LIMIT 1").fetchone()[0]
        alice.run(add_box("s2", shot, None, "output", (5, 5, 30, 30), (240, 160)))
    with Curator(bob_path) as bob:
        bob.prompt("s1", "Make the cat green")
        bob.label("s5", "Analysis")
        bob.tag("s4", "stripes")
        rid = _row_id(bob.project, "s1", role="output")
        bob.run(set_image_role("s1", "unused", row_id=rid))  # a role change, only Bob
        box = _row_id(bob.project, "s2", role="input")
        bob.run(set_box("s2", box, (12, 22, 50, 40), (240, 160)))
    results, refused = merge_packages(project, [alice_path, bob_path])
    assert refused == []
    assert [r.curator for r in results] == ["Alice", "Bob"]
    now = read_values(project.conn, ["s1", "s2", "s4", "s5"])
    assert now["s2"]["quality"] == "Benchmark"
    assert now["s5"]["quality"] == "Analysis"
    assert now["s4"]["tags"] == ["stripes", "zebra"]
    assert now["s1"]["prompt"] == "Turn the cat green"  # Alice merged first
    assert any(r[0] == "unused" for r in now["s1"]["images"]["rows"])
    boxes = sorted(tuple(r[4:8]) for r in now["s2"]["images"]["rows"] if r[4] is not None)
    assert boxes == [(5, 5, 30, 30), (10, 20, 50, 40), (100, 30, 120, 100)]  # Alice's
    audit = project.conn.execute("SELECT actor FROM audit_log WHERE entity = 'sample' AND "
                                 "entity_id = 's2' AND field = 'quality'").fetchall()
    assert audit[-1][0] == "Alice"
    # both changed s2's boxes (image roles and boxes are one field): a conflict too
    conflicts = list_conflicts(project)
    assert [(c.sample_id, c.field, c.curator, c.ours_by) for c in conflicts] == [
        ("s1", "prompt", "Bob", "Alice"), ("s2", "images", "Bob", "Alice")]
    assert (conflicts[0].current, conflicts[0].theirs) == ("Turn the cat green",
                                                           "Make the cat green")
    theirs = sorted(tuple(r[4:8]) for r in conflicts[1].theirs["rows"] if r[4] is not None)
    assert theirs == [(12, 22, 50, 40), (100, 30, 120, 100)]
    before = state(project)
    command = ResolveConflict(conflicts[0], "theirs")
    command.do(project)
    assert read_values(project.conn, ["s1"])["s1"]["prompt"] == "Make the cat green"
    assert [c.sample_id for c in list_conflicts(project)] == ["s2"]
    command.undo(project)
    assert state(project) == before
    command.do(project)
    ResolveConflict(list_conflicts(project)[0], "theirs").do(project)
    boxes = sorted(tuple(r[4:8]) for r in read_values(project.conn, ["s2"])["s2"]["images"]
                   ["rows"] if r[4] is not None)
    assert boxes == [(12, 22, 50, 40), (100, 30, 120, 100)]
    assert [c.choice for c in list_conflicts(project, "resolved")] == ["theirs", "theirs"]
    assert list_conflicts(project) == []
    # merging both again changes nothing
    settled = state(project)
    again, refused = merge_packages(project, [alice_path, bob_path])
    assert refused == [] and all(r.already for r in again)
    assert state(project) == settled


def test_project_change_since_the_split_is_a_conflict_not_overwritten(team) -> None:
    project, alice_path, _bob = team
    from core.curate.commands import SetField

    SetField(["s3"], "quality", "Trash").do(project)
    with Curator(alice_path) as alice:
        alice.label("s3", "Analysis")
    result = merge_package(project, alice_path)
    assert result.conflicts == 1
    assert read_values(project.conn, ["s3"])["s3"]["quality"] == "Trash"
    (c,) = list_conflicts(project)
    assert (c.base, c.current, c.theirs) == ("Benchmark", "Trash", "Analysis")


def test_further_work_after_a_merge_merges_on_top(team) -> None:
    project, alice_path, _bob = team
    with Curator(alice_path) as alice:
        alice.label("s2", "Benchmark")
    merge_package(project, alice_path)
    with Curator(alice_path) as alice:
        alice.label("s2", "Analysis")
        alice.label("s4", "Trash")
        alice.stack.undo()
    result = merge_package(project, alice_path)
    assert not result.already
    assert read_values(project.conn, ["s2"])["s2"]["quality"] == "Analysis"
    assert list_conflicts(project) == []


def test_fill_in_the_blank_sample_made_in_a_package_is_created_by_the_merge(team) -> None:
    from core.curate.derive import DeriveFromTemplate

    project, alice_path, _bob = team
    with Curator(alice_path) as alice:
        command = DeriveFromTemplate("s3", "r3", "Design a soda can called FIZZ POP")
        assert alice.run(command)
        new_id = command.new_id
        alice.label(new_id, "Benchmark")
    result = merge_package(project, alice_path)
    assert result.created == 1, result
    values = read_values(project.conn, [new_id])[new_id]
    assert values["prompt"] == "Design a soda can called FIZZ POP"
    assert values["quality"] == "Benchmark"
    assert merge_package(project, alice_path).already


def test_a_full_disk_during_the_split_leaves_no_folder_and_no_split(tmp_path: Path,
                                                                    monkeypatch) -> None:
    from core.files import WriteError
    from core.teamwork import package as package_module

    project = make_project(tmp_path)
    calls = []

    def full(*args: object) -> str:
        calls.append(1)
        if len(calls) == 2:  # the second package meets a full disk
            raise sqlite3.OperationalError("database or disk is full")
        return real(*args)

    real = package_module.install
    monkeypatch.setattr(package_module, "install", full)
    with pytest.raises(WriteError, match="No space left"):
        split(project, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert project.conn.execute("SELECT count(*) FROM team_splits").fetchone()[0] == 0
    monkeypatch.setattr(package_module, "install", real)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not empty"):
        split(project, tmp_path / "taken")
    assert (tmp_path / "taken" / "keep.txt").read_text() == "mine"
    assert list((tmp_path / "taken").iterdir()) == [tmp_path / "taken" / "keep.txt"]
    project.close()


def test_a_conflict_listed_from_one_project_is_refused_in_another(tmp_path: Path) -> None:
    from core.curate.commands import EditConflict, UndoStack

    projects = []
    for name, says in (("a", "First project's Bob"), ("b", "Second project's Bob")):
        project = make_project(tmp_path / name)
        report = split(project, tmp_path / name / "packages")
        with Curator(package_path(report, "Alice")) as c:
            c.prompt("s1", "Turn the cat green")
        with Curator(package_path(report, "Bob")) as c:
            c.prompt("s1", says)
        merge_packages(project, [package_path(report, "Alice"), package_path(report, "Bob")])
        projects.append(project)
    first, second = projects
    stale = list_conflicts(first)[0]
    assert stale.id == list_conflicts(second)[0].id  # the same row number in both
    with pytest.raises(EditConflict, match="listed from another project"):
        UndoStack(second).push(ResolveConflict(stale, "theirs"))
    assert read_values(second.conn, ["s1"])["s1"]["prompt"] == "Turn the cat green"
    assert len(list_conflicts(second)) == 1  # still open there
    for project in projects:
        project.close()
