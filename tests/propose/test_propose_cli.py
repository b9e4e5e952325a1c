"""``winnow propose`` as a user runs it: exit codes, the report, templates, kill -9 and
resume, a second process on the same project, and an older project migrated."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.store import Project

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str, env: dict[str, str] | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True,
                          text=True, env=full, timeout=timeout, cwd=REPO)


@pytest.fixture
def project_file(posts_project):  # type: ignore[no-untyped-def]
    path = posts_project.path
    posts_project.close()
    return path


def test_propose_then_report(project_file: Path, server) -> None:
    done = cli("propose", str(project_file), "--url", server.url, "--model", "good",
               "--what", "prompt,quality,feedback")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["failed"] == 0 and out["ok"] == 13 and out["fields_applied"] > 0
    report = cli("propose", "report", str(project_file))
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    fields = {(r["field"], r["template_version"]) for r in data["rates"]}
    assert ("prompt", 1) in fields and ("feedback", 1) in fields
    assert data["totals"]["ok"] == 13


def test_failed_items_make_a_non_zero_exit(project_file: Path, server) -> None:
    done = cli("propose", str(project_file), "--url", server.url, "--model", "nojson",
               "--what", "quality")
    assert done.returncode == 1
    out = json.loads(done.stdout)
    assert out["failed"] == 5 and {f["post"] for f in out["failures"]} == {
        "q1", "q2", "q3", "q4", "q5"}


def test_user_errors_are_one_line(project_file: Path, server) -> None:
    for args, text in ((["--what", "colour"], "unknown proposal kind 'colour'"),
                       (["--url", ""], "no endpoint URL"),
                       (["--posts", "ids:nope"], "no post with id nope"),
                       # it said "no post matches 'raw'" for --limit 0 or -1
                       (["--limit", "0"], "argument --limit: expected a whole number >= 1"),
                       (["--limit", "-1"], "argument --limit: expected a whole number >= 1")):
        base = ["propose", str(project_file), "--url", server.url, "--model", "good"]
        done = cli(*base, *args)
        assert done.returncode == 2 and text in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    done = cli("propose", str(project_file), "--url", server.url, "--model", "unauthorized",
               "--what", "quality")
    assert done.returncode == 2 and "HTTP 401" in done.stderr


def test_the_key_comes_from_the_environment_and_never_enters_the_project(
        project_file: Path, server) -> None:
    done = cli("propose", str(project_file), "--url", server.url, "--model", "good",
               "--what", "quality", env={"WINNOW_PROPOSE_API_KEY": "sk-secret-123"})
    assert done.returncode == 0, done.stderr
    assert b"sk-secret-123" not in project_file.read_bytes()
    wal = project_file.with_name(project_file.name + "-wal")
    assert not wal.exists() or b"sk-secret-123" not in wal.read_bytes()


def test_templates_are_versioned(project_file: Path, tmp_path: Path) -> None:
    text = tmp_path / "user.txt"
    text.write_text("Label it. Post: {post}\n{schema}\n{postt}", encoding="utf-8")
    done = cli("propose", "template", str(project_file), "--kind", "quality", "--user",
               str(text), "--note", "shorter")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"kind": "quality", "version": 2,
                                       "unknown_placeholders": ["postt"]}
    listed = json.loads(cli("propose", "templates", str(project_file), "--kind",
                            "quality").stdout)
    assert [v["version"] for v in listed["quality"]] == [2, 1]
    with Project.open(project_file) as p, pytest.raises(Exception, match="versioned"):
        p.conn.execute("UPDATE proposal_templates SET user = 'x'")


def test_kill_9_mid_run_then_resume(project_file: Path, server) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "propose", str(project_file), "--url", server.url,
         "--model", "latency:300", "--what", "prompt,quality,safety", "--posts", "all",
         "--concurrency", "2"], env=env, cwd=REPO, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    saved = 0
    while time.monotonic() < deadline and saved < 3:
        time.sleep(0.1)
        with Project.open(project_file, readonly=True) as p:
            if p.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'proposals'"
                              ).fetchone():
                saved = p.conn.execute("SELECT count(*) FROM proposals").fetchone()[0]
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    with Project.open(project_file, readonly=True) as p:
        kept = p.conn.execute("SELECT count(*) FROM proposals").fetchone()[0]
    assert 3 <= kept < 18
    done = cli("propose", str(project_file), "--url", server.url, "--model", "latency:300",
               "--what", "prompt,quality,safety", "--posts", "all", "--concurrency", "8")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["cached"] == kept and out["ok"] == 18 - kept
    assert out["sent"] == 18 - kept  # nothing answered before the kill is asked again


def test_a_second_process_cannot_write_the_same_project(posts_project, server) -> None:
    done = cli("propose", str(posts_project.path), "--url", server.url, "--model", "good")
    assert done.returncode == 2 and "already open for writing" in done.stderr


def test_an_older_project_is_migrated_and_proposed_on(tmp_path: Path, server) -> None:
    from core.demo import create_demo_project

    project, _ = create_demo_project(tmp_path / "demo.winnow", ratings=False)
    path = project.path
    # back to the schema before m010: drop its objects and those of every later migration
    # (m011, team curation; m012, a column of its team_packages; m014, a column of
    # photo_regions; m015, photo_rejections), as an older Winnow left the file
    from core.store.schema import SCHEMA_VERSION
    from tests.store.schema_helpers import undo_m013, undo_m014, undo_m015

    # migrations after m010: their objects' names (m013: the samples' lines back in rows)
    later = {"m011_teamwork": "team_%", "m012_team_merge_digest": "team_%",
             "m013_sample_raw": "sample_raw", "m014_region_edited": "photo_regions",
             "m015_photo_rejections": "photo_rejections"}
    with project.transaction() as conn:
        undo_m015(conn)
        undo_m014(conn)
        undo_m013(conn)
        for kind, name in conn.execute(
                "SELECT type, name FROM sqlite_master WHERE name LIKE 'proposal%' OR "
                "name = 'feedback_labels' OR name LIKE ? ORDER BY type = 'view' DESC",
                (later["m011_teamwork"],)).fetchall():
            if kind in ("table", "view"):
                conn.execute(f"DROP {kind.upper()} IF EXISTS {name}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1 - len(later)}")
    project.close()
    done = cli("propose", str(path), "--url", server.url, "--model", "good", "--posts", "all",
               "--what", "quality", "--limit", "5")
    assert done.returncode == 0, done.stderr
    with Project.open(path, readonly=True) as p:
        assert p.schema_version == SCHEMA_VERSION
        assert p.conn.execute("SELECT count(*) FROM proposals").fetchone()[0] == 5
