"""Creating a session never leaves one without rater files behind (its name would be
taken for good); the design dialog refuses a taken name or files in the way before it
closes, so the designer does not lose the settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from rating_helpers import MODELS, SAMPLES, build_project, make_session

from core.rating import sessions
from core.rating.design import SessionDesign
from core.rating.sessions import (
    create_and_write,
    create_session,
    discard_unwritten,
    list_sessions,
    session_files_in_the_way,
)


def _design(name: str = "s") -> SessionDesign:
    return SessionDesign(name=name, protocol="likert", sample_ids=SAMPLES, models=MODELS,
                         raters=2, seed=1)


def _names(project) -> list[str]:  # type: ignore[no-untyped-def]
    return [s.name for s in list_sessions(project)]


def test_files_in_the_way_are_refused_before_anything_is_recorded(rproject,  # type: ignore[no-untyped-def]
                                                                   tmp_path: Path) -> None:
    out = tmp_path / "files"
    out.mkdir()
    (out / "s-R2.winnow-session").write_bytes(b"a rater's answers")
    assert session_files_in_the_way("s", 2, out) == [out / "s-R2.winnow-session"]
    with pytest.raises(FileExistsError, match="s-R2.winnow-session"):
        create_and_write(rproject, _design(), out)
    assert _names(rproject) == []
    assert (out / "s-R2.winnow-session").read_bytes() == b"a rater's answers"
    assert sorted(p.name for p in out.iterdir()) == ["s-R2.winnow-session"]



@pytest.mark.parametrize("log", ["-wal", "-journal"])
def test_another_files_log_in_the_way_is_refused_and_kept(rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                          log: str) -> None:
    # a -wal left by another copy of a rater file (a deleted session's, say) under the new
    # file's name: the session was created, and its file could then not be rated ("the
    # -wal beside it is not this file's") nor merged
    out = tmp_path / "files"
    out.mkdir()
    stale = out / f"s-R1.winnow-session{log}"
    stale.write_bytes(b"another copy's pages")
    assert session_files_in_the_way("s", 2, out) == [stale]
    with pytest.raises(FileExistsError, match=f"already holds s-R1.winnow-session{log}"):
        create_and_write(rproject, _design(), out)
    assert _names(rproject) == []
    assert sorted(p.name for p in out.iterdir()) == [stale.name]
    assert stale.read_bytes() == b"another copy's pages"
    create_session(rproject, _design())  # a session recorded before (e.g. by the dialog)
    with pytest.raises(FileExistsError, match=f"s-R1.winnow-session{log} already exists"):
        sessions.write_session_files(rproject, "s", out)
    assert sorted(p.name for p in out.iterdir()) == [stale.name]


def test_failed_write_leaves_no_session_and_no_files(rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                     monkeypatch) -> None:
    real = sessions._write_one
    calls = []

    def failing(*args, **kw):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(*args, **kw)

    monkeypatch.setattr(sessions, "_write_one", failing)
    out = tmp_path / "files"
    with pytest.raises(OSError, match="No space"):
        create_and_write(rproject, _design(), out)
    assert _names(rproject) == [] and list(out.iterdir()) == []
    assert rproject.conn.execute("SELECT count(*) FROM audit_log WHERE action = 'delete' "
                                 "AND entity = 'rating_session'").fetchone()[0] == 1
    monkeypatch.setattr(sessions, "_write_one", real)
    files = create_and_write(rproject, _design(), out)  # the name is free again
    assert [f.name for f in files] == ["s-R1.winnow-session", "s-R2.winnow-session"]
    assert _names(rproject) == ["s"]
    assert not discard_unwritten(rproject, "s")  # written: kept
    with pytest.raises(ValueError, match="already exists"):
        create_and_write(rproject, _design(), tmp_path / "other")


def test_written_session_keeps_its_name(tmp_path: Path) -> None:
    project = build_project(tmp_path / "p.winnow")
    make_session(project, tmp_path / "f", "ranking", name="r")
    assert not discard_unwritten(project, "r")
    with pytest.raises(ValueError, match="already exists"):
        create_session(project, SessionDesign(name="r", protocol="ranking",
                                              sample_ids=SAMPLES, models=MODELS))
    project.close()


@pytest.mark.gui
def test_dialog_refuses_taken_name_and_files_in_the_way(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("PySide6")
    from PySide6.QtCore import Qt

    from ui.rate.design_dialog import DesignDialog

    out = tmp_path / "files"
    out.mkdir()
    dialog = DesignDialog(list(SAMPLES), list(MODELS), "a test", out,
                          taken=["session-1", "old"])
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.name.text() == "session-2"
    dialog.name.selectAll()
    qtbot.keyClicks(dialog.name, "old")
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
    assert dialog.isVisible() and dialog.result_design is None
    assert "'old' already exists" in dialog.error.text()
    (out / "new-R1.winnow-session").write_bytes(b"x")
    dialog.name.selectAll()
    qtbot.keyClicks(dialog.name, "new")
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
    assert dialog.isVisible() and "new-R1.winnow-session" in dialog.error.text()
    dialog.name.selectAll()
    qtbot.keyClicks(dialog.name, "fresh")
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
    assert not dialog.isVisible() and dialog.result_design.name == "fresh"


@pytest.mark.gui
def test_dialog_says_what_the_cli_says_about_files_and_folders_in_the_way(  # type: ignore[no-untyped-def]
        qtbot, rproject, tmp_path: Path) -> None:
    """The dialog wrote its own wording for files in the way, and let a link to nothing
    through as the folder for the rater files (ADR 216)."""
    pytest.importorskip("PySide6")
    from PySide6.QtCore import Qt

    from ui.rate.design_dialog import DesignDialog

    out = tmp_path / "files"
    out.mkdir()
    (out / "new-R1.winnow-session").write_bytes(b"a rater's answers")
    with pytest.raises(FileExistsError) as refused:
        create_and_write(rproject, _design("new"), out)
    dialog = DesignDialog(list(SAMPLES), list(MODELS), "a test", out, taken=[])
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.name.selectAll()
    qtbot.keyClicks(dialog.name, "new")
    dialog.raters.setValue(2)
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
    assert dialog.isVisible() and dialog.error.text() == str(refused.value)
    assert "Winnow left it as it is" in dialog.error.text()
    dangling = tmp_path / "gone"
    dangling.symlink_to(tmp_path / "nowhere")
    dialog.out_dir.setText(str(dangling))
    dialog.name.selectAll()
    qtbot.keyClicks(dialog.name, "fresh")
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
    assert dialog.isVisible() and dialog.result_design is None
    assert dialog.error.text() == (f"{dangling} is a link to nothing; Winnow left it as it "
                                   "is: give a folder for the rater files")
    assert (out / "new-R1.winnow-session").read_bytes() == b"a rater's answers"
