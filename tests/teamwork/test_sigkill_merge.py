"""A merge killed with SIGKILL leaves the project as it was before that package or with
the package fully merged (each package is one transaction), and merging again finishes."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from core.curate.commands import SetField
from core.store import Project
from core.teamwork.merge import merge_packages
from tests.teamwork.team_helpers import REPO, Curator, make_project, package_path, split, state

CHILD = r"""
import sys
import time
from core.store import Project
from core.teamwork import merge
from core.teamwork.merge import merge_packages

original = merge.apply_scalars

def slow(*args):  # each write inside the merge's transaction is announced, then paused
    n = original(*args)
    print("wrote", flush=True)
    time.sleep(0.02)
    return n

merge.apply_scalars = slow

with Project.open(sys.argv[1]) as project:
    print("start", flush=True)
    merge_packages(project, sys.argv[2:])
print("done", flush=True)
"""

TRIALS = 10


def _states(path: Path, packages: list[Path]) -> list[list[tuple[object, ...]]]:
    """The project's state before, after the first package, and after both."""
    out = []
    with Project.open(path) as project:
        out.append(state(project))
        for pkg in packages:
            merge_packages(project, [pkg])
            out.append(state(project))
    return out


def test_sigkill_during_merge_leaves_before_or_fully_merged(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    report = split(project, tmp_path / "out")
    project.close()
    packages = [package_path(report, "Alice"), package_path(report, "Bob")]
    for k, pkg in enumerate(packages):
        with Curator(pkg) as c:
            for sid in ("s1", "s2", "s3", "s4", "s5"):
                c.label(sid, ("Benchmark", "Analysis")[k])
                c.prompt(sid, f"prompt {sid} by {k}")
                c.tag(sid, f"t{k}")
                c.run(SetField([sid], "notes", f"note {k}"))
    reference = tmp_path / "reference"
    shutil.copytree(tmp_path / "p", reference)
    expected = _states(reference / "lead.winnow", packages)
    assert expected[0] != expected[1] != expected[2]
    rng = random.Random(20)
    seen = set()
    for trial in range(TRIALS):
        folder = tmp_path / f"t{trial}"
        shutil.copytree(tmp_path / "p", folder)
        path = folder / "lead.winnow"
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), *map(str, packages)],
                                 cwd=REPO, stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline().strip() == "start"
        for _ in range(rng.randint(0, 9)):  # kill inside a transaction, mostly
            if child.stdout.readline().strip() != "wrote":
                break
        time.sleep(rng.uniform(0, 0.01))
        child.send_signal(signal.SIGKILL)
        child.wait()
        with Project.open(path) as p:
            got = state(p)
            assert p.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert got in expected, f"trial {trial}: a half-merged package"
        seen.add(expected.index(got))
        with Project.open(path) as p:  # merging again finishes the work
            _results, refused = merge_packages(p, packages)
            assert refused == []
            assert state(p) == expected[2]
    assert 0 in seen  # a kill inside the first package's transaction rolled it back
