"""ADR 213: every CLI writer killed with SIGKILL along its run, two processes at once,
and a project from an earlier version opened while another process has it.

The kill loops are in kill_cli.py (one subprocess per writer, forking a child per run);
the rest stops a process at a precise point through a hook, so nothing here depends on
timing luck.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from safety_helpers import REPO, winnow

from app.cli import run_cli
from core.store import Project
from core.store.schema import MIGRATIONS, SCHEMA_VERSION

KILLS = 8
HARNESS = Path(__file__).with_name("kill_cli.py")
LEGACY = REPO / "tests" / "rating" / "fixtures" / "legacy_v1"
R1 = LEGACY / "side_by_side-R1.winnow-session"
FORKS = pytest.mark.skipif(not hasattr(os, "fork"), reason="the harness forks (POSIX)")


@FORKS
@pytest.mark.parametrize("writer", ["export-hf", "export-photos", "metrics-csv",
                                    "metrics-parquet", "session-results", "curate-split",
                                    "import-hf", "metrics-run", "session-merge-old"])
def test_a_writer_killed_along_its_run_resumes_to_the_same_result(writer: str,
                                                                  tmp_path: Path) -> None:
    if writer in ("export-hf", "export-photos", "metrics-parquet", "import-hf"):
        pytest.importorskip("pyarrow")
    done = subprocess.run([sys.executable, str(HARNESS), writer, str(tmp_path), str(KILLS)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO),
                               "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["ref"] in ("exit 0", "exit 1"), result
    assert result["outcomes"].count("killed") >= KILLS // 2, result["outcomes"]
    assert result["problems"] == [], result["problems"]


# -- a project from an earlier version -------------------------------------------------
def _legacy(folder: Path) -> Path:
    """A copy of the schema-7 project of tests/rating/fixtures/legacy_v1."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(LEGACY / "legacy.winnow", folder / "legacy.winnow")
    shutil.copytree(LEGACY / "legacy.assets", folder / "legacy.assets")
    return folder / "legacy.winnow"


def _version(path: Path) -> int:
    conn = sqlite3.connect(path.as_uri() + "?mode=ro", uri=True)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def _tables(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path.as_uri() + "?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = "
                                            "'table' AND name != 'sqlite_stat1'")]
        return {n: conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
    finally:
        conn.close()


@FORKS
def test_a_migration_killed_inside_any_step_is_finished_by_the_next_open(
        tmp_path: Path) -> None:
    want = _tables(_migrated(_legacy(tmp_path / "ref")))
    start = _version(LEGACY / "legacy.winnow")
    for step in range(start, SCHEMA_VERSION):
        path = _legacy(tmp_path / f"step{step}")
        pid = os.fork()
        if pid == 0:  # the child runs the step's SQL, then dies before it commits
            real = MIGRATIONS[step]

            def die(conn: sqlite3.Connection, real=real) -> None:
                real(conn)
                os.kill(os.getpid(), signal.SIGKILL)

            MIGRATIONS[step] = die
            try:
                Project.open(path)
            finally:
                os._exit(3)
        _pid, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status), f"step {step} was not killed"
        assert _version(path) == step  # the step's transaction was rolled back whole
        assert _tables(_migrated(path)) == want, f"killed in step {step}"


def _migrated(path: Path) -> Path:
    Project.open(path).close()
    assert _version(path) == SCHEMA_VERSION
    return path


def test_a_second_writer_on_an_old_project_is_refused_naming_the_first(
        tmp_path: Path) -> None:
    path = _legacy(tmp_path / "p")
    with Project.open(path):  # migrated and held, as the app holds an open project
        done = winnow("session", "merge", path, R1)
        assert done.returncode == 2
        assert f"already open for writing by Winnow (pid {os.getpid()}" in done.stderr
        assert "Traceback" not in done.stderr
    done = winnow("session", "merge", path, R1, "--json")  # once it is closed: merged
    assert done.returncode == 0, done.stderr
    assert _tables(path)["rating_judgments"] > 0


def test_an_export_reads_one_state_while_another_process_migrates_and_edits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An old project is exported read-only (not migrated, ADR 187) while another
    process migrates it, merges a rater file and edits every prompt: the export holds
    the state it started from, whole, and the other process is never kept waiting."""
    import core.curate.export as export

    path = _legacy(tmp_path / "p")
    real = export._write_image
    others: list[subprocess.CompletedProcess[str]] = []

    def meanwhile(*args: object) -> None:
        if not others:
            others.append(winnow("session", "merge", path, R1, timeout=60))
            others.append(subprocess.run(
                [sys.executable, "-c", "import sys; from core.store import Project\n"
                 "with Project.open(sys.argv[1]) as p, p.transaction() as c:\n"
                 "    c.execute(\"UPDATE samples SET prompt = 'edited'\")", str(path)],
                capture_output=True, text=True, timeout=60,
                env={**os.environ, "PYTHONPATH": str(REPO)}))
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(export, "_write_image", meanwhile)
    out = tmp_path / "out"
    assert run_cli(["export", "benchmark", str(path), "--out", str(out)]) == 0
    assert [o.returncode for o in others] == [0, 0], [o.stderr[-500:] for o in others]
    prompts = {json.loads(line)["prompt"]
               for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()}
    assert len(prompts) == 3 and "edited" not in prompts  # the state it started from
    assert _version(path) == SCHEMA_VERSION and _tables(path)["rating_judgments"] > 0


# -- two exports into one folder ------------------------------------------------------
def test_two_exports_into_one_new_folder_one_wins_whole_the_other_says_so(
        project_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The second export's folder is published by another export just before its own
    swap (the moment two exports started together meet): it refuses, naming the folder,
    replaces nothing and leaves nothing behind."""
    from core.export_folder import ExportFolder

    out = tmp_path / "shared" / "bench"
    real = ExportFolder._swap
    other: list[subprocess.CompletedProcess[str]] = []

    def swap(self: ExportFolder) -> None:
        if not other:
            other.append(winnow("export", "benchmark", project_path, "--out", out,
                                "--format", "hf", timeout=60))
        real(self)

    monkeypatch.setattr(ExportFolder, "_swap", swap)
    assert run_cli(["export", "benchmark", str(project_path), "--out", str(out)]) == 2
    assert other[0].returncode == 0, other[0].stderr
    err = capsys.readouterr().err
    assert str(out) in err and "was filled while exporting" in err
    assert (out / "README.md").is_file() and not (out / "samples.jsonl").exists()
    assert os.listdir(out.parent) == ["bench"]  # the loser's hidden folder is gone


# -- a split killed after its packages were published ----------------------------------
def test_a_split_run_again_into_its_folder_names_the_split_already_there(
        project_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A split killed after publishing (while closing the project) is complete; running
    it again must say so, not suggest an overwrite that `curate split` does not have."""
    out = tmp_path / "packages"
    argv = ["curate", "split", str(project_path), "--names", "Ann,Ben", "--out", str(out),
            "--name", "week 1"]
    assert run_cli(argv) == 0
    before = sorted(os.listdir(out))
    capsys.readouterr()
    assert run_cli(argv) == 2
    err = capsys.readouterr().err
    assert "already holds the packages of split 'week 1'" in err and str(out) in err
    assert "overwrite" not in err
    assert sorted(os.listdir(out)) == before
    with Project.open(project_path, readonly=True) as project:
        assert project.conn.execute("SELECT count(*) FROM team_splits").fetchone()[0] == 1


# -- a demo killed while it was being built ---------------------------------------------
def _small_demo(monkeypatch: pytest.MonkeyPatch, threads: int = 6) -> None:
    """A demo of a few threads, no photos: the same steps in a few seconds (64 threads
    give the rating sessions enough samples)."""
    import core.demo.sources as sources
    from core import extras

    real_generate, real_available = sources.generate_demo_sources, extras.available
    monkeypatch.setattr(sources, "generate_demo_sources",
                        lambda root, seed=0: real_generate(root, seed=seed, n_threads=threads))
    monkeypatch.setattr(extras, "available",
                        lambda part: False if part == "anonymize" else real_available(part))


@FORKS
def test_a_demo_killed_half_way_is_built_again_not_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGKILL skips the clean-up of a half-made demo: the next demo at that path used to
    be refused for ever ("already exists"), and `winnow --demo` opened the half demo."""
    import core.demo.project as demo

    _small_demo(monkeypatch)
    path = tmp_path / "demo" / "d.winnow"
    pid = os.fork()
    if pid == 0:  # killed while importing the model outputs, after the posts
        demo.import_outputs = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
        try:
            demo.create_demo_project(path, ratings=False)
        finally:
            os._exit(3)
    _pid, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and path.exists()
    project, _report = demo.create_demo_project(path, ratings=False)
    with project:
        assert project.counts()["samples"] > 0
        assert project.conn.execute("SELECT count(*) FROM model_outputs").fetchone()[0] > 0
        assert project.meta(demo.BUILDING_KEY) is None  # finished: never taken for half-made
    with pytest.raises(FileExistsError, match="never replaces"):  # a finished one stays
        demo.create_demo_project(path, ratings=False)


def test_a_demo_is_removed_only_when_its_builder_is_gone_and_no_one_has_it(
        tmp_path: Path) -> None:
    import core.demo.project as demo
    from core.export_files import append_to_marker
    from core.files import process_tag

    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)
    dead = f"{ended.stdout.strip()}-{process_tag().partition('-')[2]}"
    for tag, removed in ((process_tag(), False), (dead, True)):  # alive: being built
        path = tmp_path / str(removed) / "d.winnow"
        demo.demo_sources_dir(path).mkdir(parents=True)
        with Project.create(path) as project, project.transaction() as conn:
            conn.execute("INSERT INTO project_meta(key, value) VALUES (?, ?)",
                         (demo.BUILDING_KEY, tag))
        append_to_marker(demo.demo_sources_dir(path), [{"demo_build": tag,
                                                        "project": path.name}])
        with Project.open(path):  # held open (by a viewer, say): never removed
            assert not demo.remove_killed_demo(path) and path.exists()
        assert demo.remove_killed_demo(path) is removed
        assert path.exists() is not removed


@FORKS
def test_a_demo_killed_while_a_simulated_rater_answers_is_built_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rater files of a killed demo (one with its ``-wal``, answered half-way) are
    not yet in the sources' marker: they are proved the half-made project's, so the next
    demo replaces the sources folder instead of refusing it."""
    import core.demo.project as demo
    import core.demo.ratings as ratings

    _small_demo(monkeypatch, threads=64)
    path = tmp_path / "d.winnow"
    pid = os.fork()
    if pid == 0:
        real_rate, calls = ratings._rate_file, []

        def rate_then_die(file: Path, *args: object) -> None:
            calls.append(file)
            if len(calls) == 2:  # the second rater dies with its answers in the -wal
                import sqlite3 as sq

                conn = sq.connect(file)
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("CREATE TABLE scribble(x)")
                os.kill(os.getpid(), signal.SIGKILL)
            real_rate(file, *args)

        ratings._rate_file = rate_then_die  # type: ignore[assignment]
        try:
            demo.create_demo_project(path)
        finally:
            os._exit(3)
    _pid, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status)
    left = os.listdir(demo.demo_sources_dir(path) / "rating-sessions")
    assert any(n.endswith("-wal") for n in left), left
    project, _report = demo.create_demo_project(path)
    with project:
        assert project.conn.execute("SELECT count(*) FROM rating_sessions").fetchone()[0] == 3
