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
    assert messages[-1].startswith(f"{out}: already exists and is not empty")
    assert "Errno" not in messages[-1] and messages[-1].count(str(out)) == 1
