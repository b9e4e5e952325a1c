"""kill -9 in the middle of an import with the read-ahead thread on, and a second process
importing into the same project at once (import-clash item 3): the project passes
``PRAGMA integrity_check``, a re-run finishes the import and nothing is duplicated."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
KILL = Path(__file__).with_name("kill_import_readahead.py")
N = 4_000


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the harness forks (POSIX)")
def test_sigkill_with_the_read_ahead_thread_then_resume(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(KILL), str(tmp_path), "20", "5"],
                          capture_output=True, text=True, timeout=280,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr[-4000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["outcomes"].count("killed") >= 20, result["outcomes"]
    assert result["resumed"] == ["finished"] * len(result["resumed"])
    assert result["final"] == {"posts": 3000, "samples": 3000}


def _source(tmp_path: Path) -> Path:
    src = tmp_path / "lines.jsonl"
    lines = [{"id": f"p{k}", "text": "a post " * 30} for k in range(N)]
    lines += [{"id": f"s{k}", "prompt": f"prompt {k}", "post_id": f"p{k}"} for k in range(N)]
    src.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return src


def _cli(src: Path, project: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "app", "import", "posts", str(src), "-p",
                             str(project), "--no-images", "--json"], cwd=REPO, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _check(project: Path) -> None:
    conn = sqlite3.connect(project.as_uri() + "?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*) FROM posts").fetchone()[0] == N
        assert conn.execute("SELECT count(*) FROM samples").fetchone()[0] == N
        assert conn.execute("SELECT count(*) FROM sample_raw").fetchone()[0] == N
        assert conn.execute("SELECT count(*) FROM audit_log WHERE action = 'import' AND "
                            "entity = 'sample'").fetchone()[0] == N
    finally:
        conn.close()


@pytest.mark.parametrize("exists", [True, False], ids=["existing-project", "new-project"])
def test_two_processes_importing_into_one_project_at_once(tmp_path: Path,
                                                          exists: bool) -> None:
    """Both start together; each either imports or is refused with the holder named (exit
    2, no traceback) — never a half import, a broken file or a duplicated row."""
    from core.store import Project

    src = _source(tmp_path)
    project = tmp_path / "p.winnow"
    if exists:
        Project.create(project).close()
    procs = [_cli(src, project) for _ in range(2)]
    results = [(p.wait(timeout=240), *p.communicate()) for p in procs]
    for code, out, err in results:
        assert "Traceback" not in err, err
        if code == 2:
            assert "is already open for writing by Winnow (pid" in err, err
        else:
            assert code == 0, err
            report = json.loads(out)
            assert report["errors"] == []
            assert report["imported"] + report["unchanged"] == 2 * N
    assert any(code == 0 for code, _, _ in results)
    _check(project)
    again = _cli(src, project)
    out, err = again.communicate(timeout=240)
    assert again.returncode == 0, err
    assert json.loads(out)["unchanged"] == 2 * N
    _check(project)
