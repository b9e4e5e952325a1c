"""The main window's project: new, open (read-only when locked), close, recent, import,
demo. Creating never replaces a file: an existing name is refused with a message."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from app import settings as app_settings
from core.jobs import Job, JobState
from core.store import Project, ProjectError, ProjectLockedError, ReadOnlyLocationError
from core.store.summary import project_summary
from ui.import_report import ImportReportDialog
from ui.workspaces import CurateStart

if TYPE_CHECKING:
    from app.main_window import MainWindow

SUFFIX = ".winnow"


def project_file_name(path: str | Path) -> Path:
    """``path`` with the ``.winnow`` suffix added when it has another one (never replaced:
    ``study.v2`` becomes ``study.v2.winnow``)."""
    path = Path(path)
    return path if path.name.lower().endswith(SUFFIX) else path.with_name(path.name + SUFFIX)


class WindowProject(QObject):
    """Opens, creates and closes the window's project; imports into it."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.context = window.context

    @property
    def project(self) -> Project | None:
        return self.context.project

    # -- open and close -------------------------------------------------------------------
    def open_project(self, path: str | Path, *, readonly: bool = False) -> bool:
        """Open ``path`` (closing any current project); False with a message on failure.

        When another Winnow holds the project for writing, the message offers to open
        it read-only instead.
        """
        path = Path(path)
        current = self.project
        if current is not None and current.path.resolve() == path.resolve() \
                and current.readonly == readonly:
            return True
        if path.is_dir():
            self.window.message("Cannot open project", f"{path.name}: {path} is a folder, "
                                "not a Winnow project file (*.winnow)")
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
            if isinstance(exc, OSError) and exc.strerror:  # words, not "[Errno 2] …: '…'"
                text = f"{exc.strerror} ({exc.filename or path})"
            self.window.message("Cannot open project",
                                text if text.startswith(path.name) else f"{path.name}: {text}")
            return False
        self.close_project(quiet=True)
        self.context.project = project
        app_settings.add_recent_project(path)
        self._project_switched()
        self.window.statusBar().showMessage(
            f"Opened {path}" + (" (read-only)" if readonly else ""), 5000)
        self.window.project_changed.emit()
        self.context.project_changed.emit()
        self.window.focus_page()  # Curate's keys act at once, not the workspace list's
        return True

    def _offer_read_only(self, path: Path, reason: str,
                         title: str = "Project is in use") -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, title, reason,
                          QMessageBox.StandardButton.Cancel, self.window)
        box.setTextFormat(Qt.TextFormat.PlainText)
        read_only = box.addButton("Open Read-Only", QMessageBox.ButtonRole.AcceptRole)
        read_only.clicked.connect(lambda: self.open_project(path, readonly=True))
        self.window.keep(box)
        box.open()
        self.window.error_shown.emit(reason)

    def close_project(self, quiet: bool = False) -> None:
        """Close the open project, if any."""
        project = self.project
        if project is None:
            return
        self.context.project_closing.emit()
        project.close()
        self.context.project = None
        self.context.project_changed.emit()
        self._project_switched()
        if not quiet:
            self.window.statusBar().showMessage("Project closed", 5000)

    def _project_switched(self) -> None:
        self.refresh_summary()
        self.update_title()
        self.window.menus.update_enabled()

    def refresh_summary(self) -> None:
        """Update the project overview and status bar."""
        project = self.project
        summary = project_summary(project) if project is not None else None
        page = self.window.pages.get("curate")
        if isinstance(page, CurateStart):
            page.show_summary(summary)
        if project is None or summary is None:
            self.window.project_label.setText("No project open")
        else:
            self.window.project_label.setText(
                f"{project.path.name} — {summary['posts']:,} posts, "
                f"{summary['samples']:,} samples, {summary['images']:,} images")

    def update_title(self) -> None:
        project = self.project
        name = project.path.name if project is not None else "no project"
        if project is not None and project.readonly:
            name += " (read-only)"
        self.window.setWindowTitle(f"Winnow — {name}")

    # -- choosing files ----------------------------------------------------------------------
    @Slot()
    def choose_project(self) -> None:
        """Ask for a project file and open it."""
        patterns = " ".join(["*.winnow", *(f"*{s}" for s in self.context.file_handlers)])
        path, _ = QFileDialog.getOpenFileName(self.window, "Open", self._folder(),
                                              f"Winnow files ({patterns})")
        if path:
            self.open_path(path)

    def open_path(self, path: str | Path) -> bool:
        """Open a project, or any file a workspace registered a handler for (its opener
        returns None when it refused the file)."""
        path = Path(path)
        for suffix, opener in self.context.file_handlers.items():
            if path.name.lower().endswith(suffix):
                return opener(path) is not None
        return self.open_project(path)

    def fill_recent(self, menu: QMenu) -> None:
        """List the recent projects in ``menu``."""
        menu.clear()
        recent = app_settings.recent_projects()
        if not recent:
            menu.addAction("No recent projects").setEnabled(False)
        for path in recent:
            def open_recent(p: str = path) -> None:
                self.open_project(p)

            menu.addAction(path, open_recent)

    def _folder(self) -> str:
        """Where file dialogs start: the folder of the most recent project."""
        recent = app_settings.recent_projects()
        return str(Path(recent[0]).parent) if recent else str(Path.home())

    # -- new -------------------------------------------------------------------------------------
    @Slot()
    def new_project(self) -> bool:
        """Ask where to create an empty project (an existing file is refused), create it and
        open it. True when a project was created."""
        path, _ = QFileDialog.getSaveFileName(
            self.window, "New project", str(Path(self._folder()) / "untitled.winnow"),
            "Winnow projects (*.winnow)", options=QFileDialog.Option.DontConfirmOverwrite)
        return bool(path) and self.create_project(path)

    def create_project(self, path: str | Path) -> bool:
        """Create an empty project at ``path`` and open it; never replaces anything."""
        path = project_file_name(path)
        if path.exists() or path.is_symlink():
            self.window.message("Project not created", f"{path.name}: {path} already exists. "
                                "Winnow never replaces a file; choose another name, or open "
                                "it with File → Open Project….")
            return False
        try:
            project = Project.create(path)
        except (OSError, ProjectError) as exc:
            self.window.message("Project not created", f"{path.name}: {exc}")
            return False
        project.close()
        return self.open_project(path)

    @Slot()
    def new_demo(self) -> None:
        """Ask where to write a demo project, generate it, open it."""
        default = str(Path.home() / "Winnow" / "demo.winnow")
        path, _ = QFileDialog.getSaveFileName(self.window, "New demo project", default,
                                              "Winnow projects (*.winnow)")
        if path:
            self.create_demo(path)

    def create_demo(self, path: str | Path) -> Job | None:
        """Generate a demo project at ``path`` in the background, then open it.

        An existing project there is never replaced (nor closed): a message says so.
        """
        from core.demo import create_demo_project
        from core.store.project import project_files

        path = Path(path).with_suffix(SUFFIX)
        if any(p.exists() or p.is_symlink() for p in project_files(path)):
            self.window.message("Demo project not created", f"{path} already exists. Winnow "
                                "never replaces a project: open it, or choose another name "
                                "for the demo.")
            return None

        def work(state: JobState) -> None:
            project, _report = create_demo_project(path, state=state)
            project.close()

        def done(job: Job) -> None:
            if job.outcome == "done":
                self.open_project(path)
            elif job.outcome == "failed":
                self.window.message("Demo project failed", job.error)

        return self.window.start_job("Create demo project", work, done)

    # -- import ------------------------------------------------------------------------------
    def _refuse_in_package(self) -> bool:
        """A curator package takes no imports (ADR 130): say so, naming the package and
        the project they go into, before any file is asked for or read (ADR 219)."""
        return self.context.refuse_in_package("Import not possible")

    @Slot()
    def choose_import(self) -> None:
        """Ask for a JSONL file and import it in the background; with no project open,
        first offer to create one (or open one)."""
        if self.project is None:
            self._offer_project_for_import("Import posts", "Posts and samples are",
                                           self.choose_import)
            return
        if self._refuse_in_package():
            return
        path, _ = QFileDialog.getOpenFileName(self.window, "Import posts or samples",
                                              self._folder(),
                                              "JSON Lines (*.jsonl *.json *.ndjson);;All (*)")
        if path:
            self.import_file(path)

    def _offer_project_for_import(self, title: str, what: str,
                                  then: Callable[[], None]) -> None:
        """Offer a new or existing project, then go on with ``then`` (the import asked for:
        the JSON Lines file picker or the dataset folder picker)."""
        box = QMessageBox(QMessageBox.Icon.Question, title,
                          f"{what} imported into a project, and none is open.",
                          QMessageBox.StandardButton.Cancel, self.window)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setInformativeText("Create a new project for them, or open an existing one.")
        new = box.addButton("New Project…", QMessageBox.ButtonRole.AcceptRole)
        existing = box.addButton("Open Project…", QMessageBox.ButtonRole.ActionRole)
        box.setDefaultButton(new)

        def answered(*_: Any) -> None:
            if box.clickedButton() is new and self.new_project():
                then()
            elif box.clickedButton() is existing:
                self.choose_project()
                if self.project is not None:
                    then()

        box.finished.connect(answered)
        self.window.keep(box)
        box.open()

    @Slot()
    def choose_import_hf(self) -> None:
        """Ask for a Hugging Face dataset folder and import it in the background."""
        if self.project is None:
            self._offer_project_for_import("Import a Hugging Face dataset",
                                           "A Hugging Face dataset is", self.choose_import_hf)
            return
        if self._refuse_in_package():
            return
        folder = QFileDialog.getExistingDirectory(self.window,
                                                  "Import a Hugging Face dataset folder",
                                                  self._folder())
        if folder:
            from core.interop.hf_import import import_hf

            self.import_file(folder, importer=import_hf)

    def import_file(self, path: str | Path, fetch_settings: Any = None,
                    importer: Callable[..., Any] | None = None) -> Job | None:
        """Start importing ``path`` into the open project; the report opens when done.

        ``importer(view, path, state=...)`` replaces the JSON Lines import (a Hugging Face
        dataset folder uses ``core.interop.hf_import.import_hf``)."""
        project = self.project
        if project is None or self._refuse_in_package():
            return None
        from core.ingest.fetch import FetchSettings
        from core.ingest.importer import import_jsonl

        path = Path(path)
        view = project.worker_view()
        if fetch_settings is None:
            fetch_settings = FetchSettings(
                cache_dir=view.assets.root / ".http-cache",
                allow_private_network=app_settings.allow_private_network())

        def work(state: JobState) -> dict[str, Any]:
            try:
                if importer is not None:
                    report = importer(view, path, state=state)
                else:
                    report = import_jsonl(view, path, state=state,
                                          fetch_settings=fetch_settings)
            finally:
                view.close()
            state.item_done(report.imported + report.updated + report.unchanged
                            + report.images_fetched)
            failed = len(report.errors) + report.suppressed_errors
            unit = "line(s)" if importer is None else "row(s)"  # a dataset has rows
            lost = [f"{failed:,} {unit} could not be imported"] if failed else []
            if report.images_failed:  # the Jobs panel said "Finished" over lost images
                lost.append(f"{report.images_failed:,} image(s) could not be stored")
            if lost:
                state.item_failed(path.name, ", ".join(lost),
                                  count=failed + report.images_failed)
            return report.to_json()

        def done(job: Job) -> None:
            self.refresh_summary()
            self.context.data_changed.emit()
            if job.outcome == "done":
                dialog = ImportReportDialog(path.name, job.future.result(), self.window)
                self.window.keep(dialog)
                dialog.open()
                self.window.statusBar().showMessage(f"Imported {path.name}", 8000)
            elif job.outcome == "cancelled":
                self.window.statusBar().showMessage(
                    f"Import of {path.name} cancelled; what was committed is kept", 8000)
            else:  # named once: most errors already say which file
                error = str(job.error)
                self.window.message("Import failed", error if path.name in error
                                    else f"{path.name}: {error}")

        return self.window.start_job(f"Import {path.name}", work, done)
