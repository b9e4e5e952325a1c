"""The Curate workspace page: filterable sample list beside the sample view.

Every edit is a core command pushed on a (Qt-free) undo stack: each do/undo is one
transaction with audit rows.  Keyboard first: see :mod:`ui.curate.actions`.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSize, Qt
from PySide6.QtWidgets import (
    QDialog,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from core.curate.commands import Command, UndoStack
from core.curate.derive import DeriveFromTemplate
from core.curate.queries import count_samples, distinct_tags, next_unreviewed
from core.propose.commands import NewSampleFromPost
from core.selection import SampleFilter
from ui.curate.actions import CurateActions
from ui.curate.edits import Editor
from ui.curate.export_controller import ExportController
from ui.curate.filter_bar import FilterBar
from ui.curate.image_controller import ImageController
from ui.curate.images import ImageStore
from ui.curate.list_model import SampleListModel
from ui.curate.list_view import SampleTable
from ui.curate.panes import Panes
from ui.curate.proposals import ProposalActions
from ui.curate.review import ReviewController
from ui.curate.sample_view import SampleView
from ui.empty_state import EmptyState
from ui.widgets.theme import set_tone
from ui.workspaces import WORKSPACES

HINT = ("To start, use File → New Project… and then File → Import Posts… to load a JSON "
        "Lines file of posts and samples, File → Open Project…, or File → New Demo "
        "Project… (a generated project to try things on).")


class CurateWorkspace(QWidget):
    """Sample list (virtual, paged from SQLite) + sample view; the filter is the selection."""

    def __init__(self, context: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.project: Any = None
        self.editor = Editor(context, self._after_command, lambda: self.view.refresh_labels(),
                             lambda: self.page_actions.update_undo())
        self._kept: str | None = None  # the sample to return to after an empty result
        self.store = ImageStore()
        self._dialogs: list[QWidget] = []
        info = next(w for w in WORKSPACES if w.key == "curate")
        self.start = EmptyState(info.title, info.purpose, list(info.bullets))
        hint = QLabel(HINT + "\n\nOnce samples are listed, the keyboard does the work: "
                      "Help → Keyboard Shortcuts (F1) lists every key.")
        hint.setWordWrap(True)
        hint.setTextFormat(Qt.TextFormat.PlainText)
        set_tone(hint, "muted", text_only=True)
        hint.setMaximumWidth(760)
        self.start.extra.addSpacing(12)
        self.start.extra.addWidget(hint)
        self._start_buttons = False
        self.filters = FilterBar()
        self.filters.changed.connect(self.apply_filter)
        self.filters.done.connect(self._search_done)
        self.model = SampleListModel(self)
        self.table = SampleTable()
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.selectionModel().currentRowChanged.connect(self._current_changed)
        self.view = SampleView(self.store, self.run)
        self.image_edits = ImageController(self)  # roles, order and boxes from the image panel
        self.exports = ExportController(self)
        self.review = ReviewController(self)  # labels, review status, tags, fill-in
        self.view.post.fill_requested.connect(self.review.ask_fill)
        self.view.prompt.escape_pressed.connect(self.table.setFocus)
        self.proposals = ProposalActions(self)  # posts, proposals (issue 19)
        self.view.proposals.accept_requested.connect(self.proposals.accept)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(4, 4, 0, 4)
        ll.addWidget(self.filters)
        ll.addWidget(self.table, 1)
        # never narrower than a usable Prompt column needs (dragging past it hides the list)
        left.setMinimumWidth(self.table.width_needed() + 4)
        self.main = QSplitter(Qt.Orientation.Horizontal)
        self.main.addWidget(left)
        self.main.addWidget(self.view)
        self.main.setStretchFactor(0, 2)
        self.main.setStretchFactor(1, 3)
        self.main.setChildrenCollapsible(True)  # drag to the edge, or Ctrl+L, hides the list
        self.panes = Panes(self)
        self._start_policy, self._main_policy = self.start.sizePolicy(), self.main.sizePolicy()
        self.pages = QStackedWidget()
        self.pages.addWidget(self.start)
        self.pages.addWidget(self.main)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages)
        self.page_actions = CurateActions(self)
        self.main.splitterMoved.connect(lambda *_: self.page_actions.update_panes())
        self.view.splitter.splitterMoved.connect(lambda *_: self.page_actions.update_panes())
        context.project_changed.connect(self.on_project_changed)
        context.data_changed.connect(self.on_data_changed)
        self.on_project_changed()

    def showEvent(self, event: Any) -> None:  # noqa: N802
        """Offer the window's New Demo / Open / Import actions as buttons on the start page."""
        super().showEvent(event)
        self.panes.balance()
        if self._start_buttons:
            return
        self._start_buttons = True
        window = self.window()
        for name in ("act_import", "act_open", "act_new_demo", "act_new"):  # on top: reversed
            action = getattr(window, name, None)
            if action is None or not hasattr(action, "trigger"):
                continue
            button = QPushButton(action.text().replace("&", ""))
            button.setToolTip(action.toolTip())
            button.setMaximumWidth(280)
            button.clicked.connect(action.trigger)
            action.enabledChanged.connect(button.setEnabled)
            button.setEnabled(action.isEnabled())
            self.start.extra.insertWidget(0, button)

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.panes.balance()

    def sizeHint(self) -> QSize:  # noqa: N802
        """A moderate preferred size, so the main window's splitter keeps the nav narrow."""
        return QSize(1100, 700)

    def focus_target(self) -> QWidget | None:
        """The widget that takes the keyboard when the page is shown: the sample list
        (its keys B, A, T, J … act only inside this page), none on the start page."""
        return self.table if self.pages.currentWidget() is self.main else None

    def workspace_menu(self) -> QMenu:
        """The "Curate" menu for the menu bar."""
        return self.page_actions.menu

    # -- project -------------------------------------------------------------------------------
    def on_project_changed(self) -> None:
        """Show the new project (or the start page when none is open)."""
        self.project = self.context.project
        self._kept = None
        self.filters.reset()
        self.model.selection = SampleFilter()
        self.model.set_project(self.project)  # first: nothing may read the closed one
        self.view.show_sample(self.project, None)
        self.store.clear()
        self.editor.bind(self.project)
        self.page_actions.update_undo()
        shown = self.main if self.project is not None else self.start
        self.pages.setCurrentWidget(shown)
        for page, policy in ((self.start, self._start_policy), (self.main, self._main_policy)):
            # only the shown page's minimum counts: the hidden sample view's kept the start
            # page 637 pixels tall, and the Jobs panel then grew the window off the screen
            page.setSizePolicy(policy if page is shown else QSizePolicy(
                QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored))
        self.panes.balance()
        read_only = bool(self.project is not None and self.project.readonly)
        self.page_actions.set_read_only(read_only)
        self.page_actions.set_enabled(self.project is not None)
        self.view.set_read_only(read_only)
        self.page_actions.team.on_project_changed()
        if self.project is not None:
            self.filters.set_tags(distinct_tags(self.project))
        self.context.set_selection(SampleFilter())
        self._after_reload(None)

    def on_data_changed(self) -> None:
        """Samples were imported or changed in bulk: re-query, keep the current sample."""
        if self.project is None:
            return
        current = self.current_id()
        self.store.clear()
        self.filters.set_tags(distinct_tags(self.project))
        self.model.reload()
        self._after_reload(current)

    def reveal(self, sample_id: object) -> None:
        """Select sample ``sample_id`` (asked by another workspace, e.g. Metrics'
        drill-down); a filter that hides it is cleared first."""
        if self.project is None:
            return
        sid = str(sample_id)
        if self.model.row_of(sid) is None:
            self.filters.reset()
            self.apply_filter(self.filters.filter())
        row = self.model.row_of(sid)
        if row is None:
            self.context.status(f"Sample {sid} is no longer in the project")
            return
        self.select_row(row)
        self.table.setFocus()

    # -- list ------------------------------------------------------------------------------------
    def apply_filter(self, selection: SampleFilter) -> None:
        """Show the samples ``selection`` selects and publish it as the app's selection.

        The sample shown stays shown when the new list holds it; a search that is exactly
        a sample's id shows that sample; after a search that found nothing, the sample
        shown before it comes back once the list holds it again.
        """
        keep = self.current_id() or self._kept
        self.model.set_filter(selection)
        self.context.set_selection(selection)
        typed = selection.text.strip()
        if typed and self.model.row_of(typed) is not None:
            keep = typed
        self._after_reload(keep)

    def _search_done(self) -> None:
        """Return or Esc in the search field: the list takes the keyboard (its first
        match selected when none is), so B/A/T… label at once."""
        if self.pages.currentWidget() is not self.main:
            return
        if not self.table.currentIndex().isValid():
            self.select_row(0)
        self.table.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _after_reload(self, keep: str | None) -> None:
        n = self.model.rowCount()
        total = count_samples(self.project) if self.project is not None else 0
        posts = self.project.counts()["posts"] if self.project is not None and not total else 0
        if self.project is not None and total == 0 and posts:
            self.filters.count.setText(
                f"No samples yet, {posts:,} posts: make samples by hand in Curate → Posts… "
                "(Ctrl+Shift+P), or let a model propose them (Curate → Propose…).")
        elif self.project is not None and total == 0:
            self.filters.count.setText("No samples yet: import a JSON Lines file of posts "
                                       "and samples (File → Import Posts…).")
        else:
            self.filters.count.setText(f"{n:,} of {total:,} samples")
        if n == 0:
            self._kept = keep  # to come back to when the search is cleared
            self.table.placeholder = (
                ("No sample matches the search.\nChange or clear it to see samples again."
                 if self.model.selection.text.strip() else
                 "No sample matches these filters.") if total else "")
            self.view.show_sample(self.project, None, "No sample")
            return
        self._kept = None
        row = self.model.row_of(keep) if keep else None
        self.select_row(row if row is not None else 0)

    def current_id(self) -> str | None:
        """Id of the sample shown."""
        return self.view.detail.id if self.view.detail is not None else None

    def selected_ids(self) -> list[str]:
        """Ids of the selected rows (the current sample when only one)."""
        selection = self.table.selectionModel().selection()
        ranges = sorted((r.top(), r.bottom())
                        for r in (selection.at(k) for k in range(selection.count())))
        ids: list[str] = []
        for top, bottom in ranges:  # list slices: 30,500 selected ids in well under 1 ms
            ids.extend(self.model.ids[top:bottom + 1])
        if any(a[1] >= b[0] for a, b in pairwise(ranges)):  # overlapping ranges
            ids = list(dict.fromkeys(ids))
        current = self.current_id()
        return ids if len(ids) > 1 else ([current] if current else [])

    def select_row(self, row: int) -> None:
        """Make ``row`` current (and the only selected row)."""
        if not 0 <= row < self.model.rowCount():
            return
        index = self.model.index(row, 0)
        flags = (QItemSelectionModel.SelectionFlag.ClearAndSelect
                 | QItemSelectionModel.SelectionFlag.Rows)
        self.table.selectionModel().setCurrentIndex(index, flags)
        self.table.scrollTo(index)

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self.view.commit_pending()
        sid = self.model.id_at(current.row()) if current.isValid() else None
        if sid != self.current_id() or sid is None:
            self.view.show_sample(self.project, sid)

    def step(self, delta: int) -> None:
        """Go to the next (+1) or previous (-1) sample in the list."""
        row = self.table.currentIndex().row()
        self.select_row(max(0, min(self.model.rowCount() - 1, row + delta)))

    def next_unreviewed(self) -> bool:
        """Go to the next unreviewed sample in the list (wrapping); False if none."""
        if self.project is None:
            return False
        self.view.commit_pending()
        row = next_unreviewed(self.project, self.model.ids, self.table.currentIndex().row())
        if row is None:
            self.context.status("Every sample in this list is reviewed.")
            return False
        self.select_row(row)
        return True

    # -- commands ----------------------------------------------------------------------------------
    @property
    def undo_stack(self) -> UndoStack | None:
        """The project's edit history (None without a project)."""
        return self.editor.stack

    def run(self, command: Command) -> bool:
        """Do ``command`` on the undo stack (big ones in the background); a refusal is
        shown, never raised."""
        return self.editor.run(command)

    def run_built(self, label: str, build: Callable[[], Command]) -> bool:
        """:meth:`run` the command ``build()`` makes; a refusal while building it is shown
        (as ``label``'s), never raised."""
        return self.editor.run_built(label, build)

    def undo(self) -> None:
        """Undo the last edit."""
        self._history_step(True)

    def redo(self) -> None:
        """Redo the last undone edit."""
        self._history_step(False)

    def _history_step(self, undo: bool) -> None:
        self.view.commit_pending()
        command = self.editor.step(undo)
        if command is not None:
            self.context.status(("Undid: " if undo else "Redid: ") + command.label, 3000)
            self._goto_changed(command)

    def _goto_changed(self, command: Command) -> None:
        """After undo/redo, show the sample it touched so the user sees the change."""
        sid = next((s for s in command.sample_ids if self.model.row_of(s) is not None), None)
        if sid is not None and sid != self.current_id() and len(command.sample_ids) == 1:
            self.select_row(self.model.row_of(sid) or 0)

    def _after_command(self, command: Command, what: str) -> None:
        if isinstance(command, DeriveFromTemplate | NewSampleFromPost):
            current = self.current_id()
            self.model.reload()
            self._after_reload(command.new_id if what != "undo" else current)
        self.model.refresh_ids(command.sample_ids)
        if self.current_id() in command.sample_ids:
            self.view.reload()
        self.page_actions.update_undo()

    def keep_dialog(self, dialog: QDialog) -> None:
        """Hold a reference to a non-modal dialog until it finishes (its controllers'
        dialogs too: Export, fill-in, proposals, team work)."""
        self._dialogs.append(dialog)
        dialog.finished.connect(lambda *_: self._dialogs.remove(dialog)
                                if dialog in self._dialogs else None)
