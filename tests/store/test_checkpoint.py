"""The write-ahead log is checkpointed off the committing thread, stays bounded, and a
SIGKILL at any moment (mid-checkpoint included) loses nothing committed (ADR 025)."""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from core.store import Project
from core.store import checkpoint as checkpoint_module
from core.store.checkpoint import Checkpointer, wal_size
from core.store.checkpoint import checkpoint as run_checkpoint

ROWS = 1_500  # ≈ 3 MB of audit text a transaction
TEXT = "x" * 2_000


def _big_write(project: Project, tag: str) -> None:
    with project.transaction():
        project.audit_many(
            [("test", "sample", f"{tag}-{k}", "note", None, TEXT) for k in range(ROWS)]
        )


@pytest.fixture
def where(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the threads that ran a checkpoint, in order."""
    names: list[str] = []
    real = checkpoint_module.checkpoint

    def recording(conn: sqlite3.Connection) -> tuple[int, int, int]:
        names.append(threading.current_thread().name)
        return real(conn)

    monkeypatch.setattr(checkpoint_module, "checkpoint", recording)
    return names


def _autocheckpoint(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])


def test_project_connections_leave_checkpoints_to_the_checkpointer(tmp_path: Path) -> None:
    with Project.create(tmp_path / "a.winnow") as project:
        view = project.worker_view()
        assert _autocheckpoint(project.conn) == 0
        assert _autocheckpoint(view.conn) == 0
        assert view.checkpointer is project.checkpointer is not None
        view.close()
    with Project.open(tmp_path / "a.winnow", readonly=True) as project:
        assert project.checkpointer is None  # reads never write the log


def test_a_big_commit_is_checkpointed_on_another_thread(tmp_path: Path, where: list[str]) -> None:
    with Project.create(tmp_path / "a.winnow") as project:
        assert project.checkpointer is not None
        _big_write(project, "a")
        view = project.worker_view()
        _big_write(view, "b")  # a worker view's commit wakes the same thread
        view.close()
        assert project.checkpointer.wait_idle()
        assert where and all(name.startswith("checkpoint ") for name in where)
        # the thread copied every committed frame: a new checkpoint finds nothing to do
        busy, log, copied = run_checkpoint(project.conn)
        assert (busy, copied) == (0, log)
        runs = project.checkpointer.runs
        with project.transaction():  # restarts the log: the file is cut back
            project.audit("small", "sample", "small")
        assert wal_size(project.path) <= checkpoint_module.WAL_THRESHOLD
        assert project.checkpointer.wait_idle()
        assert project.checkpointer.runs == runs  # and a small commit asks for nothing
    assert not (tmp_path / "a.winnow-wal").exists()  # closing checkpointed the rest
    conn = sqlite3.connect(tmp_path / "a.winnow")
    assert (
        conn.execute("SELECT count(*) FROM audit_log WHERE action = 'test'").fetchone()[0]
        == 2 * ROWS
    )
    conn.close()


def test_small_commits_do_not_wake_it(tmp_path: Path) -> None:
    with Project.create(tmp_path / "a.winnow") as project:
        assert project.checkpointer is not None
        assert project.conn.execute("PRAGMA journal_size_limit").fetchone()[0] == (
            checkpoint_module.WAL_THRESHOLD
        )
        for k in range(20):
            with project.transaction():
                project.audit("test", "sample", f"s{k}")
        assert project.checkpointer._thread is None
        assert project.checkpointer.runs == 0


def test_past_the_limit_the_committer_checkpoints_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: list[str]
) -> None:
    monkeypatch.setattr(checkpoint_module, "WAL_LIMIT", 1_000_000)
    with Project.create(tmp_path / "a.winnow") as project:
        _big_write(project, "a")
        assert where == [threading.current_thread().name]


def test_a_closed_checkpointer_falls_back_to_the_committer(
    tmp_path: Path, where: list[str]
) -> None:
    project = Project.create(tmp_path / "a.winnow")
    view = project.worker_view()
    project.close()  # a worker still writing after its project closed
    _big_write(view, "a")
    assert where == [threading.current_thread().name]
    view.close()


def test_a_failing_checkpoint_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(conn: sqlite3.Connection) -> tuple[int, int, int]:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(checkpoint_module, "checkpoint", failing)
    with Project.create(tmp_path / "a.winnow") as project:
        _big_write(project, "a")
        assert project.checkpointer is not None
        assert project.checkpointer.wait_idle()
        assert isinstance(project.checkpointer.last_error, sqlite3.OperationalError)
        assert project.counts()["audit_entries"] == ROWS
    with Project.open(tmp_path / "a.winnow") as project:
        assert project.counts()["audit_entries"] == ROWS


def test_close_stops_the_thread(tmp_path: Path) -> None:
    project = Project.create(tmp_path / "a.winnow")
    _big_write(project, "a")
    checkpointer = project.checkpointer
    assert checkpointer is not None and checkpointer._thread is not None
    project.close()
    assert not checkpointer._thread.is_alive()


def test_checkpointer_without_log_does_nothing(tmp_path: Path) -> None:
    conn = sqlite3.connect(":memory:")
    checkpointer = Checkpointer(tmp_path / "none.winnow")
    checkpointer.after_commit(conn)
    assert checkpointer._thread is None
    checkpointer.close()


CHILD = r"""
import sys
from core.store import Project
from core.store import checkpoint as cp

cp.DELAY_S = 0.0  # checkpoint at once, so the kill often lands inside one
project = Project.open(sys.argv[1])
text = "y" * 2000
for batch in range(1000):
    with project.transaction():
        project.audit_many([("kill", "sample", f"{batch}-{k}", "note", None, text)
                            for k in range(1500)])
    print(f"committed {batch + 1}", flush=True)
"""


@pytest.mark.parametrize("trial", range(4))
def test_sigkill_during_background_checkpoints_keeps_every_commit(
    tmp_path: Path, trial: int
) -> None:
    path = tmp_path / "kill.winnow"
    Project.create(path).close()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    rng = random.Random(trial)
    last = 0
    for _ in range(rng.randint(2, 8)):
        line = child.stdout.readline()
        assert line.startswith("committed"), line
        last = int(line.split()[1])
    time.sleep(rng.uniform(0, 0.08))
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert child.returncode == -signal.SIGKILL

    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = conn.execute("SELECT count(*) FROM audit_log WHERE action = 'kill'").fetchone()[0]
    conn.close()
    assert rows >= last * 1500, "a committed transaction was lost"
    assert rows % 1500 == 0, "a transaction was half written"
    with Project.open(path) as project:  # and it opens and writes again
        _big_write(project, "after")


def test_a_long_log_is_checkpointed_without_waiting_for_a_pause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoint_module, "DELAY_S", 60.0)
    with Project.create(tmp_path / "a.winnow") as project:
        assert project.checkpointer is not None
        _big_write(project, "a")
        _big_write(project, "b")  # past WAL_THRESHOLD: waits for a 60 s pause
        assert wal_size(project.path) > checkpoint_module.WAL_THRESHOLD
        assert not project.checkpointer.wait_idle(0.5)
        monkeypatch.setattr(checkpoint_module, "WAL_BUSY", wal_size(project.path) + 1)
        _big_write(project, "c")  # past WAL_BUSY: at once
        assert project.checkpointer.wait_idle(10)
        assert project.checkpointer.runs == 1


def test_a_reader_on_an_old_snapshot_delays_but_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "a.winnow"
    with Project.create(path) as project:
        assert project.checkpointer is not None
        reader = sqlite3.connect(path, isolation_level=None)  # e.g. a user's sqlite3 shell
        reader.execute("BEGIN")
        before = reader.execute("SELECT count(*) FROM audit_log").fetchone()[0]
        for tag in "abc":
            _big_write(project, tag)
        assert project.checkpointer.wait_idle()
        # the reader keeps its snapshot; the checkpoint could not restart the log
        assert reader.execute("SELECT count(*) FROM audit_log").fetchone()[0] == before
        assert wal_size(path) > checkpoint_module.WAL_THRESHOLD
        reader.execute("COMMIT")
        _big_write(project, "d")
        assert project.checkpointer.wait_idle()
        with project.transaction():  # the log restarts now the reader has gone
            project.audit("small", "sample", "x")
        assert wal_size(path) <= checkpoint_module.WAL_THRESHOLD
        assert (
            reader.execute("SELECT count(*) FROM audit_log WHERE action = 'test'").fetchone()[0]
            == 4 * ROWS
        )
        reader.close()


def test_a_project_moved_away_while_open_is_not_recreated(tmp_path: Path) -> None:
    path = tmp_path / "a #1?.winnow"  # characters a URI must escape
    project = Project.create(path)
    assert project.checkpointer is not None
    moved = tmp_path / "moved.winnow"
    path.rename(moved)  # the user moves the file (not its -wal) while Winnow has it open
    _big_write(project, "a")
    _big_write(project, "b")
    assert project.checkpointer.wait_idle()
    assert isinstance(project.checkpointer.last_error, sqlite3.Error)
    assert not path.exists(), "the checkpoint thread created a new, empty project"
    project.close()


def test_a_path_with_uri_characters_is_checkpointed(tmp_path: Path) -> None:
    with Project.create(tmp_path / "a #1?%.winnow") as project:
        assert project.checkpointer is not None
        _big_write(project, "a")
        _big_write(project, "b")
        assert project.checkpointer.wait_idle()
        assert project.checkpointer.runs >= 1 and project.checkpointer.last_error is None


def test_a_full_disk_during_the_checkpoint_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a real 24 MB file system the log fills the disk; the thread's checkpoint then
    fails for want of space, and every committed transaction is still there."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "safety"))
    from safety_helpers import mount_tmpfs, unmount

    mount = tmp_path / "small"
    if not mount_tmpfs(mount, size="24m"):
        pytest.skip("mounting a tmpfs is not allowed here")
    try:
        path = mount / "full.winnow"
        project = Project.create(path)
        assert project.checkpointer is not None
        committed = 0
        for k in range(40):
            try:
                _big_write(project, f"w{k}")
            except sqlite3.Error:
                if project.conn.in_transaction:
                    project.conn.execute("ROLLBACK")
                break
            committed += 1
        else:
            pytest.fail("24 MB never filled up")
        assert committed >= 3
        assert project.checkpointer.wait_idle(30)
        error = project.checkpointer.last_error  # the checkpoint had no room
        assert error is not None and "full" in str(error), error
        reader = sqlite3.connect(path)
        count = "SELECT count(*) FROM audit_log WHERE action = 'test'"
        assert reader.execute(count).fetchone()[0] == committed * ROWS
        reader.close()
        project.close()  # its own checkpoint fails too; the log stays
        again = sqlite3.connect(path)
        assert again.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert again.execute(count).fetchone()[0] == committed * ROWS
        again.close()
    finally:
        unmount(mount)


def test_a_failed_open_stops_the_thread_a_migration_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.store import project as project_module

    path = tmp_path / "a.winnow"
    Project.create(path).close()
    made: list[Checkpointer] = []

    class Recorded(Checkpointer):
        def __init__(self, where: Path) -> None:
            super().__init__(where)
            made.append(self)

    def failing_migration(self: Project, current: int) -> None:
        _big_write(self, "migration")
        raise RuntimeError("migration failed")

    monkeypatch.setattr(project_module, "Checkpointer", Recorded)
    monkeypatch.setattr(project_module, "_check_version", lambda conn, name: 0)
    monkeypatch.setattr(Project, "_migrate", failing_migration)
    with pytest.raises(RuntimeError):
        Project.open(path)
    assert made and made[0]._thread is not None
    assert not made[0]._thread.is_alive()
