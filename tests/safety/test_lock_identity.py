"""Issue #11 item 6 and #15 item 5: one writer per project file, however it is reached,
with a lock that needs no ``fcntl``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from safety_helpers import REPO, png, snapshot, winnow

from core.store import Project, ProjectLockedError, ReadOnlyLocationError
from core.store.project import assets_dir_for

HOLD = r"""
import sys, time
from core.store import Project
p = Project.open(sys.argv[1])
print("open", flush=True)
time.sleep(120)
"""


def _hold(path: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
    return holder


def _stop(holder: subprocess.Popen[str]) -> None:
    holder.kill()
    holder.wait()


def test_a_symlink_cannot_make_a_second_writer(project_path: Path, tmp_path: Path) -> None:
    link = tmp_path / "link.winnow"
    link.symlink_to(project_path)
    holder = _hold(project_path)
    try:
        with pytest.raises(ProjectLockedError, match="already open for writing"):
            Project.open(link)
        jsonl = tmp_path / "more.jsonl"
        jsonl.write_text('{"id": "extra", "text": "hi"}\n')
        done = winnow("import", "posts", jsonl, "--project", link, "--no-images")
        assert done.returncode == 2 and "already open for writing" in done.stderr
    finally:
        _stop(holder)
    # the other way round: the link holds it, the real path is refused
    holder = _hold(link)
    try:
        with pytest.raises(ProjectLockedError):
            Project.open(project_path)
    finally:
        _stop(holder)


def test_through_a_symlink_assets_go_beside_the_real_file(project_path: Path,
                                                          tmp_path: Path) -> None:
    link = tmp_path / "link.winnow"
    link.symlink_to(project_path)
    (tmp_path / "img.png").write_bytes(png(424242))
    jsonl = tmp_path / "more.jsonl"
    jsonl.write_text(json.dumps({"id": "extra", "text": "hi", "image_urls": ["img.png"]})
                     + "\n")
    done = winnow("import", "posts", jsonl, "--project", link)
    assert done.returncode == 0, done.stderr
    assert not assets_dir_for(link).exists()
    with Project.open(link, readonly=True) as project:
        assert project.path == project_path
        sha = project.conn.execute("SELECT sha256 FROM post_images WHERE post_id = 'extra'"
                                   ).fetchone()[0]
        assert project.assets.find(sha) is not None
        assert project.assets.root == assets_dir_for(project_path)


def test_in_one_process_a_second_writer_is_refused_too(project_path: Path,
                                                       tmp_path: Path) -> None:
    link = tmp_path / "link.winnow"
    link.symlink_to(project_path)
    with Project.open(project_path):
        with pytest.raises(ProjectLockedError, match="this Winnow"):
            Project.open(link)
        with Project.open(link, readonly=True) as ro:  # reading is always allowed
            assert ro.counts()["samples"] == 12
    with Project.open(link):  # released on close
        pass


def test_a_hard_link_is_refused_for_writing_and_opens_read_only(project_path: Path,
                                                                tmp_path: Path) -> None:
    """Two names for one file would get two locks and two journals: SQLite's documented
    way to corrupt a database (the reported "database disk image is malformed")."""
    hard = tmp_path / "hard.winnow"
    os.link(project_path, hard)
    before = snapshot(tmp_path)
    for path in (project_path, hard):
        with pytest.raises(ReadOnlyLocationError, match="2 hard links"):
            Project.open(path)
    done = winnow("session", "create", hard, "--name", "s", "--protocol", "ranking",
                  "--out", tmp_path / "sessions")
    assert done.returncode == 2 and "hard links" in done.stderr
    assert snapshot(tmp_path) == before
    with Project.open(hard, readonly=True) as ro:
        assert ro.counts()["samples"] == 12
    os.unlink(hard)
    Project.open(project_path).close()  # one name again: it opens for writing


def test_the_lock_file_goes_when_the_project_closes(project_path: Path) -> None:
    lock = project_path.with_name(project_path.name + ".lock")
    with Project.open(project_path):
        assert lock.read_text().startswith("Winnow (pid")
    assert not lock.exists()


NO_FCNTL = r"""
import builtins, importlib, json, pkgutil, subprocess, sys
sys.modules["fcntl"] = None  # `import fcntl` raises ImportError, as on Windows
import core
mods = ["core"] + [m.name for m in pkgutil.walk_packages(core.__path__, prefix="core.")]
for m in mods:
    importlib.import_module(m)
from core.store import Project, ProjectLockedError
path = sys.argv[1]
if sys.argv[2] == "hold":
    p = Project.open(path)
    child = subprocess.run([sys.executable, "-c", sys.argv[3], path, "try", sys.argv[3]],
                           capture_output=True, text=True)
    p.close()
    print(json.dumps({"modules": len(mods), "child": child.stdout.strip(),
                      "err": child.stderr[-2000:]}))
else:
    try:
        Project.open(path).close()
        print("second writer got in")
    except ProjectLockedError:
        print("refused")
"""


def test_core_imports_and_locks_without_fcntl(project_path: Path) -> None:
    """#15 item 5: every core module imports with ``fcntl`` unavailable, and the lock
    still keeps a second process out."""
    done = subprocess.run([sys.executable, "-c", NO_FCNTL, str(project_path), "hold",
                           NO_FCNTL], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["modules"] > 100
    assert result["child"] == "refused", result["err"]
    source = (REPO / "core" / "store" / "lock.py").read_text()
    assert "import fcntl" not in source
