"""An Analyze table narrower than its columns keeps every row in view: its horizontal
scroll bar is added to its height (at 1024 pixels the 4-row leaderboard lost its last row
under the bar and grew a vertical scroll bar, with the pane empty below it)."""

from __future__ import annotations

import html

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtWidgets import QVBoxLayout, QWidget  # noqa: E402

from core.analysis.results import Table  # noqa: E402
from core.visible_text import cut_mark, cut_name  # noqa: E402
from ui.analyze.views import TableView  # noqa: E402

COLUMNS = ["Rank", "Model", "Mean rank", "Win rate", "BT/100", "Elo", "CI low", "CI high"]
ROWS = [[i + 1, f"model-{i}", 1.29 + i, 0.944, 75.28, 1342.0 - i, 1273.0, 1465.0]
        for i in range(4)]


def _shown(qtbot, width: int) -> tuple[QWidget, TableView]:  # type: ignore[no-untyped-def]
    holder = QWidget()
    qtbot.addWidget(holder)
    view = TableView(Table("leaderboard", "Leaderboard", COLUMNS, [list(r) for r in ROWS]))
    QVBoxLayout(holder).addWidget(view)
    holder.resize(width, 400)
    holder.show()
    qtbot.waitExposed(holder)
    view.updateGeometries()  # the scroll bars as they are at this width
    return holder, view


def test_a_narrow_table_keeps_every_row_in_view(qtbot) -> None:  # type: ignore[no-untyped-def]
    _holder, view = _shown(qtbot, 260)
    assert view.horizontalScrollBar().maximum() > 0  # narrower than its columns
    assert view.verticalScrollBar().maximum() == 0  # yet every row shows
    assert view.viewport().height() >= sum(view.rowHeight(i) for i in range(len(ROWS)))


def test_a_wide_table_has_no_room_for_a_scroll_bar_it_does_not_show(qtbot) -> None:  # type: ignore[no-untyped-def]
    _holder, view = _shown(qtbot, 1000)
    assert view.horizontalScrollBar().maximum() == 0
    assert view.verticalScrollBar().maximum() == 0
    rows = sum(view.rowHeight(i) for i in range(len(ROWS)))
    spare = view.viewport().height() - rows
    assert 0 <= spare < view.horizontalScrollBar().sizeHint().height()


def test_a_new_section_hides_the_old_one_at_once(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Changing the data set painted the new leaderboard's note over the old one (and the
    new chart over the old) until the old widgets' deferred deletion ran."""
    from PySide6.QtWidgets import QLabel

    from core.analysis.results import Section
    from ui.analyze.views import SectionView

    view = SectionView("leaderboard")
    qtbot.addWidget(view)
    view.resize(1000, 600)
    view.show()
    qtbot.waitExposed(view)

    def section(note: str) -> Section:
        table = Table("leaderboard", "Leaderboard", COLUMNS, [list(r) for r in ROWS])
        table.note = note
        return Section("leaderboard", "Leaderboard", tables=[table])

    view.show_section(section("the first note"))
    qtbot.waitUntil(lambda: bool(view.tables) and view.tables[0].isVisible())
    old = [w for w in view.findChildren(QLabel) if w.text() == "the first note"]
    assert old and old[0].isVisible()
    view.show_section(section("the second note"))  # no event loop in between
    assert not old[0].isVisible()


def test_a_long_model_name_elides_and_leaves_the_numbers_in_view(qtbot) -> None:  # type: ignore[no-untyped-def]
    """A 120-character model name widened the Model column past a 1920-pixel window: the
    scores sat behind a scroll bar. The column stops at about 36 characters; the name is
    whole in its tooltip and in the CSV."""
    name = "a" * 120
    rows = [list(r) for r in ROWS]
    rows[3][1] = name
    holder = QWidget()
    qtbot.addWidget(holder)
    view = TableView(Table("leaderboard", "Leaderboard", COLUMNS, rows))
    QVBoxLayout(holder).addWidget(view)
    holder.resize(1400, 400)
    holder.show()
    qtbot.waitExposed(holder)
    model = COLUMNS.index("Model")
    assert view.columnWidth(model) <= view.fontMetrics().horizontalAdvance("n" * 36)
    assert sum(view.columnWidth(j) for j in range(view.columnCount())) < 1000
    # the cell shows the name cut in the middle (ADR 222: Qt's right elision hid where two
    # long names differ); the whole name is in its tooltip
    assert view.item(3, model).text() == cut_name(name, name, len(view.item(3, model).text()))
    assert name in _tooltip_text(view.item(3, model).toolTip())
    assert view.columnWidth(COLUMNS.index("CI high")) >= view.fontMetrics().horizontalAdvance(
        "CI high")  # short columns keep their own width


def test_edge_spaces_and_a_long_heading_name_stay_visible_and_narrow(qtbot) -> None:  # type: ignore[no-untyped-def]
    """ADR 217: "A " looked like "A" in a cell, and a 10,000-character model name heading
    a column (the τ sweep's) had no tooltip and was never spelt."""
    long = "L" * 10_000
    view = TableView(Table("sweep", "Sweep", ["τ", long, "A "], [[1.0, 0.5, 0.25]]))
    qtbot.addWidget(view)
    rows = TableView(Table("leaderboard", "Leaderboard", ["Model"], [["A"], ["A "]]))
    qtbot.addWidget(rows)
    assert rows.texts() == [["A"], ["A⟨U+0020⟩"]]
    inside = TableView(Table("leaderboard", "Leaderboard", ["Model"], [["a b"], ["a  b"]]))
    qtbot.addWidget(inside)  # ADR 228: two spaces inside drew like one
    assert inside.texts() == [["a b"], ["a⟨U+0020⟩⟨U+0020⟩b"]]
    assert view.horizontalHeaderItem(2).text() == "A⟨U+0020⟩"
    tip = _tooltip_text(view.horizontalHeaderItem(1).toolTip())  # wrapped, its ends kept
    assert tip.startswith("L" * 1_400) and tip.endswith("L" * 400)
    assert "characters left out here" in tip  # ADR 228: at most 20 lines
    assert view.columnWidth(1) <= view.fontMetrics().horizontalAdvance("n" * 36)


def _tooltip_text(tooltip: str) -> str:
    """A tooltip's text with the lines :func:`wrapped_tooltip` broke it into joined."""
    text = html.unescape(tooltip).removeprefix("<p style='white-space:pre-wrap'>")
    return text.removesuffix("</p>").replace("\n", "")


def test_long_names_differing_in_the_middle_look_different(qtbot) -> None:  # type: ignore[no-untyped-def]
    """ADR 222: two 10,000-character model names differing only in the middle elided at
    the right to the same cell (and heading); each is cut as the HTML report cuts it,
    start ⟨…hash⟩ end, fits its column, and the whole name is in a tooltip whose lines
    are at most 100 characters (one line was wider than the screen)."""
    a = "Model-" + "a" * 4994 + "-LEFT-" + "z" * 4994
    b = "Model-" + "a" * 4994 + "-RIGHT" + "z" * 4994
    view = TableView(Table("leaderboard", "Leaderboard", ["Model", b, "Score"],
                           [[a, 0.5, 0.61], [b, 0.5, 0.39], ["short", 0.5, 0.2]]))
    qtbot.addWidget(view)
    room = view.fontMetrics().horizontalAdvance("n" * 36)
    cells = [view.item(i, 0).text() for i in range(3)]
    assert cells[0] != cells[1] and cells[2] == "short"
    for cell, name in zip(cells[:2], (a, b), strict=True):
        assert cell.startswith("Model-aaa") and cell.endswith("zzz")
        assert cell == cut_name(name, name, len(cell))  # the report's cut, its hash
        assert view.fontMetrics().horizontalAdvance(cell) <= room
    assert view.horizontalHeaderItem(1).text() == cut_name(b, b, len(
        view.horizontalHeaderItem(1).text()))
    for tip, name in ((view.item(0, 0).toolTip(), a), (view.item(1, 0).toolTip(), b),
                      (view.horizontalHeaderItem(1).toolTip(), b)):
        # ADR 228: the start and end of the name, between them the cell's mark
        start, _, end = _tooltip_text(tip).partition(cut_mark(name))
        assert name.startswith(start) and len(start) >= 1_400
        assert name.endswith(end.partition(" characters left out here")[2])
        lines = html.unescape(tip).removeprefix("<p style='white-space:pre-wrap'>")
        assert max(len(line) for line in lines.removesuffix("</p>").split("\n")) <= 100


def test_a_10000_character_name_has_a_tooltip_no_taller_than_the_screen(qtbot) -> None:  # type: ignore[no-untyped-def]
    """ADR 228: the whole 10,000-character name, 100 characters a line, was a tooltip of
    100 lines, taller than a 1280×720 screen.  It keeps its first and last lines and says
    how many of its characters are left out between them."""
    name = "Model-" + "".join(f"{i:04d}" for i in range(2_500))[:9_988] + "-END!!"
    assert len(name) == 10_000
    view = TableView(Table("leaderboard", "Leaderboard", ["Model", "Score"], [[name, 0.5]]))
    qtbot.addWidget(view)
    tip = view.item(0, 0).toolTip()
    lines = html.unescape(tip).removeprefix("<p style='white-space:pre-wrap'>")
    lines = lines.removesuffix("</p>").split("\n")
    assert len(lines) <= 20 and max(len(line) for line in lines) <= 100
    marker = next(line for line in lines if "characters left out" in line)
    kept = "".join(line for line in lines if line != marker)
    assert name.startswith("".join(lines[:lines.index(marker)]))
    assert name.endswith("".join(lines[lines.index(marker) + 1:]))
    assert lines[-1].endswith("-END!!") and lines[0].startswith("Model-0000")
    assert marker == (f"{cut_mark(name)} {len(name) - len(kept):,} of its 10,000 "
                      "characters left out here")
    assert cut_mark(name) in view.item(0, 0).text()  # the cell's own mark
    height = view.fontMetrics().lineSpacing() * len(lines)
    assert height < 720 - 100, height  # the tooltip's text, with room for its frame
