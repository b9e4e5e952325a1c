"""The Posts window of Curate: every post is reachable, samples are made from posts.

A virtual table (ids of the list in order, rows fetched by page, as the sample list)
of main posts without an imported sample, all main posts, or every post; a search
over the post text.  "New Sample from Post" (Ctrl+N, Enter) makes a sample by hand —
undoable in Curate like every edit — and "Propose…" sends the listed or selected posts
to the model.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.propose.posts import LISTS, PostRow, count_posts, fetch_posts, post_ids
from core.store.errors import ProjectError
from ui.widgets.tooltips import plain_tooltip

COLUMNS = (("id", "Post"), ("author", "Author"), ("images", "Img"), ("replies", "Replies"),
           ("samples", "Samples"), ("text", "Text"))
PAGE = 200
_Index = QModelIndex | QPersistentModelIndex


class PostListModel(QAbstractTableModel):
    """Posts of one list, fetched 200 rows at a time."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.project: Any = None
        self.ids: list[str] = []
        self._pages: OrderedDict[int, dict[str, PostRow]] = OrderedDict()

    def load(self, project: Any, which: str, text: str) -> None:
        self.beginResetModel()
        self.project = project
        try:
            self.ids = post_ids(project, which, text) if project is not None else []
        except ProjectError:  # the project was closed under the window: show nothing
            self.project, self.ids = None, []
        self._pages.clear()
        self.endResetModel()

    def refresh(self) -> None:
        """Forget the fetched rows (sample counts changed)."""
        self._pages.clear()
        if self.ids:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.ids) - 1,
                                                               len(COLUMNS) - 1))

    def row(self, r: int) -> PostRow | None:
        if not 0 <= r < len(self.ids) or self.project is None:
            return None
        page = r // PAGE
        rows = self._pages.get(page)
        if rows is None:
            try:
                rows = fetch_posts(self.project, self.ids[page * PAGE:(page + 1) * PAGE])
            except ProjectError:
                return None
            self._pages[page] = rows
            while len(self._pages) > 20:
                self._pages.popitem(last=False)
        return rows.get(self.ids[r])

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.ids)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][1]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.row(index.row())
        if row is None:
            return None
        key = COLUMNS[index.column()][0]
        if role == Qt.ItemDataRole.DisplayRole:
            value = getattr(row, key)
            return " ".join(str(value).split()) if key == "text" else str(value)
        if role == Qt.ItemDataRole.ToolTipRole and key == "text":
            return plain_tooltip(row.text or "")
        if role == Qt.ItemDataRole.TextAlignmentRole and key in ("images", "replies",
                                                                 "samples"):
            return Qt.AlignmentFlag.AlignCenter
        return None


class PostsDialog(QDialog):
    """Non-modal: list posts, make samples from them, propose for them."""

    def __init__(self, ws: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ws = ws
        self.setWindowTitle("Posts")
        self.which = QComboBox()
        for key, label in LISTS:
            self.which.addItem(label, key)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Words in the post text")
        self.search.setClearButtonEnabled(True)
        self.count = QLabel()
        self.count.setTextFormat(Qt.TextFormat.PlainText)
        self.model = PostListModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        for col, width in enumerate((110, 100, 40, 60, 64)):
            self.table.setColumnWidth(col, width)
        self.table.doubleClicked.connect(lambda _i: self.show_sample())
        self.new_button = QPushButton("New Sample from Post")
        self.new_button.setToolTip("Make a sample from the selected post: its text as the "
                                   "prompt, its images to assign, its replies as feedback "
                                   "(Ctrl+N; undo in Curate)")
        self.new_button.clicked.connect(self.new_sample)
        self.show_button = QPushButton("Show Sample")
        self.show_button.setToolTip("Show the post's first sample in Curate (double-click)")
        self.show_button.clicked.connect(self.show_sample)
        self.propose_button = QPushButton("Propose…")
        self.propose_button.setToolTip("Send the selected posts (or, with none selected, "
                                       "every listed post) to the model")
        self.propose_button.clicked.connect(self.propose)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        top = QHBoxLayout()
        top.addWidget(self.which)
        top.addWidget(self.search, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.count, 1)
        for b in (self.new_button, self.show_button, self.propose_button, close):
            buttons.addWidget(b)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        QShortcut(QKeySequence("Ctrl+N"), self, self.new_sample)
        self._timer = QTimer(self, singleShot=True, interval=250)
        self._timer.timeout.connect(self.reload)
        self.search.textChanged.connect(lambda _t: self._timer.start())
        self.which.currentIndexChanged.connect(lambda _i: self.reload())
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update())
        self.resize(860, 520)
        self.reload()

    def hideEvent(self, event: Any) -> None:  # noqa: N802
        self._timer.stop()  # a search typed just before closing must not run afterwards
        super().hideEvent(event)

    def reload(self) -> None:
        """Re-run the list query."""
        self._timer.stop()
        project = self.ws.project
        self.model.load(project, self.which.currentData(), self.search.text())
        total = count_posts(project) if self.model.project is not None else 0
        self.count.setText(f"{len(self.model.ids):,} listed of {total:,} posts")
        if self.model.ids:
            self.table.selectRow(0)
        self._update()

    def selected_ids(self) -> list[str]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.model.ids[r] for r in rows if 0 <= r < len(self.model.ids)]

    def _update(self) -> None:
        one = len(self.selected_ids()) == 1
        writable = self.ws.project is not None and not self.ws.project.readonly
        self.new_button.setEnabled(one and writable)
        row = self.model.row(self.table.currentIndex().row()) if one else None
        self.show_button.setEnabled(bool(row and row.samples))
        self.propose_button.setEnabled(writable and bool(self.model.ids))

    def keyPressEvent(self, event: Any) -> None:  # noqa: N802
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.table.hasFocus():
            self.new_sample()
            return
        super().keyPressEvent(event)

    def new_sample(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1 and self.new_button.isEnabled():
            self.ws.proposals.new_sample_from_post(ids[0])
            self.model.refresh()
            self._update()

    def show_sample(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1:
            self.ws.proposals.show_post_sample(ids[0])

    def propose(self) -> None:
        ids = self.selected_ids()
        posts = ids if len(ids) > 1 else list(self.model.ids)
        self.ws.proposals.ask_propose(posts)
