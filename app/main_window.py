"""The main window: five workspaces beside a navigation list, status bar, jobs panel.

Its parts are typed controllers it holds: :class:`app.window_menus.WindowMenus`
(actions and menus), :class:`app.window_project.WindowProject` (new/open/close/import)
and :class:`app.window_jobs.WindowJobs` (background jobs and the Jobs panel).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QByteArray, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QFont, QFontMetrics
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QSizePolicy,
    QStackedWidget,
    QWidget,
)

from app import settings as app_settings
from app.errors import router
from app.jobs import JobRunner
from app.window_jobs import WindowJobs
from app.window_menus import WindowMenus
from app.window_project import WindowProject
from core.jobs import Job
from core.store import Project
from ui.context import AppContext
from ui.empty_state import EmptyState
from ui.widgets.screen import fitted_size, message_parts
from ui.workspaces import WORKSPACES, CurateStart, build_page


def nav_width(font: QFont, titles: list[str]) -> int:
    """The workspace list's width: its longest title at 11 pt plus the item padding, so the
    pages keep every other pixel (a fixed 170 px took a sixth of a 1024-pixel window)."""
    big = QFont(font)
    big.setPointSizeF(11.0)
    text = max(QFontMetrics(big).horizontalAdvance(t) for t in titles)
    return text + 2 * 12 + 2 * 10 + 4  # item padding, frame and focus margin, the border


class MainWindow(QMainWindow):
    """Winnow's main window. Holds the open project (in its context) and the job runner."""

    project_changed = Signal()
    #: the text of each box reporting that something failed (a warning or an error)
    error_shown = Signal(str)
    #: the text of each box saying an action was not started (nothing to do, not possible
    #: in a curator package, read-only): a warning, not an error (ADR 228)
    refusal_shown = Signal(str)
    #: the text of each information box (a success report: Work shared, Work merged)
    info_shown = Signal(str)
    closed = Signal()

    def __init__(self, runner: JobRunner | None = None) -> None:
        super().__init__()
        self.setWindowTitle("Winnow")
        self._dialogs: list[QWidget] = []
        self.context = AppContext(self)
        self.jobs = WindowJobs(self, runner)
        self.projects = WindowProject(self)
        self.menus = WindowMenus(self)
        m = self.menus  # the window's own actions, also offered as buttons by start pages
        self.act_new, self.act_new_demo, self.act_open = m.act_new, m.act_new_demo, m.act_open
        self.act_import, self.act_close, self.act_quit = m.act_import, m.act_close, m.act_quit
        self.act_jobs = m.act_jobs
        self.act_import_hf, self.act_private_net = m.act_import_hf, m.act_private_net
        self.context.bind(self.start_job, self.message,
                          lambda text, ms: self.statusBar().showMessage(text, ms),
                          inform=self.inform, refuse=self.refuse)
        self.context.reveal_requested.connect(self.reveal)
        self._build_ui()
        self.menus.build_menus()
        self._show_page(self.nav.currentRow())
        router.listeners.append(self._show_error)
        self._restore_geometry()
        self.projects.update_title()

    # -- the parts' public faces ----------------------------------------------------------
    @property
    def project(self) -> Project | None:
        return self.context.project

    @property
    def runner(self) -> JobRunner:
        return self.jobs.runner

    @property
    def jobs_panel(self) -> Any:
        return self.jobs.panel

    @property
    def jobs_dock(self) -> Any:
        return self.jobs.dock

    @property
    def quit_box(self) -> QMessageBox | None:
        return self.jobs.quit_box

    def start_job(self, title: str, fn: Callable[..., Any],
                  on_done: Callable[[Job], None] | None = None, *, quiet: bool = False) -> Job:
        """Run ``fn(state)`` in the background; ``on_done(job)`` runs on the GUI thread."""
        return self.jobs.start_job(title, fn, on_done, quiet=quiet)

    def show_jobs(self) -> None:
        """Show the Jobs panel."""
        self.jobs.show_panel()

    def open_project(self, path: str | Path, *, readonly: bool = False) -> bool:
        """Open ``path`` (see :meth:`WindowProject.open_project`)."""
        return self.projects.open_project(path, readonly=readonly)

    def open_path(self, path: str | Path) -> bool:
        """Open a project or a file a workspace handles."""
        return self.projects.open_path(path)

    def close_project(self) -> None:
        """Close the open project, if any."""
        self.projects.close_project()

    def import_file(self, path: str | Path, fetch_settings: Any = None,
                    importer: Callable[..., Any] | None = None) -> Job | None:
        """Import a JSON Lines file into the open project in the background."""
        return self.projects.import_file(path, fetch_settings, importer)

    def create_demo(self, path: str | Path) -> Job | None:
        """Generate a demo project at ``path`` in the background, then open it."""
        return self.projects.create_demo(path)

    def refresh_summary(self) -> None:
        """Update the project overview and status bar."""
        self.projects.refresh_summary()

    # -- construction ----------------------------------------------------------------------
    def _build_ui(self) -> None:
        self.nav = QListWidget()
        self.nav.setObjectName("workspaceNav")
        # no dotted focus box inside the highlighted item (the highlight shows the page)
        self.nav.setStyleSheet("QListWidget#workspaceNav { font-size: 11pt; outline: 0; }"
                               "QListWidget#workspaceNav::item { padding: 10px 12px; }")
        self.nav.setFixedWidth(nav_width(self.nav.font(), [w.title for w in WORKSPACES]))
        self.stack = QStackedWidget()
        self.pages: dict[str, QWidget] = {}
        for index, info in enumerate(WORKSPACES, 1):
            item = QListWidgetItem(info.title)
            item.setToolTip(f"{info.purpose}  (Ctrl+{index})")
            self.nav.addItem(item)
            page = build_page(info, self.context)
            if page is None and info.key == "curate":
                page = CurateStart(info, [self.act_import, self.act_new, self.act_open])
            elif page is None:
                page = EmptyState(info.title, info.purpose, list(info.bullets))
            self.pages[info.key] = page
            self.stack.addWidget(page)
        self.nav.currentRowChanged.connect(self._show_page)
        self.nav.itemClicked.connect(lambda _item: self.focus_page())
        self.nav.setCurrentRow(0)
        for page in self.pages.values():  # a page that needs a project offers to make one
            empty = getattr(page, "empty", None)
            if isinstance(empty, EmptyState) and not isinstance(page, CurateStart):
                empty.add_project_actions([self.act_new_demo, self.act_new, self.act_open])
        self.context.project_changed.connect(self._project_buttons)
        # the status bar's "N posts, N samples" follows Curate's list (a new sample, an
        # undo): counted once the list settles, not on every row
        self._summary_timer = QTimer(self)
        self._summary_timer.setSingleShot(True)
        self._summary_timer.setInterval(300)
        self._summary_timer.timeout.connect(self.refresh_summary)
        model = getattr(self.pages.get("curate"), "model", None)
        if isinstance(model, QAbstractItemModel):
            for signal in (model.modelReset, model.rowsInserted, model.rowsRemoved):
                signal.connect(lambda *_: self._summary_timer.start())
        central = QWidget()
        row = QHBoxLayout(central)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        row.addWidget(self.nav)
        row.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.project_label = QLabel("No project open")
        self.project_label.setTextFormat(Qt.TextFormat.PlainText)
        self.statusBar().addPermanentWidget(self.project_label)
        self.statusBar().showMessage("Create or open a project (File menu), or try the demo.")

    def _project_buttons(self) -> None:
        for page in self.pages.values():
            empty = getattr(page, "empty", None)
            if isinstance(empty, EmptyState):
                empty.set_project_open(self.context.project is not None)

    def _show_page(self, index: int) -> None:
        """Show workspace ``index``: only its actions act, and only it sets the window's
        minimum size (a hidden page's minimum no longer keeps the window wide).  A menu
        the last page left open (a context menu, where the platform lets a shortcut through
        to the window) is closed first: its actions belong to a page no longer shown."""
        while (popup := QApplication.activePopupWidget()) is not None:
            if not popup.close():
                break
        self.stack.setCurrentIndex(index)
        for k in range(self.stack.count()):
            policy = QSizePolicy.Policy.Preferred if k == index else QSizePolicy.Policy.Ignored
            page = self.stack.widget(k)
            if page is not None:
                page.setSizePolicy(policy, policy)
        self.stack.updateGeometry()
        if self.menus.workspace_menus:  # empty until the menus are built
            self.menus.page_shown(index)

    def focus_page(self) -> None:
        """Give the shown page the keyboard: its ``focus_target()`` (Curate: the sample
        list), else the child it last had focused, else the page itself (its first child
        that takes focus).  Called when a project opens, on Ctrl+1…5 and on a click in the
        workspace list, so a page's keys act at once (they went to the list, whose
        type-ahead turned Curate's A into a jump to Anonymize); arrow keys in the list
        still walk it (ADR 178)."""
        page = self.stack.currentWidget()
        if page is None:
            return
        target = getattr(page, "focus_target", None)
        widget: QWidget | None = target() if callable(target) else None
        if widget is None:
            widget = page.focusWidget()
            if widget is not None and not widget.isVisibleTo(page):
                widget = None
        (widget or page).setFocus(Qt.FocusReason.OtherFocusReason)

    def show_workspace(self, key: str) -> QWidget:
        """Switch to the workspace ``key`` (as Ctrl+1…5 does); returns its page."""
        self.nav.setCurrentRow([w.key for w in WORKSPACES].index(key))
        return self.pages[key]

    def reveal(self, key: str, item: object) -> None:
        """A page asked to show ``item`` in workspace ``key`` (e.g. Metrics → the sample in
        Curate): switch there and hand it over."""
        page = self.show_workspace(key)
        hook = getattr(page, "reveal", None)
        if callable(hook):
            hook(item)

    # -- messages ------------------------------------------------------------------------------
    def keep(self, widget: QDialog) -> None:
        """Hold a reference to a non-modal dialog until it finishes."""
        self._dialogs.append(widget)
        widget.finished.connect(lambda *_: self._dialogs.remove(widget)
                                if widget in self._dialogs else None)

    def message(self, title: str, text: str) -> None:
        """A non-modal warning (plain text; a long one shows its start, the rest under
        Show Details, so the box fits the screen)."""
        self._box(QMessageBox.Icon.Warning, title, text)
        self.error_shown.emit(text)

    def refuse(self, title: str, text: str) -> None:
        """A non-modal warning that an action was not started: as :meth:`message`, but
        reported by :attr:`refusal_shown` (nothing failed)."""
        self._box(QMessageBox.Icon.Warning, title, text)
        self.refusal_shown.emit(text)

    def inform(self, title: str, text: str) -> None:
        """A non-modal report of work that succeeded: as :meth:`message`, with the
        information icon (a success drawn as a warning read as a failure, ADR 222)."""
        self._box(QMessageBox.Icon.Information, title, text)
        self.info_shown.emit(text)

    def _box(self, icon: QMessageBox.Icon, title: str, text: str) -> QMessageBox:
        shown, details = message_parts(text)
        box = QMessageBox(icon, title, shown, QMessageBox.StandardButton.Ok, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        if details:
            box.setDetailedText(details)
        self.keep(box)
        box.open()
        return box

    def _show_error(self, title: str, details: str) -> None:
        self.statusBar().showMessage(f"Error: {title}", 15000)
        box = QMessageBox(QMessageBox.Icon.Critical, "Something went wrong", title,
                          QMessageBox.StandardButton.Ok, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setDetailedText(details)
        box.setInformativeText("The details are also in the log file. Your saved work is safe.")
        self.keep(box)
        box.open()
        self.error_shown.emit(title)

    # -- lifecycle ---------------------------------------------------------------------------
    def _restore_geometry(self) -> None:
        geometry = app_settings.settings().value("main_window/geometry")
        if isinstance(geometry, QByteArray | bytes) and self.restoreGeometry(geometry):
            state = app_settings.settings().value("main_window/state")
            if isinstance(state, QByteArray | bytes):
                self.restoreState(state)
        else:
            self.resize(*fitted_size(1280, 800))  # a 1280×720 screen: all of it
        keys = [info.key for info in WORKSPACES]
        last = app_settings.settings().value("main_window/workspace")
        if last in keys:
            self.nav.setCurrentRow(keys.index(last))

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        """Save geometry, stop jobs (after asking, if any run), close the project.  Rater
        windows close first: one whose answers another program keeps in its -wal says so
        and keeps Winnow open (ADR 210)."""
        if self.runner.active and not self.jobs.quit_confirmed:
            event.ignore()
            self.jobs.ask_before_quitting()
            return
        if not all(rater.close() for rater in list(getattr(self.pages.get("rate"),
                                                           "raters", ()))):
            event.ignore()
            return
        store = app_settings.settings()
        store.setValue("main_window/geometry", self.saveGeometry())
        store.setValue("main_window/state", self.saveState())
        store.setValue("main_window/workspace", WORKSPACES[self.nav.currentRow()].key)
        self.runner.shutdown()
        self.close_project()
        if self._show_error in router.listeners:
            router.listeners.remove(self._show_error)
        super().closeEvent(event)
        self.closed.emit()
