"""A JSONL line whose sample id is a sample Winnow itself made (issue: import clash,
item 1; ADR 166): one named line error, every other line in, the Winnow-made sample
untouched — through the core, the CLI (``python -m app import posts``) and the GUI job."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from core.curate.derive import DeriveFromTemplate
from core.ingest.importer import import_jsonl
from core.propose.apply import create_from_post
from core.store import Project

REPO = Path(__file__).resolve().parents[2]
CLASH = "sample id '{}' already exists and was made in Winnow, not imported: line skipped"


def _write(path: Path, objs: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return path


def _snapshot(project: Project, sid: str) -> tuple[Any, ...]:
    conn = project.conn
    return (
        conn.execute("SELECT * FROM samples WHERE id = ?", (sid,)).fetchall(),
        conn.execute("SELECT * FROM sample_raw WHERE sample_id = ?", (sid,)).fetchall(),
        conn.execute("SELECT * FROM sample_images WHERE sample_id = ? ORDER BY role, position",
                     (sid,)).fetchall(),
        conn.execute("SELECT * FROM feedback WHERE sample_id = ? ORDER BY position",
                     (sid,)).fetchall(),
        conn.execute("SELECT * FROM sample_tags WHERE sample_id = ? ORDER BY tag",
                     (sid,)).fetchall(),
        conn.execute("SELECT count(*) FROM audit_log WHERE entity_id = ?", (sid,)).fetchone(),
    )


NATIVE = ("hand1", "tpl~fill~reply1", "prop1")


def _project_with_native_samples(path: Path, src_dir: Path) -> tuple[Path, str, str]:
    """A project with one imported template sample and three samples made in Winnow: one
    made by hand from a post, one derived from a template (both have an audit 'edit'), and
    one proposed (no 'edit': the database used to refuse it with an IntegrityError)."""
    seed = _write(src_dir / "seed.jsonl", [
        {"id": "post1", "text": "Make a ___ of a fox"},
        {"id": "reply1", "text": "watercolour", "parent_id": "post1"},
        {"id": "tpl", "prompt": "Make a ___ of a fox", "post_id": "post1", "tags": ["template"]},
    ])
    with Project.create(path) as project:
        assert import_jsonl(project, seed, fetch_images=False).errors == []
        with project.transaction():
            hand, _ = create_from_post(project, "post1", "hand", sample_id="hand1")
            create_from_post(project, "post1", "proposed", sample_id="prop1")
        command = DeriveFromTemplate("tpl", "reply1")
        command.do(project)
        derived = command.new_id
        assert (hand, derived) == NATIVE[:2]
        assert project.conn.execute("SELECT count(*) FROM sample_raw WHERE sample_id IN "
                                    "(?, ?, ?)", NATIVE).fetchone()[0] == 0
    return path, hand, derived


def _clash_file(src_dir: Path, hand: str, derived: str) -> Path:
    return _write(src_dir / "clash.jsonl", [
        {"id": "p2", "text": "another post"},                                  # 1
        {"id": hand, "prompt": "imported over a hand-made sample",             # 2
         "post_id": "p2", "tags": ["x"]},
        {"id": "fresh", "prompt": "a new sample", "post_id": "p2"},            # 3
        {"id": derived, "prompt": "imported over a derived sample",            # 4
         "post": {"id": "emb4", "text": "embedded: skipped with its line"}},
        {"id": "fresh2", "prompt": "another new one"},                         # 5
        {"id": "prop1", "prompt": "imported over a proposed sample"},          # 6
    ])


def _check_result(project: Project, errors: list[dict[str, Any]], hand: str, derived: str,
                  before: dict[str, tuple[Any, ...]]) -> None:
    assert errors == [{"line": 2, "error": CLASH.format(hand)},
                      {"line": 4, "error": CLASH.format(derived)},
                      {"line": 6, "error": CLASH.format("prop1")}]
    for sid, snap in before.items():
        assert _snapshot(project, sid) == snap, sid
    ids = {r[0] for r in project.conn.execute("SELECT id FROM samples")}
    assert {"fresh", "fresh2"} <= ids
    assert project.conn.execute("SELECT count(*) FROM posts WHERE id = 'p2'").fetchone()[0] == 1
    assert project.conn.execute("SELECT count(*) FROM posts WHERE id = 'emb4'").fetchone()[0] == 0
    assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.parametrize("read_ahead", [True, False])
@pytest.mark.parametrize("batch_size", [1, 2000])
def test_a_line_with_the_id_of_a_winnow_made_sample_is_skipped_and_named(
        tmp_path: Path, read_ahead: bool, batch_size: int) -> None:
    path, hand, derived = _project_with_native_samples(tmp_path / "p.winnow", tmp_path)
    src = _clash_file(tmp_path, hand, derived)
    with Project.open(path) as project:
        before = {sid: _snapshot(project, sid) for sid in (*NATIVE, "tpl")}
        report = import_jsonl(project, src, fetch_images=False, read_ahead=read_ahead,
                              batch_size=batch_size)
        _check_result(project, report.errors, hand, derived, before)
        assert (report.imported, report.updated, report.unchanged) == (3, 0, 0)
        # a second run of the same file: the same two errors, the rest unchanged
        again = import_jsonl(project, src, fetch_images=False, read_ahead=read_ahead,
                             batch_size=batch_size)
        _check_result(project, again.errors, hand, derived, before)
        assert (again.imported, again.updated, again.unchanged) == (0, 0, 3)


def test_a_one_line_file_that_clashes_is_a_line_error_not_a_traceback(tmp_path: Path) -> None:
    """The batch of one line used to re-raise the database's refusal."""
    path, hand, _ = _project_with_native_samples(tmp_path / "p.winnow", tmp_path)
    src = _write(tmp_path / "one.jsonl", [{"id": hand, "prompt": "x"}])
    with Project.open(path) as project:
        report = import_jsonl(project, src, fetch_images=False)
    assert report.errors == [{"line": 1, "error": CLASH.format(hand)}]


def test_one_line_the_database_refuses_is_reported_not_raised(tmp_path: Path,
                                                              monkeypatch) -> None:
    """Defence in depth: a one-line batch the database refuses is that line's error."""
    import sqlite3

    from core.ingest import writer

    def refuse(self, conn, posts, samples, log, final):  # type: ignore[no-untyped-def]
        raise sqlite3.IntegrityError("UNIQUE constraint failed: samples.id")

    monkeypatch.setattr(writer.Writer, "write", refuse)
    src = _write(tmp_path / "one.jsonl", [{"id": "s", "prompt": "x",
                                           "post": {"id": "e", "text": "embedded"}}])
    with Project.create(tmp_path / "p.winnow") as project:
        report = import_jsonl(project, src, fetch_images=False)
        assert report.errors == [{"line": 1, "error": "could not be stored: UNIQUE "
                                                      "constraint failed: samples.id"}]
        assert project.counts()["samples"] == 0 and project.counts()["posts"] == 0


def test_retried_line_by_line_a_refused_sample_keeps_its_embedded_post_out(
        tmp_path: Path, monkeypatch) -> None:
    """When a batch is retried line by line, a sample goes with its embedded post: a line
    refused as made in Winnow writes neither."""
    from core.ingest import writer

    path, hand, _ = _project_with_native_samples(tmp_path / "p.winnow", tmp_path)
    real = writer.Writer.write

    def write(self, conn, posts, samples, log, final):  # type: ignore[no-untyped-def]
        if len(posts) + len(samples) > 1:  # the whole batch is refused: line by line
            raise ValueError("odd value")
        return real(self, conn, posts, samples, log, final)

    monkeypatch.setattr(writer.Writer, "write", write)
    src = _write(tmp_path / "retry.jsonl", [
        {"id": "p9", "text": "fine"},
        {"id": hand, "prompt": "x", "post": {"id": "emb", "text": "embedded"}},
        {"id": "new", "prompt": "y", "post": {"id": "emb2", "text": "embedded too"}}])
    with Project.open(path) as project:
        report = import_jsonl(project, src, fetch_images=False)
        assert report.errors == [{"line": 2, "error": CLASH.format(hand)}]
        posts_in = {r[0] for r in project.conn.execute("SELECT id FROM posts")}
        assert {"p9", "emb2"} <= posts_in and "emb" not in posts_in


def test_cli_names_the_line_and_exits_1(tmp_path: Path) -> None:
    path, hand, derived = _project_with_native_samples(tmp_path / "p.winnow", tmp_path)
    src = _clash_file(tmp_path, hand, derived)
    with Project.open(path) as project:
        before = {sid: _snapshot(project, sid) for sid in (*NATIVE, "tpl")}
    base = [sys.executable, "-m", "app", "import", "posts", str(src), "-p", str(path),
            "--no-images"]
    proc = subprocess.run([*base, "--json"], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    out = json.loads(proc.stdout)
    assert out["imported"] == 3
    with Project.open(path) as project:
        _check_result(project, out["errors"], hand, derived, before)
    proc = subprocess.run(base, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"  line 2: {CLASH.format(hand)}" in proc.stdout.splitlines()
    assert f"  line 4: {CLASH.format(derived)}" in proc.stdout.splitlines()
    assert f"  line 6: {CLASH.format('prop1')}" in proc.stdout.splitlines()


@pytest.mark.gui
def test_gui_import_job_reports_the_clash(main_window, qtbot, tmp_path: Path) -> None:
    pytest.importorskip("PySide6")
    from ui.import_report import ImportReportDialog

    path, hand, derived = _project_with_native_samples(tmp_path / "p.winnow", tmp_path)
    src = _clash_file(tmp_path, hand, derived)
    with Project.open(path) as project:
        before = {sid: _snapshot(project, sid) for sid in (*NATIVE, "tpl")}
    window = main_window
    assert window.open_project(path)
    window._dialogs.clear()
    job = window.import_file(src)
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=30_000)
    assert job.outcome == "done", job.error
    qtbot.waitUntil(lambda: any(isinstance(w, ImportReportDialog) for w in window._dialogs),
                    timeout=5_000)
    dialog = next(w for w in window._dialogs if isinstance(w, ImportReportDialog))
    rows = [(dialog.line_table.item(r, 0).text(), dialog.line_table.item(r, 1).text())
            for r in range(dialog.line_table.rowCount())]
    assert rows == [("2", CLASH.format(hand)), ("4", CLASH.format(derived)),
                    ("6", CLASH.format("prop1"))]
    window.close_project()
    with Project.open(path, readonly=True) as project:
        _check_result(project, job.future.result()["errors"], hand, derived, before)
