"""Another program holds the rater's file open when the rater closes the window (ADR 210).

A reader inside a transaction (a database viewer, a sync or backup tool, sqlite3 after
``BEGIN``) keeps SQLite from copying the write-ahead log into the file: the answers given
since it began stay in ``<file>-wal``.  Before ADR 210 the rater window closed without a
word, and a rater who sent back the file alone lost those answers silently (the merge
cannot tell: the key chain in the file alone is consistent).  Now closing says so, names
the file and its -wal and what to do, and stays open until the rater retries or closes
anyway.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from rating_helpers import make_session, simple_answer

from core.rating.rater_open import answers_left_in_wal, open_for_rating
from core.rating.returned import read_returned


def _file_alone(path: Path) -> int:
    """Judgments the main file holds by itself (its -wal ignored)."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM judgments").fetchone()[0])
    finally:
        conn.close()


def _holder(path: Path) -> sqlite3.Connection:
    """Another program with the file open inside a read transaction."""
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN")
    other.execute("SELECT count(*) FROM judgments").fetchone()
    return other


def _answer(session, n: int) -> None:  # type: ignore[no-untyped-def]
    for _ in range(n):
        task = session.next_task()
        assert task is not None
        session.submit(task.task_id, simple_answer(task), time_ms=2000)


@pytest.fixture
def file(rproject, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    return make_session(rproject, tmp_path / "held", "likert", raters=1)[0]


def test_nothing_to_say_when_the_file_alone_holds_every_answer(file: Path) -> None:
    session = open_for_rating(file)
    session.set_rater("Ada")
    idle = sqlite3.connect(file)  # open, but not reading: no obstacle
    _answer(session, 3)
    assert answers_left_in_wal(session) is None
    session.close()
    idle.close()
    assert _file_alone(file) == 3


def test_answers_a_reader_keeps_in_the_wal_are_named(file: Path) -> None:
    session = open_for_rating(file)
    session.set_rater("Ada")
    _answer(session, 1)
    other = _holder(file)
    _answer(session, 3)
    text = answers_left_in_wal(session)
    assert text is not None
    assert file.name in text and f"{file.name}-wal" in text
    assert "3 of your answers" in text and "another program" in text
    assert "close" in text.lower()
    assert _file_alone(file) == 1  # what the warning is about
    other.execute("COMMIT")  # the other program lets go: retrying folds everything in
    assert answers_left_in_wal(session) is None
    session.close()
    other.close()
    assert _file_alone(file) == 4


def test_closing_anyway_keeps_the_answers_for_the_file_with_its_wal(file: Path) -> None:
    session = open_for_rating(file)
    session.set_rater("Ada")
    other = sqlite3.connect(file, isolation_level=None, uri=False)
    other.execute("PRAGMA query_only = ON")
    other.execute("BEGIN")
    other.execute("SELECT count(*) FROM judgments").fetchone()
    _answer(session, 2)
    assert answers_left_in_wal(session) is not None
    session.close()
    assert _file_alone(file) == 0
    assert len(read_returned(file).judgments) == 2  # file + -wal, as the warning says
    other.close()


@pytest.mark.gui
@pytest.mark.parametrize("choice", ["retry", "close anyway"])
def test_the_rater_window_says_so_and_stays_open_until_told(qtbot, file: Path,  # type: ignore[no-untyped-def]
                                                            choice: str) -> None:
    pytest.importorskip("PySide6")
    from PySide6.QtWidgets import QMessageBox

    from ui.rate.rater import RaterWindow

    window = RaterWindow(open_for_rating(file))
    qtbot.addWidget(window)
    window.show()
    window.session.set_rater("Ada")
    window.advance()
    other = _holder(file)
    _answer(window.session, 2)
    window.close()
    box = window.last_box
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert file.name in box.text() and f"{file.name}-wal" in box.text()
    assert window.isVisible() and not window.session.closed  # not closed behind its back
    buttons = {box.buttonRole(b): b for b in box.buttons()}
    if choice == "retry":
        buttons[QMessageBox.ButtonRole.AcceptRole].click()  # still held: asked again
        qtbot.waitUntil(lambda: window.last_box is not box and window.last_box.isVisible(),
                        timeout=3000)
        assert window.isVisible() and not window.session.closed
        box = window.last_box
        buttons = {box.buttonRole(b): b for b in box.buttons()}
        other.execute("COMMIT")
        buttons[QMessageBox.ButtonRole.AcceptRole].click()
        qtbot.waitUntil(lambda: window.session.closed, timeout=3000)
        assert _file_alone(file) == 2
    else:
        buttons[QMessageBox.ButtonRole.DestructiveRole].click()
        qtbot.waitUntil(lambda: window.session.closed, timeout=3000)
        assert not window.isVisible()
        assert _file_alone(file) == 0 and len(read_returned(file).judgments) == 2
    other.close()


@pytest.mark.gui
def test_quitting_winnow_closes_the_rater_windows_first(qtbot, main_window,  # type: ignore[no-untyped-def]
                                                         file: Path) -> None:
    """Closing the main window ended the app with rater windows still open: their files
    were never folded and nobody was told (ADR 210)."""
    page = main_window.pages["rate"]
    rater = page.open_session_file(file)
    assert rater is not None
    qtbot.addWidget(rater)
    rater.session.set_rater("Ada")
    other = _holder(file)
    _answer(rater.session, 2)
    assert not main_window.close()  # the rater window says why, and Winnow stays open
    assert rater.isVisible() and rater.last_box is not None and rater.last_box.isVisible()
    other.execute("COMMIT")
    rater.last_box.done(0)  # "Keep rating"
    assert main_window.close() and rater.session.closed
    assert _file_alone(file) == 2
    other.close()
