"""A failed job's message is written for people: an I/O error names its file in words,
without "[Errno 17] …: '/path'", and no path is said twice."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from app.jobs import describe_error  # noqa: E402
from app.main_window import MainWindow  # noqa: E402


def test_an_os_error_names_its_file_in_words() -> None:
    assert describe_error(FileExistsError(17, "already exists and is not empty",
                                          "/data/bench")) == \
        "/data/bench: already exists and is not empty"
    assert describe_error(PermissionError(13, "Permission denied")) == "Permission denied"
    assert describe_error(OSError("disk on fire")) == "disk on fire"


def test_winnows_own_os_errors_keep_their_whole_message() -> None:
    import errno

    from core.export_files import NotOwnedError
    from core.files import WriteError

    full = WriteError("/data/bench/samples.jsonl", OSError(errno.ENOSPC, "No space left on "
                                                           "device"), "nothing was exported")
    assert describe_error(full) == ("cannot write /data/bench/samples.jsonl: No space left "
                                    "on device; nothing was exported")
    assert describe_error(NotOwnedError("/data/bench holds files Winnow did not write")) == \
        "/data/bench holds files Winnow did not write"


def test_exporting_twice_into_one_folder_says_so_once(main_window: MainWindow, qtbot,
                                                      demo_path: Path, tmp_path: Path) -> None:
    messages: list[str] = []
    main_window.error_shown.connect(messages.append)
    assert main_window.open_project(demo_path)
    exports = main_window.pages["curate"].exports
    out = tmp_path / "bench"
    first = exports.start(out)
    qtbot.waitUntil(lambda: first.outcome != "running", timeout=60_000)
    assert first.outcome == "done"
    second = exports.start(out)
    qtbot.waitUntil(lambda: second.outcome != "running", timeout=60_000)
    qtbot.waitUntil(lambda: bool(messages))
    assert messages[-1].startswith(f"{out} already exists and is not empty; Winnow left it "
                                   "as it is: ")
    assert "Errno" not in messages[-1] and messages[-1].count(str(out)) == 1


def test_a_long_message_fits_the_screen_and_keeps_every_line(main_window: MainWindow,
                                                             qtbot) -> None:  # type: ignore[no-untyped-def]
    # merging 14 refused rater files made a warning 870 px tall on an 800 px screen: its
    # OK button was off the bottom edge (Curate's package merge says it the same way)
    from PySide6.QtWidgets import QMessageBox

    refusals = [f"bad{k}.winnow-session: edited outside the rater view, nothing merged: "
                "judgment 1 was changed, added or moved outside the rater view (MAC 2 of "
                "11 does not match)" for k in range(1, 15)]
    text = "\n\n".join(refusals) + "\n\nMerged:\nNothing merged."
    shown: list[str] = []
    main_window.error_shown.connect(shown.append)
    main_window.message("Some files were refused", text)
    box = next(w for w in main_window.findChildren(QMessageBox) if w.isVisible())
    assert shown == [text]  # every refusal, for the log and the tests
    assert box.text().startswith(refusals[0]) and box.text().count("\n") <= 16
    assert "more line(s): Show Details" in box.text()
    assert box.detailedText() == text
    assert box.sizeHint().height() < 700
    box.close()
    main_window.message("Short", "one line")
    short = next(w for w in main_window.findChildren(QMessageBox)
                 if w.isVisible() and w.windowTitle() == "Short")
    assert short.text() == "one line" and short.detailedText() == ""
