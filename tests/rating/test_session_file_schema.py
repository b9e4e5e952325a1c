"""Opening a rater's session file checks the tables and columns the rater view reads and
writes: a file edited with sqlite3 (a table dropped, renamed or replaced by a view, a
column gone) is refused by name with a :class:`SessionFileError`, never a raw SQLite
error, and the Rate page shows it as "Cannot open session file"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tamper_helpers as th
from rating_helpers import make_session

from core.rating.rater_open import open_for_rating
from core.rating.session_file import TABLES, SessionFileError

CANNOT = "is not a Winnow session file Winnow can open"

#: sqlite3 edits, and the words the refusal must use
EDITS: dict[str, tuple[list[str], str]] = {
    **{f"{t} dropped": ([f"DROP TABLE {t}"], f"its table '{t}' is missing") for t in TABLES},
    **{f"{t} renamed": ([f"ALTER TABLE {t} RENAME TO {t}_old"], f"its table '{t}' is missing")
       for t in TABLES},
    "judgments.uid renamed": (["ALTER TABLE judgments RENAME COLUMN uid TO uid2"],
                              "its table 'judgments' has no column 'uid'"),
    "judgments.mac dropped": (["ALTER TABLE judgments DROP COLUMN mac"],
                              "its table 'judgments' has no column 'mac'"),
    "tasks.options renamed": (["ALTER TABLE tasks RENAME COLUMN options TO opts"],
                              "its table 'tasks' has no column 'options'"),
    "rater.copy_uid renamed": (["ALTER TABLE rater RENAME COLUMN copy_uid TO cu"],
                               "its table 'rater' has no column 'copy_uid'"),
    "events.kind renamed": (["ALTER TABLE events RENAME COLUMN kind TO k"],
                            "its table 'events' has no column 'kind'"),
    "images.data renamed": (["ALTER TABLE images RENAME COLUMN data TO d"],
                            "its table 'images' has no column 'data'"),
    "chain.key renamed": (["ALTER TABLE chain RENAME COLUMN key TO k"],
                          "its table 'chain' has no column 'key'"),
    "meta.value renamed": (["ALTER TABLE meta RENAME COLUMN value TO v"],
                           "its table 'meta' has no column 'value'"),
    "judgments as a view": (["ALTER TABLE judgments RENAME TO j_old",
                             "CREATE VIEW judgments AS SELECT * FROM j_old"],
                            "'judgments' is a view"),
    "tasks as a view": (["ALTER TABLE tasks RENAME TO t_old",
                         "CREATE VIEW tasks AS SELECT * FROM t_old"], "'tasks' is a view"),
}


@pytest.fixture
def session_path(rproject, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    """A rater file with a name and answers (format 2, with its key chain)."""
    path = make_session(rproject, tmp_path / "out", "side_by_side")[0]
    th.rate_all(path, "Ada")
    return path


@pytest.mark.parametrize("case", sorted(EDITS))
def test_a_file_without_a_table_or_column_it_reads_is_refused_by_name(session_path: Path,
                                                                      case: str) -> None:
    statements, words = EDITS[case]
    th.edit(session_path, *statements)
    with pytest.raises(SessionFileError) as caught:
        open_for_rating(session_path)
    text = str(caught.value)
    assert text.startswith(session_path.name) and words in text, text
    if "view" not in case:
        assert CANNOT in text


def test_extra_columns_and_tables_still_open(session_path: Path) -> None:
    th.edit(session_path, "ALTER TABLE judgments ADD COLUMN note TEXT", "CREATE TABLE x (y)")
    session = open_for_rating(session_path)
    assert session.progress()[0] == session.progress()[1] > 0
    session.close()


def test_a_legacy_file_without_a_key_chain_still_opens(tmp_path: Path) -> None:
    project, _r1, r2 = th.legacy_copy(tmp_path / "legacy")
    project.close()
    session = open_for_rating(r2)
    assert not session.chained
    session.close()


def test_the_rate_page_says_why_it_cannot_open_the_file(qtbot, session_path: Path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("PySide6")
    from ui.context import AppContext
    from ui.rate.workspace import RateWorkspace

    messages: list[tuple[str, str]] = []
    context = AppContext()
    context.bind(lambda *a, **k: None, lambda t, m: messages.append((t, m)),
                 lambda text, ms: None)
    page = RateWorkspace(context)
    qtbot.addWidget(page)
    th.edit(session_path, "DROP TABLE judgments")
    assert page.open_session_file(session_path) is None
    assert messages == [("Cannot open session file",
                         f"{session_path.name} {CANNOT}: its table 'judgments' is missing")]
    assert not page.raters


@pytest.mark.parametrize("sql", [
    "UPDATE tasks SET options = 5 WHERE position = 0",
    "UPDATE tasks SET inputs = 'not json' WHERE position = 0",
    "UPDATE judgments SET answer = x'00ff' WHERE seq = 1",
])
def test_a_damaged_row_is_refused_by_name(session_path: Path, sql: str) -> None:
    th.edit(session_path, sql)
    with pytest.raises(SessionFileError, match=f"^{session_path.name}: its tables were "
                                               "changed or damaged"):
        open_for_rating(session_path)


@pytest.mark.parametrize(("sql", "message"), [
    # a side-by-side panel has two tiles: a third option raised in the window's key
    # handler (a segmentation fault under `winnow rate`), as eleven in a ranking did
    ("UPDATE tasks SET options = json_insert(options, '$[#]', json(options) -> 0) "
     "WHERE position = 0", "task 1 has 3 output(s), where a side_by_side task shows 2"),
    ("UPDATE tasks SET options = '[[1, 2], [3, 4]]' WHERE position = 0",
     "task 1 has options or inputs that are not image references"),
    ("UPDATE tasks SET inputs = '[7]' WHERE position = 1",
     "task 2 has options or inputs that are not image references"),
])
def test_a_task_the_view_cannot_show_is_refused_by_name(session_path: Path, sql: str,
                                                         message: str) -> None:
    th.edit(session_path, sql)
    with pytest.raises(SessionFileError, match=re.escape(
            f"{session_path.name}: its tables were changed or damaged ({message})")):
        open_for_rating(session_path)
