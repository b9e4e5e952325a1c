"""Curate in the real main window at 1024×700 and 1440×900 (issue 14 item 6): the list
keeps a usable Prompt column, nothing is clipped, panes collapse; the chosen quality is
visible in a light and a dark palette; the header does not scan big selections."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt  # noqa: E402
from PySide6.QtGui import QColor, QPalette  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QAbstractButton,
    QApplication,
    QComboBox,
    QTabBar,
    QTableView,
    QWidget,
)

from core.curate.queries import COLUMN_KEYS  # noqa: E402
from core.ingest.importer import import_jsonl  # noqa: E402
from core.store import Project  # noqa: E402
from tests.curate.conftest import write_sources  # noqa: E402
from ui.curate.list_view import HIDE_ORDER, MIN_PROMPT, SampleTable  # noqa: E402


def _open(window, tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "c.winnow"
    project = Project.create(path)
    import_jsonl(project, write_sources(tmp_path / "src"))
    project.close()
    assert window.open_project(path)
    window.nav.setCurrentRow(0)
    return window


@pytest.fixture
def opened(main_window, tmp_path: Path):  # type: ignore[no-untyped-def]
    """The main window on a small curate project, Curate shown."""
    return _open(main_window, tmp_path)


def _settle(qtbot) -> None:  # type: ignore[no-untyped-def]
    for _ in range(3):
        qtbot.wait(20)
        QApplication.processEvents()


def _clipped(root: QWidget) -> list[str]:
    """Visible buttons, labels and combos narrower than they need or outside their parent."""
    bad = []
    for w in root.findChildren(QWidget):
        if not isinstance(w, QAbstractButton | QComboBox) or not w.isVisibleTo(root):
            continue
        if isinstance(w.parentWidget(), QTabBar):  # Qt's own tab scroll arrows
            continue
        if w.width() < w.minimumSizeHint().width():
            bad.append(f"{type(w).__name__} {getattr(w, 'text', lambda: '')()!r} is "
                       f"{w.width()} px < {w.minimumSizeHint().width()}")
        parent = w.parentWidget()
        if parent is not None and not parent.rect().contains(w.geometry()):
            bad.append(f"{type(w).__name__} {getattr(w, 'text', lambda: '')()!r} sticks out")
    return bad


@pytest.mark.parametrize("size", [(1024, 700), (1440, 900)])
def test_curate_works_at_small_and_large_windows(main_window, qtbot, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                 size) -> None:
    main_window.resize(*size)  # the window as the user has it, then the project opens
    _settle(qtbot)
    win = _open(main_window, tmp_path)
    _settle(qtbot)
    ws = win.pages["curate"]
    ws.select_row(0)
    _settle(qtbot)
    assert (win.width(), win.height()) == size  # Curate no longer forces the window wider
    assert ws.table.prompt_width() >= MIN_PROMPT
    assert ws.main.sizes()[0] >= ws.table.width_needed()
    assert _clipped(ws.view) == []
    assert ws.view.title.text() == ws.view.title.full_text() == "s1"  # the id is not elided
    header = ws.table.horizontalHeader()
    hidden = {k for k in HIDE_ORDER if header.isSectionHidden(COLUMN_KEYS.index(k))}
    compact = ws.view.bar.compact
    if size[0] == 1024:
        assert compact and ws.view.quality_buttons["Benchmark"].text().endswith("Benchmark")
    else:  # room for everything: every column and the keys on the buttons
        assert not compact and not hidden
        assert ws.view.quality_buttons["Trash"].text() == "Trash (T)"
    assert all(b.toolTip() for b in ws.view.quality_buttons.values())  # keys stay findable
    win.resize(1024, 700)  # made smaller afterwards: the list keeps its usable width
    _settle(qtbot)
    assert win.width() == 1024 and ws.table.prompt_width() >= MIN_PROMPT
    assert _clipped(ws.view) == []


def test_columns_give_way_to_the_prompt_and_the_users_choice_sticks(qtbot, curate_project) -> None:  # type: ignore[no-untyped-def]
    from ui.curate.list_model import SampleListModel

    model = SampleListModel()
    model.set_project(curate_project)
    table = SampleTable()
    qtbot.addWidget(table)
    table.setModel(model)
    table.resize(900, 300)
    table.show()
    _settle(qtbot)
    header = table.horizontalHeader()
    keys = list(COLUMN_KEYS)
    assert not any(header.isSectionHidden(k) for k in range(len(keys)))
    table.resize(330, 300)
    _settle(qtbot)
    assert header.isSectionHidden(keys.index("modified"))
    assert not header.isSectionHidden(keys.index("quality"))
    assert table.prompt_width() >= MIN_PROMPT - 1 or all(
        header.isSectionHidden(keys.index(k)) for k in HIDE_ORDER)
    table.choose_column("modified", True)  # the user wants it: it stays
    table.resize(320, 300)
    _settle(qtbot)
    assert not header.isSectionHidden(keys.index("modified"))
    table.choose_column("split", False)
    table.resize(900, 300)
    _settle(qtbot)
    assert header.isSectionHidden(keys.index("split"))
    table.reset_columns()
    assert not header.isSectionHidden(keys.index("split"))
    # the ID column elides in the middle (the distinguishing end stays readable)
    from PySide6.QtWidgets import QStyleOptionViewItem

    option = QStyleOptionViewItem()
    table.itemDelegateForColumn(0).initStyleOption(option, model.index(0, 0))
    assert option.textElideMode == Qt.TextElideMode.ElideMiddle
    assert table.itemDelegateForColumn(1) is None
    assert table.textElideMode() == Qt.TextElideMode.ElideRight


def test_panes_collapse_from_the_keyboard_and_come_back(opened, qtbot) -> None:  # type: ignore[no-untyped-def]
    win = opened
    win.resize(1024, 700)
    _settle(qtbot)
    ws = win.pages["curate"]
    ws.table.setFocus()
    qtbot.keyClick(ws.table, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    _settle(qtbot)
    assert not ws.panes.shown("list") and not ws.page_actions.show_list.isChecked()
    assert ws.view.width() > 900 - 170
    qtbot.keyClick(ws.view, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    _settle(qtbot)
    assert ws.panes.shown("list") and ws.page_actions.show_list.isChecked()
    qtbot.keyClick(ws.table, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    _settle(qtbot)
    assert not ws.panes.shown("images")
    ws.view.splitter.setSizes([800, 0])  # dragged shut instead: Ctrl+G opens it again
    ws.panes.show("images", True)
    _settle(qtbot)
    assert ws.panes.shown("images") and ws.view.images.width() > 100


def _mean(widget: QWidget) -> QColor:
    image = widget.grab().toImage()
    r = g = b = n = 0
    for y in range(2, image.height() - 2, 2):
        for x in range(2, image.width() - 2, 2):
            c = image.pixelColor(x, y)
            r, g, b, n = r + c.red(), g + c.green(), b + c.blue(), n + 1
    return QColor(r // n, g // n, b // n)


def _dark_palette() -> QPalette:
    p = QPalette()
    for role, colour in ((QPalette.ColorRole.Window, "#2b2b2b"),
                         (QPalette.ColorRole.WindowText, "#e6e6e6"),
                         (QPalette.ColorRole.Base, "#1e1e1e"), (QPalette.ColorRole.Text, "#e6e6e6"),
                         (QPalette.ColorRole.Button, "#353535"),
                         (QPalette.ColorRole.ButtonText, "#e6e6e6"),
                         (QPalette.ColorRole.Highlight, "#3d7dca"),
                         (QPalette.ColorRole.HighlightedText, "#ffffff"),
                         (QPalette.ColorRole.Dark, "#151515")):
        p.setColor(role, QColor(colour))
    return p


@pytest.mark.parametrize("dark", [False, True])
def test_the_chosen_quality_button_stands_out(opened, qtbot, dark: bool) -> None:  # type: ignore[no-untyped-def]
    app = QApplication.instance()
    before = app.palette()
    if dark:
        app.setPalette(_dark_palette())
    try:
        ws = opened.pages["curate"]
        ws.select_row(ws.model.row_of("s1"))  # s1 is Benchmark
        _settle(qtbot)
        chosen = ws.view.quality_buttons["Benchmark"]
        other = ws.view.quality_buttons["Analysis"]
        assert chosen.isChecked() and not other.isChecked()
        assert chosen.text().startswith("✓") and not other.text().startswith("✓")
        assert chosen.font().bold() or "bold" in chosen.styleSheet()
        a, b = _mean(chosen), _mean(other)
        distance = abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue())
        assert distance > 90, (a.name(), b.name())
        highlight = app.palette().color(QPalette.ColorRole.Highlight)
        assert abs(a.lightness() - highlight.lightness()) < 60  # it is the palette's colour
    finally:
        app.setPalette(before)


class _Counting(QAbstractTableModel):
    def __init__(self, rows: int) -> None:
        super().__init__()
        self.rows, self.calls = rows, 0

    def rowCount(self, parent=QModelIndex()) -> int:  # type: ignore[no-untyped-def]  # noqa: N802, B008
        self.calls += 1
        return 0 if parent.isValid() else self.rows

    def columnCount(self, parent=QModelIndex()) -> int:  # type: ignore[no-untyped-def]  # noqa: N802, B008
        return 0 if parent.isValid() else 8

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):  # type: ignore[no-untyped-def]
        return str(index.row()) if role == Qt.ItemDataRole.DisplayRole else None


@pytest.mark.parametrize("view_class, fast", [(SampleTable, True), (QTableView, False)])
def test_the_header_does_not_walk_a_big_selection(qtbot, view_class, fast: bool) -> None:  # type: ignore[no-untyped-def]
    """Qt's own header asks "is this whole column selected?" per section per repaint,
    walking all selected rows through the Python model; ours does not (the QTableView
    case shows what the test would see without the fix)."""
    model = _Counting(5000)
    view = view_class()
    qtbot.addWidget(view)
    view.setModel(model)
    view.resize(500, 400)
    view.show()
    _settle(qtbot)
    model.calls = 0
    view.selectAll()
    view.horizontalHeader().viewport().repaint()
    QApplication.processEvents()
    assert (model.calls < 2000) == fast, model.calls


def test_no_hits_clear_the_sample_view_and_clearing_returns_to_the_sample(opened, qtbot) -> None:  # type: ignore[no-untyped-def]
    ws = opened.pages["curate"]
    ws.select_row(ws.model.row_of("s3"))  # a sample with a thread and feedback
    _settle(qtbot)
    assert ws.view.tabs.tabText(1) == "Feedback (1)" and ws.view.post.tree.topLevelItemCount()
    ws.filters.search.setText("zzzqx")
    ws.filters.flush()
    assert ws.model.rowCount() == 0
    view = ws.view
    assert view.title.full_text() == "No sample"
    assert ws.table.placeholder.startswith("No sample matches the search")
    assert view.tabs.tabText(1) == "Feedback" and view.feedback.count() == 0
    assert view.post.tree.topLevelItemCount() == 0 and view.post.text.toPlainText() == ""
    assert view.prompt.text() == "" and view.tags.text() == "" and view.notes.toPlainText() == ""
    assert not any(b.isChecked() for b in view.quality_buttons.values())
    assert view.images.items == []
    ws.filters.search.setText("zzzq")  # still nothing
    ws.filters.flush()
    ws.filters.search.clear()
    ws.filters.flush()
    assert ws.current_id() == "s3"  # not the first sample
    ws.filters.search.setText("s4")  # an id typed in full shows that sample
    ws.filters.flush()
    assert ws.current_id() == "s4"
    ws.filters.search.setText("@dan")  # an author
    ws.filters.flush()
    assert ws.model.ids == ["s2"]
