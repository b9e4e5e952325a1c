"""An Analyze table narrower than its columns keeps every row in view: its horizontal
scroll bar is added to its height (at 1024 pixels the 4-row leaderboard lost its last row
under the bar and grew a vertical scroll bar, with the pane empty below it)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtWidgets import QVBoxLayout, QWidget  # noqa: E402

from core.analysis.results import Table  # noqa: E402
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
    assert view.item(3, model).toolTip() and view.item(3, model).text() == name
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
    assert view.horizontalHeaderItem(2).text() == "A⟨U+0020⟩"
    assert long in view.horizontalHeaderItem(1).toolTip()
    assert view.columnWidth(1) <= view.fontMetrics().horizontalAdvance("n" * 36)
