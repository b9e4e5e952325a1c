"""The Rate workspace in the main window, and the ``winnow session`` / ``rate`` CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rating_helpers import MODELS, build_project, png

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QDialogButtonBox  # noqa: E402

from app.cli import run_cli  # noqa: E402
from core.rating.session_file import RatingSession  # noqa: E402
from core.selection import SampleFilter  # noqa: E402


@pytest.fixture
def window(main_window, tmp_path: Path):  # type: ignore[no-untyped-def]
    build_project(tmp_path / "w.winnow").close()
    win = main_window
    assert win.open_project(tmp_path / "w.winnow")
    yield win
    for rater in list(win.pages["rate"].raters):
        rater.close()
    win.runner.shutdown()
    win.close_project()


@pytest.mark.gui
def test_design_merge_summary_and_file_open(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    page = window.pages["rate"]
    assert page.stack.currentWidget() is page.main
    assert "aurora-xl (6)" in page.info.text()
    window.context.set_selection(SampleFilter(ids=("s000", "s001", "s002")))
    window.nav.setCurrentRow(list(window.pages).index("rate"))  # counted once shown
    assert "Curate filter: 3 samples;" in page.info.text()
    for table in (page.sessions, page.summary):  # the columns fill the table's width
        assert table.horizontalHeader().length() >= table.viewport().width() - 1
    dialog = page.new_session()
    assert dialog.samples.text().startswith("3 samples")
    dialog.name.setText("gui-sbs")
    dialog.protocol.setCurrentIndex(dialog.protocol.findData("side_by_side"))
    dialog.raters.setValue(2)
    dialog.gold_rate.setValue(0)
    dialog.min_time.setValue(0)
    dialog.out_dir.setText(str(tmp_path / "files"))
    dialog.models.item(3).setCheckState(Qt.CheckState.Unchecked)
    qtbot.mouseClick(dialog.findChild(QDialogButtonBox).button(
        QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.last_job is not None and page.last_job.future.done(),
                    timeout=20_000)
    qtbot.waitUntil(lambda: page.sessions.rowCount() == 1, timeout=5000)
    files = sorted((tmp_path / "files").glob("*.winnow-session"))
    assert [f.name for f in files] == ["gui-sbs-R1.winnow-session", "gui-sbs-R2.winnow-session"]
    assert page.sessions.item(0, 0).text() == "gui-sbs"
    assert page.summary.item(0, 1).text() == "not returned yet"
    # File → Open on a session file opens the rater view
    assert window.open_path(files[0])
    rater = page.raters[-1]
    assert rater.session.protocol == "side_by_side" and rater.isVisible()
    qtbot.keyClicks(rater.name_edit, "Ada")
    qtbot.keyClick(rater.name_edit, Qt.Key.Key_Return)
    for _ in range(3):
        qtbot.keyClick(rater, Qt.Key.Key_Left)
        qtbot.keyClick(rater, Qt.Key.Key_Return)
    rater.close()
    page.merge([files[0]])
    qtbot.waitUntil(lambda: page.last_job.future.done(), timeout=10_000)
    qtbot.waitUntil(lambda: page.summary.item(0, 1).text() == "Ada", timeout=5000)
    assert page.summary.item(0, 2).text().startswith("3/")
    out = tmp_path / "votes.csv"
    assert page.export("gui-sbs", out) == 3
    lines = out.read_text().splitlines()
    assert lines[0] == "a,b,winner,rater,item,criterion"
    assert {line.split(",")[3] for line in lines[1:]} == {"Ada"}


@pytest.mark.gui
def test_import_outputs_from_the_workspace_reports_missing_and_extra(window, qtbot,  # type: ignore[no-untyped-def]
                                                                    tmp_path: Path) -> None:
    root = tmp_path / "outs"
    (root / "newmodel").mkdir(parents=True)
    (root / "other").mkdir()
    (root / "newmodel" / "s000.png").write_bytes(png(1))
    (root / "newmodel" / "s001.png").write_bytes(png(2))
    (root / "other" / "s000.png").write_bytes(png(3))
    (root / "other" / "ghost.png").write_bytes(png(4))
    page = window.pages["rate"]
    job = page.import_outputs(root)
    qtbot.waitUntil(lambda: job.future.done(), timeout=10_000)
    qtbot.waitUntil(lambda: getattr(page, "last_box", None) is not None, timeout=5000)
    assert "3 imported" in page.last_box.text()
    details = page.last_box.detailedText()
    assert "other: missing 1: s001" in details and "other/ghost.png" in details
    qtbot.waitUntil(lambda: "newmodel (2)" in page.info.text(), timeout=5000)


@pytest.mark.gui
def test_empty_state_without_a_project(qtbot) -> None:  # type: ignore[no-untyped-def]
    from ui.context import AppContext
    from ui.rate.workspace import RateWorkspace

    context = AppContext()
    page = RateWorkspace(context)
    qtbot.addWidget(page)
    assert page.stack.currentWidget() is page.empty
    assert ".winnow-session" in context.file_handlers
    assert not page.act_new.isEnabled() and page.act_rate.isEnabled()
    assert page.workspace_menu().title() == "&Rate"


def test_cli_create_merge_results_round_trip(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    project_path = tmp_path / "c.winnow"
    build_project(project_path).close()
    out = tmp_path / "files"
    args = ["session", "create", str(project_path), "--name", "cli-rank", "--protocol",
            "ranking", "--out", str(out), "--raters", "2", "--overlap", "2", "--gold-rate",
            "0.2", "--seed", "5", "--json"]
    assert run_cli(args) == 0
    created = json.loads(capsys.readouterr().out)
    # both raters rank all 6 samples: gold takes one sample's place (ADR 191)
    assert created["raters"]["R1"] == {"tasks": 6, "gold": 1}
    files = [Path(f) for f in created["files"]]
    for k, f in enumerate(files):
        s = RatingSession.open(f)
        s.set_rater(f"rater{k}")
        while (t := s.next_task()) is not None:
            ranks = {tok: i + 1 for i, (tok, _) in enumerate(t.options)}
            s.submit(t.task_id, {"ranks": ranks}, time_ms=100)
        s.close()
    assert run_cli(["session", "merge", str(project_path), *map(str, files)]) == 0
    assert "6 new judgment(s)" in capsys.readouterr().out
    assert run_cli(["session", "merge", str(project_path), str(files[0])]) == 0
    assert "0 new judgment(s), 6 already merged" in capsys.readouterr().out
    csv_path = tmp_path / "r.csv"
    assert run_cli(["session", "results", str(project_path), "--session", "cli-rank",
                    "--out", str(csv_path)]) == 0
    lines = csv_path.read_text().splitlines()
    assert lines[0] == "rater,item,model,rank" and len(lines) == 1 + 2 * 5 * len(MODELS)
    capsys.readouterr()
    assert run_cli(["stats", "friedman", str(csv_path)]) == 0
    assert "statistic" in json.loads(capsys.readouterr().out)
    assert run_cli(["session", "summary", str(project_path), "--session", "cli-rank"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [s["completed"] for s in summary] == [6, 6]
    # the same seed in another project plans differently: the session's secret is part
    # of its seed, so a rater who knows the seed cannot replay the plan (ADR 052/058);
    # the project's record (design, seed and secret) reproduces it (test_design.py)
    other = tmp_path / "d.winnow"
    shutil.copy(project_path, other)
    shutil.copytree(tmp_path / "c.assets", tmp_path / "d.assets")
    assert run_cli([*args[:2], str(other), "--name", "again", *args[5:7], "--out",
                    str(tmp_path / "f2"), *args[9:]]) == 0
    capsys.readouterr()
    from core.store import Project

    with Project.open(other) as p:
        plans = [p.conn.execute(
            "SELECT slot, position, sample_id, unit FROM rating_tasks t JOIN rating_sessions s "
            "ON s.id = t.session_id WHERE s.name = ? ORDER BY slot, position", (n,)).fetchall()
            for n in ("cli-rank", "again")]
    assert plans[0] != plans[1] and sorted(plans[0]) != sorted(plans[1])


def test_cli_errors_are_one_clear_line(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    project_path = tmp_path / "c.winnow"
    build_project(project_path).close()
    assert run_cli(["session", "create", str(project_path), "--name", "x", "--protocol",
                    "ranking", "--out", str(tmp_path), "--models", "nope"]) == 2
    assert "no outputs imported for model(s) nope" in capsys.readouterr().err
    assert run_cli(["session", "results", str(project_path), "--session", "x", "--out",
                    str(tmp_path / "x.csv")]) == 2
    assert "no rating session named 'x'" in capsys.readouterr().err
    junk = tmp_path / "junk.winnow-session"
    junk.write_text("junk")
    assert run_cli(["session", "merge", str(project_path), str(junk)]) == 1
    assert "refused" in capsys.readouterr().err
    assert run_cli(["rate", str(junk)]) == 2
    assert "not a Winnow session file" in capsys.readouterr().err


def test_cli_create_refuses_files_in_the_way_and_records_nothing(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    project_path = tmp_path / "c.winnow"
    build_project(project_path).close()
    out = tmp_path / "files"
    out.mkdir()
    (out / "again-R1.winnow-session").write_text("someone else's file")
    args = ["session", "create", str(project_path), "--name", "again", "--protocol",
            "ranking", "--out", str(out), "--raters", "2", "--seed", "1"]
    assert run_cli(args) == 2
    assert "again-R1.winnow-session" in capsys.readouterr().err
    assert (out / "again-R1.winnow-session").read_text() == "someone else's file"
    (out / "again-R1.winnow-session").unlink()
    assert run_cli(args) == 0  # the name was not taken by the refused attempt


def test_cli_gold_auto_without_a_rate_gets_the_default_share(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    project_path = tmp_path / "c.winnow"
    build_project(project_path).close()
    base = ["session", "create", str(project_path), "--protocol", "side_by_side",
            "--raters", "1", "--seed", "3", "--json"]
    assert run_cli([*base, "--name", "plain", "--out", str(tmp_path / "a")]) == 0
    plain = json.loads(capsys.readouterr().out)["raters"]["R1"]
    assert plain["gold"] == 0  # nothing asked, no gold
    assert run_cli([*base, "--name", "golden", "--gold", "auto",
                    "--out", str(tmp_path / "b")]) == 0
    golden = json.loads(capsys.readouterr().out)["raters"]["R1"]
    assert golden["gold"] >= 1 and golden["gold"] <= 0.25 * golden["tasks"]
