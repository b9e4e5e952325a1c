"""The main window: five workspaces, File menu, status bar, jobs panel."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QObject, Qt, Signal, Slot
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
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
from app.jobs import Job, JobRunner
from core.store import Project, ProjectError, ProjectLockedError, ReadOnlyLocationError
from core.store.summary import project_summary
from ui.context import AppContext
from ui.empty_state import EmptyState
from ui.import_report import ImportReportDialog
from ui.jobs_panel import JobsPanel
from ui.widgets.actions import make_action
from ui.workspaces import WORKSPACES, CurateStart, build_page


class _JobBridge(QObject):
    """Carries 'job finished' from worker threads to the GUI thread (queued signal)."""

    finished = Signal(object)


class MainWindow(QMainWindow):
    """Winnow's main window. Holds the open project and the job runner."""

    project_changed = Signal()
    error_shown = Signal(str)
    closed = Signal()

    def __init__(self, runner: JobRunner | None = None) -> None:
        super().__init__()
        self.setWindowTitle("Winnow")
        self.project: Project | None = None
        self.runner = runner or JobRunner()
        self._on_done: dict[int, Callable[[Job], None]] = {}
        self._bridge = _JobBridge(self)
        # queued even when emitted on the GUI thread: on_done never runs inside start_job
        self._bridge.finished.connect(self._job_finished, Qt.ConnectionType.QueuedConnection)
        self._dialogs: list[QWidget] = []
        self.quit_box: QMessageBox | None = None  # the "jobs still running" question, while open
        self._quit_confirmed = False
        self.context = AppContext(self)
        self.context.bind(self.start_job, self._message,
                          lambda text, ms: self.statusBar().showMessage(text, ms))
        self._build_actions()
        self._build_ui()
        self._build_menus()
        router.listeners.append(self._show_error)
        self._restore_geometry()
        self._update_title()

    # -- construction --------------------------------------------------------------------
    def _action(self, text: str, slot: Callable[[], Any], shortcut: Any = None,
                tip: str = "") -> QAction:
        return make_action(self, text, slot, shortcut, tip)

    def _build_actions(self) -> None:
        self.act_new_demo = self._action("New &Demo Project…", self.new_demo,
                                         tip="Generate a demo project with posts, samples "
                                             "and images, and open it")
        self.act_open = self._action("&Open Project…", self.choose_project,
                                     QKeySequence.StandardKey.Open)
        self.act_import = self._action("&Import Posts…", self.choose_import, "Ctrl+I",
                                       tip="Import a JSON Lines file of posts or samples")
        self.act_import.setEnabled(False)
        self.act_import_hf = self._action(
            "Import &Hugging Face Dataset…", self.choose_import_hf,
            tip="Import the samples of a Hugging Face dataset folder (parquet or "
                "save_to_disk) to re-curate them")
        self.act_import_hf.setEnabled(False)
        self.act_private_net = self._action(
            "Allow Image URLs on &Private Networks", self._toggle_private_network,
            tip="Let imports fetch images from this computer or the local network "
                "(localhost, 192.168.x.x …), e.g. a local mirror. Off by default: a file "
                "from a stranger could otherwise reach your router or services.")
        self.act_private_net.setCheckable(True)
        self.act_private_net.setChecked(app_settings.allow_private_network())
        self.act_close = self._action("&Close Project", self.close_project,
                                      "Ctrl+W",
                                      tip="Close the open project (the window stays open)")
        self.act_close.setEnabled(False)
        self.act_quit = self._action("&Quit", self.close, QKeySequence.StandardKey.Quit)
        self.act_jobs = self._action("Show &Jobs", self.show_jobs, "Ctrl+J")

    def _build_ui(self) -> None:
        self.nav = QListWidget()
        self.nav.setObjectName("workspaceNav")
        self.nav.setFixedWidth(170)
        self.nav.setStyleSheet("QListWidget#workspaceNav { font-size: 11pt; }"
                               "QListWidget#workspaceNav::item { padding: 10px 12px; }")
        self.stack = QStackedWidget()
        self.pages: dict[str, QWidget] = {}
        self._page_menus: list[Any] = []
        for index, info in enumerate(WORKSPACES, 1):
            item = QListWidgetItem(f"{info.title}")
            item.setToolTip(f"{info.purpose}  (Ctrl+{index})")
            self.nav.addItem(item)
            page = build_page(info, self.context)
            if page is None and info.key == "curate":
                page = CurateStart(info, [self.act_import, self.act_new_demo, self.act_open])
            elif page is None:
                page = EmptyState(info.title, info.purpose, list(info.bullets))
            self.pages[info.key] = page
            menu = getattr(page, "workspace_menu", None)
            if callable(menu):
                self._page_menus.append(menu())
            self.stack.addWidget(page)
            switch = QAction(self)
            switch.setShortcut(QKeySequence(f"Ctrl+{index}"))
            switch.triggered.connect(lambda _=False, i=index - 1: self.nav.setCurrentRow(i))
            self.addAction(switch)
        self.nav.currentRowChanged.connect(self._show_page)
        self.nav.setCurrentRow(0)
        self._show_page(0)
        central = QWidget()
        row = QHBoxLayout(central)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        row.addWidget(self.nav)
        row.addWidget(self.stack, 1)
        self.setCentralWidget(central)

        self.jobs_panel = JobsPanel()
        self.jobs_dock = QDockWidget("Jobs", self)
        self.jobs_dock.setObjectName("jobsDock")
        self.jobs_dock.setWidget(self.jobs_panel)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.jobs_dock)
        self.jobs_dock.hide()
        self.runner.listeners.append(self._job_added)

        self.project_label = QLabel("No project open")
        self.project_label.setTextFormat(Qt.TextFormat.PlainText)
        self.statusBar().addPermanentWidget(self.project_label)
        self.statusBar().showMessage("Open a project or create the demo (File menu).")

    def _show_page(self, index: int) -> None:
        """Show workspace ``index``; only the shown page sets the window's minimum size
        (a hidden page's minimum no longer keeps the window from being made smaller)."""
        self.stack.setCurrentIndex(index)
        for k in range(self.stack.count()):
            policy = QSizePolicy.Policy.Preferred if k == index else QSizePolicy.Policy.Ignored
            self.stack.widget(k).setSizePolicy(policy, policy)
        self.stack.updateGeometry()

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction(self.act_new_demo)
        file_menu.addAction(self.act_open)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file_menu.addAction(self.act_close)
        file_menu.addSeparator()
        file_menu.addAction(self.act_import)
        file_menu.addAction(self.act_import_hf)
        file_menu.addAction(self.act_private_net)
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        for menu in self._page_menus:
            if menu is not None:
                self.menuBar().addMenu(menu)
        view_menu = self.menuBar().addMenu("&View")
        view_menu.addAction(self.act_jobs)

    # -- project ---------------------------------------------------------------------------
    def open_project(self, path: str | Path, *, readonly: bool = False) -> bool:
        """Open ``path`` (closing any current project); False with a message on failure.

        When another Winnow holds the project for writing, the message offers to open
        it read-only instead.
        """
        path = Path(path)
        if self.project is not None and self.project.path.resolve() == path.resolve() \
                and self.project.readonly == readonly:
            return True
        if path.is_dir():
            self._message("Cannot open project", f"{path.name}: {path} is a folder, not a "
                          "Winnow project file (*.winnow)")
            return False
        try:
            project = Project.open(path, readonly=readonly)
        except ProjectLockedError as exc:
            self._offer_read_only(path, str(exc))
            return False
        except ReadOnlyLocationError as exc:  # read-only media, a second hard link
            self._offer_read_only(path, str(exc), "Project cannot be written")
            return False
        except (ProjectError, OSError) as exc:  # core turns database errors into these
            text = str(exc)
            self._message("Cannot open project",
                          text if text.startswith(path.name) else f"{path.name}: {text}")
            return False
        self.close_project()
        self.project = project
        self.context.project = project
        app_settings.add_recent_project(path)
        self.act_import.setEnabled(not readonly)
        self.act_import_hf.setEnabled(not readonly)
        self.act_close.setEnabled(True)
        self.refresh_summary()
        self._update_title()
        self.statusBar().showMessage(f"Opened {path}" + (" (read-only)" if readonly else ""),
                                     5000)
        self.project_changed.emit()
        self.context.project_changed.emit()
        return True

    def _offer_read_only(self, path: Path, reason: str, title: str = "Project is in use") -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, title, reason,
                          QMessageBox.StandardButton.Cancel, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        read_only = box.addButton("Open Read-Only", QMessageBox.ButtonRole.AcceptRole)
        read_only.clicked.connect(lambda: self.open_project(path, readonly=True))
        self._keep(box)
        box.open()
        self.error_shown.emit(reason)

    def close_project(self) -> None:
        """Close the open project, if any."""
        if self.project is not None:
            self.context.project_closing.emit()
            self.project.close()
            self.project = None
            self.context.project = None
            self.context.project_changed.emit()
            self.act_import.setEnabled(False)
            self.act_import_hf.setEnabled(False)
            self.act_close.setEnabled(False)
            self.refresh_summary()
            self._update_title()
            self.statusBar().showMessage("Project closed", 5000)

    def refresh_summary(self) -> None:
        """Update the project overview and status bar."""
        summary = project_summary(self.project) if self.project else None
        page = self.pages["curate"]
        if isinstance(page, CurateStart):
            page.show_summary(summary)
        if summary is None:
            self.project_label.setText("No project open")
        else:
            self.project_label.setText(
                f"{self.project.path.name} — {summary['posts']:,} posts, "
                f"{summary['samples']:,} samples, {summary['images']:,} images")

    def _update_title(self) -> None:
        name = self.project.path.name if self.project else "no project"
        if self.project is not None and self.project.readonly:
            name += " (read-only)"
        self.setWindowTitle(f"Winnow — {name}")

    # -- file actions ---------------------------------------------------------------------
    @Slot()
    def choose_project(self) -> None:
        """Ask for a project file and open it."""
        patterns = " ".join(["*.winnow", *(f"*{s}" for s in self.context.file_handlers)])
        path, _ = QFileDialog.getOpenFileName(self, "Open", "", f"Winnow files ({patterns})")
        if path:
            self.open_path(path)

    def open_path(self, path: str | Path) -> bool:
        """Open a project, or any file a workspace registered a handler for."""
        path = Path(path)
        for suffix, opener in self.context.file_handlers.items():
            if path.name.lower().endswith(suffix):
                opener(path)
                return True
        return self.open_project(path)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = app_settings.recent_projects()
        if not recent:
            self.recent_menu.addAction("No recent projects").setEnabled(False)
        for path in recent:
            self.recent_menu.addAction(path, lambda p=path: self.open_project(p))

    @Slot()
    def choose_import(self) -> None:
        """Ask for a JSONL file and import it in the background."""
        if self.project is None:
            return
        path, _ = QFileDialog.getOpenFileName(self, "Import posts or samples", "",
                                              "JSON Lines (*.jsonl *.json *.ndjson);;All (*)")
        if path:
            self.import_file(path)

    @Slot()
    def choose_import_hf(self) -> None:
        """Ask for a Hugging Face dataset folder and import it in the background."""
        if self.project is None:
            return
        folder = QFileDialog.getExistingDirectory(self, "Import a Hugging Face dataset folder")
        if folder:
            from core.interop.hf_import import import_hf

            self.import_file(folder, importer=import_hf)

    @Slot()
    def _toggle_private_network(self) -> None:
        app_settings.set_allow_private_network(self.act_private_net.isChecked())

    def import_file(self, path: str | Path, fetch_settings: Any = None,
                    importer: Callable[..., Any] | None = None) -> Job | None:
        """Start importing ``path`` into the open project; the report opens when done.

        ``importer(view, path, state)`` replaces the JSON Lines import (a Hugging Face
        dataset folder uses ``core.interop.hf_import.import_hf``)."""
        if self.project is None:
            return None
        from core.ingest.fetch import FetchSettings
        from core.ingest.importer import import_jsonl

        path = Path(path)
        view = self.project.worker_view()
        if fetch_settings is None:
            fetch_settings = FetchSettings(
                cache_dir=view.assets.root / ".http-cache",
                allow_private_network=self.act_private_net.isChecked())

        def work(state: Any) -> dict[str, Any]:
            try:
                if importer is not None:
                    return importer(view, path, state=state).to_json()
                return import_jsonl(view, path, state=state,
                                    fetch_settings=fetch_settings).to_json()
            finally:
                view.close()

        def done(job: Job) -> None:
            self.refresh_summary()
            self.context.data_changed.emit()
            if job.outcome == "done":
                report = job.future.result()
                dialog = ImportReportDialog(path.name, report, self)
                self._keep(dialog)
                dialog.open()
                self.statusBar().showMessage(f"Imported {path.name}", 8000)
            elif job.outcome == "cancelled":
                self.statusBar().showMessage(
                    f"Import of {path.name} cancelled; what was committed is kept", 8000)
            else:
                self._message("Import failed", f"{path.name}: {job.error}")

        return self.start_job(f"Import {path.name}", work, done)

    @Slot()
    def new_demo(self) -> None:
        """Ask where to write a demo project, generate it, open it."""
        default = str(Path.home() / "Winnow" / "demo.winnow")
        path, _ = QFileDialog.getSaveFileName(self, "New demo project", default,
                                              "Winnow projects (*.winnow)")
        if path:
            self.create_demo(path)

    def create_demo(self, path: str | Path) -> Job | None:
        """Generate a demo project at ``path`` in the background, then open it.

        An existing project there is never replaced (nor closed): a message says so.
        """
        from core.demo import create_demo_project
        from core.store.project import project_files

        path = Path(path).with_suffix(".winnow")
        if any(p.exists() or p.is_symlink() for p in project_files(path)):
            self._message("Demo project not created", f"{path} already exists. Winnow never "
                          "replaces a project: open it, or choose another name for the demo.")
            return None

        def work(state: Any) -> None:
            project, _report = create_demo_project(path, state=state)
            project.close()

        def done(job: Job) -> None:
            if job.outcome == "done":
                self.open_project(path)
            elif job.outcome == "failed":
                self._message("Demo project failed", job.error)

        return self.start_job("Create demo project", work, done)

    # -- jobs -------------------------------------------------------------------------------
    def start_job(self, title: str, fn: Callable[..., Any],
                  on_done: Callable[[Job], None] | None = None) -> Job:
        """Run ``fn(state)`` in the background; ``on_done(job)`` runs on the GUI thread."""
        job = self.runner.submit(title, fn, on_finished=self._bridge.finished.emit)
        if on_done is not None:
            self._on_done[id(job)] = on_done
        return job

    def _job_added(self, job: Job) -> None:
        self.jobs_panel.add_job(job)
        self.jobs_dock.show()

    @Slot(object)
    def _job_finished(self, job: Job) -> None:
        callback = self._on_done.pop(id(job), None)
        self.jobs_panel.refresh()
        if job.outcome == "failed" and job.future.exception() is not None and callback is None:
            router.report_exception(job.future.exception(), job.state.title)
        if callback is not None:
            callback(job)

    @Slot()
    def show_jobs(self) -> None:
        """Show the jobs panel."""
        self.jobs_dock.show()
        self.jobs_dock.raise_()

    # -- messages ------------------------------------------------------------------------------
    def _keep(self, widget: QWidget) -> None:
        self._dialogs.append(widget)
        widget.finished.connect(lambda *_: self._dialogs.remove(widget)
                                if widget in self._dialogs else None)

    def _message(self, title: str, text: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok,
                          self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        self._keep(box)
        box.open()
        self.error_shown.emit(text)

    def _show_error(self, title: str, details: str) -> None:
        self.statusBar().showMessage(f"Error: {title}", 15000)
        box = QMessageBox(QMessageBox.Icon.Critical, "Something went wrong", title,
                          QMessageBox.StandardButton.Ok, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setDetailedText(details)
        box.setInformativeText("The details are also in the log file. Your saved work is safe.")
        self._keep(box)
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
            self.resize(1280, 800)
        keys = [info.key for info in WORKSPACES]
        last = app_settings.settings().value("main_window/workspace")
        if last in keys:
            self.nav.setCurrentRow(keys.index(last))

    def _ask_before_quitting(self) -> None:
        """Non-modal question (no nested event loop under qasync): quit and cancel the
        running jobs, or keep working. Quitting closes the window again, confirmed."""
        if self.quit_box is not None:
            self.quit_box.raise_()
            return
        titles = [job.state.title for job in self.runner.active]
        shown = "\n".join(f"• {t}" for t in titles[:5]) + \
            (f"\n… and {len(titles) - 5} more" if len(titles) > 5 else "")
        box = QMessageBox(QMessageBox.Icon.Question, "Jobs are still running",
                          f"{len(titles)} background job(s) still running:\n{shown}",
                          QMessageBox.StandardButton.Cancel, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setInformativeText("Quitting cancels them; what they already saved is kept.")
        quit_button = box.addButton("Cancel Jobs and Quit", QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)

        def answered(*_: Any) -> None:
            self.quit_box = None
            if box.clickedButton() is quit_button:
                self._quit_confirmed = True
                self.close()

        box.finished.connect(answered)
        self.quit_box = box
        self._keep(box)
        box.open()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        """Save geometry, stop jobs (after asking, if any run), close the project."""
        if self.runner.active and not self._quit_confirmed:
            event.ignore()
            self._ask_before_quitting()
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
