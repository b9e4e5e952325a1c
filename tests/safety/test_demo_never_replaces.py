"""Issue #11 item 2: ``winnow demo PATH`` (and ``winnow --demo PATH``) never replaces a
project, and never deletes anything of a project another process has open."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from safety_helpers import REPO, snapshot, winnow

from core.store import Project


def test_demo_refuses_an_existing_project(project_path: Path) -> None:
    work = project_path.parent
    before = snapshot(work)
    done = winnow("demo", project_path)
    assert done.returncode == 2
    assert "already exists; Winnow never replaces a project" in done.stderr
    assert snapshot(work) == before


def test_demo_leaves_a_project_open_elsewhere_alone(project_path: Path) -> None:
    """The reported case deleted the .assets folder and the -wal/-shm files of a project
    another process was writing, then failed with "already open"."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom core.store import Project\n"
         "p = Project.open(sys.argv[1])\n"
         "with p.transaction() as c:\n"
         "    c.execute(\"INSERT INTO project_meta(key, value) VALUES ('k', 'v')\")\n"
         "print('open', flush=True)\ntime.sleep(120)", str(project_path)],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        work = project_path.parent
        before = snapshot(work)
        assert {"p.winnow-wal", "p.winnow-shm", "p.winnow.lock", "p.assets"} <= set(before)
        done = winnow("demo", project_path)
        assert done.returncode == 2 and "never replaces a project" in done.stderr
        assert snapshot(work) == before
    finally:
        holder.kill()
        holder.wait()
    with Project.open(project_path, readonly=True) as p:
        assert p.meta("k") == "v" and p.counts()["samples"] == 12


def test_the_app_opens_an_existing_demo_path_instead_of_replacing_it(project_path: Path,
                                                                      tmp_path: Path):
    done = subprocess.run(
        [sys.executable, "-m", "app", "--demo", str(project_path), "--quit-when-ready"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ready: p.winnow" in done.stdout
    with Project.open(project_path, readonly=True) as p:
        assert p.counts()["samples"] == 12  # the user's project, not a regenerated demo


def test_new_demo_in_the_app_never_closes_or_replaces_the_open_project(main_window,
                                                                       project_path: Path):
    assert main_window.open_project(project_path)
    messages: list[str] = []
    main_window.error_shown.connect(messages.append)
    assert main_window.create_demo(project_path) is None
    assert "never replaces a project" in messages[-1]
    assert main_window.project is not None and main_window.project.path == project_path
    assert main_window.project.counts()["samples"] == 12
