"""Packages are tamper-evident (ADR 131), one bad package never stops the rest, and the
CLI reports per file with a non-zero exit when a package was refused."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.store import Project
from core.teamwork.merge import merge_package, merge_packages
from core.teamwork.values import read_values
from tests.teamwork.team_helpers import (
    REPO,
    Curator,
    make_project,
    package_path,
    raw,
    split,
    state,
    worked_team,
)


@pytest.fixture
def team(tmp_path: Path):  # type: ignore[no-untyped-def]
    project, alice, bob = worked_team(tmp_path)
    yield project, alice, bob
    project.close()


def _refused(project: Project, path: Path) -> str:
    before = state(project)
    results, refused = merge_packages(project, [path])
    assert results == [] and len(refused) == 1
    assert state(project) == before  # nothing of it was written
    assert refused[0].startswith(path.name)
    return refused[0]


def test_value_changed_with_sqlite3_is_refused_with_its_reason(team) -> None:
    project, alice, _bob = team
    conn = raw(alice)
    conn.execute("UPDATE samples SET quality = 'Trash' WHERE id = 's1'")
    conn.close()
    line = _refused(project, alice)
    assert "edited outside Winnow's Curate" in line
    assert "sample s1: its quality was changed outside Winnow's Curate" in line


def test_forged_audit_row_is_refused(team) -> None:
    project, alice, _bob = team
    conn = raw(alice)
    # the MAC trigger needs Winnow's SQL function: a shell cannot write an audit row
    with pytest.raises(Exception, match="winnow_chain_mac"):
        conn.execute("INSERT INTO audit_log(at, actor, action, entity, entity_id, field, old, "
                     "new) VALUES ('2026', 'Alice', 'edit', 'sample', 's1', 'quality', "
                     "'\"Benchmark\"', '\"Trash\"')")
    conn.execute("DROP TRIGGER team_chain_audit")
    conn.execute("UPDATE samples SET quality = 'Trash' WHERE id = 's1'")
    conn.execute("INSERT INTO audit_log(at, actor, action, entity, entity_id, field, old, new) "
                 "VALUES ('2026', 'Alice', 'edit', 'sample', 's1', 'quality', "
                 "'\"Benchmark\"', '\"Trash\"')")
    conn.close()
    line = _refused(project, alice)
    assert "audit entry" in line


def test_edited_audit_value_is_refused(team) -> None:
    project, alice, _bob = team
    conn = raw(alice)
    conn.execute("DROP TRIGGER audit_log_no_update")
    conn.execute("UPDATE audit_log SET new = '\"Trash\"' WHERE field = 'quality'")
    conn.execute("UPDATE samples SET quality = 'Trash' WHERE id = 's2'")
    conn.close()
    assert "audit entry" in _refused(project, alice)


def test_changed_base_or_post_is_refused(team) -> None:
    project, alice, _bob = team
    conn = raw(alice)
    conn.execute("DROP TRIGGER team_guard_posts_update")
    conn.execute("UPDATE posts SET text = 'hacked' WHERE id = 'p1'")
    conn.close()
    assert "base MAC does not match" in _refused(project, alice)


def test_foreign_package_and_non_package_are_refused(team, tmp_path: Path) -> None:
    project, alice, _bob = team
    other = make_project(tmp_path / "other", "other.winnow")
    report = split(other, tmp_path / "other-out")
    foreign = package_path(report, "Alice")
    other.close()
    assert "not split from this project" in _refused(project, foreign)
    assert "not a curator package" in _refused(project, project.path)
    junk = tmp_path / "junk.winnow"
    junk.write_bytes(b"not sqlite at all" * 100)
    assert _refused(project, junk).startswith("junk.winnow")


def test_one_bad_package_never_stops_the_rest(team, tmp_path: Path) -> None:
    project, alice, bob = team
    bad = tmp_path / "bad.winnow"
    shutil.copy(alice, bad)
    conn = raw(bad)
    conn.execute("UPDATE samples SET notes = 'x' WHERE id = 's3'")
    conn.close()
    results, refused = merge_packages(project, [bad, tmp_path / "missing.winnow", bob])
    assert [r.curator for r in results] == ["Bob"]
    assert [line.split(":")[0] for line in refused] == ["bad.winnow", "missing.winnow"]
    assert read_values(project.conn, ["s5"])["s5"]["quality"] == "Analysis"


def test_another_copy_of_a_merged_package_is_refused(team, tmp_path: Path) -> None:
    project, alice, _bob = team
    early = tmp_path / "early.winnow"
    shutil.copy(alice, early)
    with Curator(alice) as c:
        c.label("s3", "Trash")
    merge_package(project, alice)
    with Curator(early) as c:
        c.label("s1", "Trash")
    assert "another copy" in _refused(project, early)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=REPO, text=True,
                          capture_output=True, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin",
                               "QT_QPA_PLATFORM": "offscreen", "HOME": str(REPO.parent)})


def test_cli_split_merge_conflicts_resolve(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    path = project.path
    project.close()
    out = tmp_path / "packages"
    done = _cli("curate", "split", str(path), "--names", "Ann,Ben", "--overlap", "1",
                "--seed", "3", "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    files = [out / p["file"] for p in report["packages"]]
    assert [p["curator"] for p in report["packages"]] == ["Ann", "Ben"]
    assert report["overlap_samples"] == 5
    with Curator(files[0]) as c:
        c.label("s2", "Benchmark")
    with Curator(files[1]) as c:
        c.label("s2", "Trash")
    junk = tmp_path / "junk.winnow"
    junk.write_text("junk")
    done = _cli("curate", "merge", str(path), str(files[0]), str(junk), str(files[1]))
    assert done.returncode == 1
    assert "refused: junk.winnow" in done.stderr and "Traceback" not in done.stderr
    assert f"{files[0].name} (Ann): 1 change(s) merged" in done.stdout
    assert f"{files[1].name} (Ben): 0 change(s) merged, 1 conflict(s)" in done.stdout
    done = _cli("curate", "merge", str(path), *map(str, files))
    assert done.returncode == 0 and done.stdout.count("already merged") == 2
    listed = json.loads(_cli("curate", "conflicts", str(path), "--json").stdout)
    assert [(c["sample"], c["project_value"], c["curator_value"]) for c in listed] == [
        ("s2", "Benchmark", "Trash")]
    done = _cli("curate", "resolve", str(path), str(listed[0]["id"]), "theirs")
    assert done.returncode == 0, done.stderr
    with Project.open(path, readonly=True) as p:
        assert read_values(p.conn, ["s2"])["s2"]["quality"] == "Trash"
    done = _cli("curate", "split", str(path), "--curators", "2", "--out", str(out))
    assert done.returncode != 0 and "Traceback" not in done.stderr  # folder not empty


def test_cli_split_shares_as_the_dialog_does_by_default(demo_template: Path,
                                                         tmp_path: Path) -> None:
    """Without --overlap, two or more curators share DEFAULT_OVERLAP of the samples (as
    Curate → Share Work… preselects), so agreement can be measured; one curator none."""
    from core.teamwork import DEFAULT_OVERLAP

    path = tmp_path / "demo.winnow"
    shutil.copy(demo_template, path)
    done = _cli("curate", "split", str(path), "--curators", "2", "--out",
                str(tmp_path / "two"), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["samples"] == 115
    assert report["overlap_samples"] == round(DEFAULT_OVERLAP * 115) > 0
    done = _cli("curate", "split", str(path), "--curators", "1", "--out",
                str(tmp_path / "one"), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["overlap_samples"] == 0


def test_a_table_replaced_by_a_view_is_refused_before_a_row_is_read(team) -> None:  # type: ignore[no-untyped-def]
    """ADR 177 for packages: a curator renamed ``team_base`` and made a view of that name.
    An endless (recursive) view hung the merge of every package after it; one that shows
    exactly the old rows is refused all the same, naming the table."""
    project, alice, _bob = team
    conn = raw(alice)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                ).fetchall():
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("ALTER TABLE team_base RENAME TO base_old")
    conn.execute("CREATE VIEW team_base AS SELECT * FROM base_old")
    conn.close()
    assert "its 'team_base' is a view, not a table" in _refused(project, alice)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("curators", ["1000000000", "-2", "101"])
def test_cli_split_refuses_a_number_of_curators_at_once(tmp_path: Path, capsys,
                                                        curators: str) -> None:
    """`--curators 1000000000` built a billion names before the limit was checked (it
    ran for ever); `--curators -2` was reported as 'not 0'."""
    from app.cli import run_cli

    Project.create(tmp_path / "p.winnow").close()
    assert run_cli(["curate", "split", str(tmp_path / "p.winnow"), "--curators", curators,
                    "--out", str(tmp_path / "out")]) == 2
    assert f"a split needs 1 to 100 curators, not {int(curators):,}" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_earlier_chain_keys_are_gone_while_the_package_is_open(tmp_path: Path) -> None:
    """The project's WAL kept every page as it was until a checkpoint and cut it back
    only to 4 MB, so a package open in Curate held each earlier chain key in its
    ``-wal``: a curator could read one with sqlite3 and re-sign the audit entries from
    that point (ADR 131 amended: a package's WAL is truncated after each commit)."""
    project = make_project(tmp_path)
    alice = package_path(split(project, tmp_path / "out"), "Alice")
    project.close()
    with Curator(alice) as c:
        keys = [c.project.conn.execute("SELECT key FROM team_chain").fetchone()[0]]
        for quality in ("Benchmark", "Analysis", "Trash"):
            assert c.label("s2", quality)
            keys.append(c.project.conn.execute("SELECT key FROM team_chain").fetchone()[0])
        assert len(set(keys)) == len(keys)
        wal = Path(f"{alice}-wal")
        data = alice.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
        assert keys[-1].encode() in data
        for old in keys[:-1]:
            assert old.encode() not in data, "an earlier key is still in the package"
