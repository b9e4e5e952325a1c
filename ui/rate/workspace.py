"""The Rate workspace: import model outputs, design sessions (from the Curate filter,
the Benchmark samples, a tag or ids), merge returned rater files, per-rater summaries,
results export, delete / archive a session and open its folder, and the rater view
(File → Open on a ``.winnow-session`` file)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from core.curate.queries import count_samples, distinct_tags
from core.ingest.outputs import import_outputs, output_models
from core.jobs import Job, JobState
from core.rating.design import SessionDesign
from core.rating.merge import merge_files
from core.rating.protocols import PROTOCOL_TITLES
from core.rating.rater_open import open_for_rating
from core.rating.results import export_results, rater_summaries
from core.rating.session_admin import (
    archived,
    choose_samples,
    model_output_counts,
)
from core.rating.session_file import SUFFIX
from core.rating.sessions import create_and_write, list_sessions
from ui.empty_state import EmptyState
from ui.rate.design_dialog import DesignDialog
from ui.rate.housekeeping import SessionHousekeeping
from ui.rate.outputs_report import outputs_report
from ui.rate.rater import RaterWindow
from ui.rate.tables import RATER_COLUMNS, SESSION_COLUMNS, fit_columns, make_table, set_row
from ui.widgets.actions import make_action
from ui.widgets.dates import format_when, when_tooltip
from ui.widgets.screen import fitted_size


class RateWorkspace(SessionHousekeeping, QWidget):
    """Workspace page, built as ``RateWorkspace(context)`` by the main window."""

    def __init__(self, context: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.raters: list[RaterWindow] = []
        self.last_job: Job | None = None
        self._build_actions()
        self.empty = EmptyState(
            "Rate", "Offline expert rating sessions with blinded, randomized model outputs.",
            ["Open a project to design sessions and merge returned files",
             "A rater only needs their .winnow-session file: open it here to start rating",
             "Every answer is saved the moment it is given"],
            [self.act_rate])
        self.main = QWidget()
        self._build_main()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.main)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        context.register_file_handler(SUFFIX, self.open_session_file)
        context.project_changed.connect(self.refresh)
        context.data_changed.connect(self.refresh)
        # every Curate search keystroke changes the selection: count it when Rate is shown
        self._selection_stale = False
        context.selection_changed.connect(self._selection_changed)
        self.refresh()

    def _selection_changed(self) -> None:
        if self.isVisible():
            self.refresh()
        else:
            self._selection_stale = True

    def showEvent(self, event: Any) -> None:  # noqa: N802
        """Catch up with Curate filter changes made while the page was hidden."""
        super().showEvent(event)
        if self._selection_stale:
            self._selection_stale = False
            self.refresh()

    # -- construction ------------------------------------------------------------
    def _action(self, text: str, slot: Any, shortcut: str | None = None) -> QAction:
        return make_action(self, text, slot, shortcut)

    def _build_actions(self) -> None:
        self.act_outputs = self._action("Import &Model Outputs…", self.choose_outputs,
                                        "Ctrl+Shift+I")
        self.act_new = self._action("&New Session…", self.new_session, "Ctrl+Shift+N")
        self.act_merge = self._action("&Merge Returned Files…", self.choose_merge, "Ctrl+M")
        self.act_export = self._action("&Export Results…", self.choose_export, "Ctrl+E")
        self.act_rate = self._action("&Rate a Session File…", self.choose_session_file,
                                     "Ctrl+Shift+O")
        self.act_folder = self._action("Open Session &Folder", self.open_folder)
        self.act_delete = self._action("&Delete Session…", self.ask_delete)
        self.act_delete.setToolTip("Delete the session (archive it when judgments were "
                                   "merged: they are never deleted)")
        self.act_restore = self._action("Restore Archived Session", self.restore)
        #: how a folder is shown (a test puts a recorder here)
        self.open_url = QDesktopServices.openUrl

    def workspace_menu(self) -> QMenu:
        """The Rate menu of the menu bar."""
        menu = QMenu("&Rate", self)
        for action in (self.act_outputs, self.act_new, self.act_merge, self.act_export):
            menu.addAction(action)
        menu.addSeparator()
        for action in (self.act_folder, self.act_delete, self.act_restore):
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.act_rate)
        return menu

    def _build_main(self) -> None:
        title = QLabel("Rating sessions")
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setBold(True)
        title.setFont(font)
        buttons = QHBoxLayout()
        self.buttons: dict[QAction, QPushButton] = {}
        for action in (self.act_outputs, self.act_new, self.act_merge, self.act_export,
                       self.act_rate):
            button = QPushButton(action.text().replace("&", ""))
            button.setToolTip(action.toolTip())
            button.clicked.connect(action.trigger)
            button.setEnabled(action.isEnabled())
            action.enabledChanged.connect(button.setEnabled)  # never a button that does nothing
            buttons.addWidget(button)
            self.buttons[action] = button
        buttons.addStretch(1)
        self.info = QLabel()
        self.info.setTextFormat(Qt.TextFormat.PlainText)
        self.info.setWordWrap(True)
        self.sessions = make_table(SESSION_COLUMNS)
        self.sessions.itemSelectionChanged.connect(self.show_summary)
        self.sessions.itemSelectionChanged.connect(self._update_session_actions)
        delete_key = make_action(self.sessions, "Delete", self.ask_delete,
                                 QKeySequence.StandardKey.Delete, local=True)
        self.sessions.addAction(delete_key)
        session_row = QHBoxLayout()
        for action in (self.act_folder, self.act_delete, self.act_restore):
            button = QPushButton(action.text().replace("&", ""))
            button.setToolTip(action.toolTip())
            button.clicked.connect(action.trigger)
            button.setEnabled(action.isEnabled())
            action.enabledChanged.connect(button.setEnabled)
            session_row.addWidget(button)
            self.buttons[action] = button
        self.show_archived = QCheckBox("Show archived sessions")
        self.show_archived.toggled.connect(lambda _on: self.refresh())
        session_row.addWidget(self.show_archived)
        session_row.addStretch(1)
        upper = QWidget()
        ul = QVBoxLayout(upper)
        ul.setContentsMargins(0, 0, 0, 0)
        ul.addWidget(self.sessions)
        ul.addLayout(session_row)
        self.summary_title = QLabel("Raters")
        self.summary_title.setTextFormat(Qt.TextFormat.PlainText)
        self.summary = make_table(RATER_COLUMNS)
        lower = QWidget()
        ll = QVBoxLayout(lower)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.summary_title)
        ll.addWidget(self.summary)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(upper)
        splitter.addWidget(lower)
        layout = QVBoxLayout(self.main)
        layout.setContentsMargins(24, 16, 24, 16)
        layout.addWidget(title)
        layout.addLayout(buttons)
        layout.addWidget(self.info)
        layout.addWidget(splitter, 1)

    # -- showing -----------------------------------------------------------------
    def refresh(self, select: str | None = None) -> None:
        """Reload outputs, selection and sessions from the project; ``select`` names the
        session to select (else the one selected stays)."""
        project = self.context.project
        writable = project is not None and not project.readonly
        for action in (self.act_outputs, self.act_new, self.act_merge):
            action.setEnabled(writable)
        self.act_export.setEnabled(project is not None)
        if project is None:
            self.stack.setCurrentWidget(self.empty)
            return
        self.stack.setCurrentWidget(self.main)
        counts = model_output_counts(project)
        selected = len(self.context.selection.sample_ids(project))
        outputs = ", ".join(f"{m} ({n})" for m, n in counts.items()) or \
            "none yet — import a folder laid out as <root>/<model>/<sample_id>.png"
        self.info.setText(f"Model outputs: {outputs}\nCurate filter: {selected:,} "
                          f"sample{'' if selected == 1 else 's'}; a new session can also "
                          "take all Benchmark samples, "
                          "a tag or ids you pick." +
                          (f"\nRead-only: {project.path.name} is open read-only, so "
                           "sessions can be viewed and exported but not created or merged."
                           if project.readonly else ""))
        self.act_new.setEnabled(writable and bool(counts) and count_samples(project) > 0)
        current = select or self.selected_session()
        hidden = archived(project)
        rows = [s for s in list_sessions(project)
                if self.show_archived.isChecked() or s.uid not in hidden]
        self.archived_names = {s.name for s in rows if s.uid in hidden}
        # rows are rewritten one by one: no summary of a half-rewritten table (a selected
        # row could still name a session of the project shown before), one at the end
        blocker = QSignalBlocker(self.sessions)
        self.sessions.clearSelection()
        self.sessions.setRowCount(len(rows))
        for r, s in enumerate(rows):
            name = s.name + ("  (archived)" if s.uid in hidden else "")
            set_row(self.sessions, r, [name, PROTOCOL_TITLES[s.protocol], s.raters, s.tasks,
                                        s.judgments, s.design.seed, format_when(s.created_at)],
                     key=s.name, dim=s.uid in hidden)
            created = self.sessions.item(r, SESSION_COLUMNS.index("Created"))
            assert created is not None  # set_row filled every cell
            created.setToolTip(when_tooltip(s.created_at))
            if s.name == current:
                self.sessions.selectRow(r)
        fit_columns(self.sessions)
        if rows and self.selected_session() is None:
            self.sessions.selectRow(0)
        blocker.unblock()
        self.show_summary()
        self._update_session_actions()

    def selected_session(self) -> str | None:
        """Name of the session selected in the table."""
        items = self.sessions.selectedItems()
        if not items:
            return None
        name = self.sessions.item(items[0].row(), 0)
        return name.data(Qt.ItemDataRole.UserRole) if name is not None else None

    def show_summary(self) -> None:
        """Per-rater summary of the selected session."""
        name = self.selected_session()
        project = self.context.project
        if name is None or project is None:
            self.summary.setRowCount(0)
            self.summary_title.setText("Raters")
            return
        try:
            rows = rater_summaries(project, name)
        except ValueError:  # the table is behind the project (the session went meanwhile)
            self.summary.setRowCount(0)
            self.summary_title.setText("Raters")
            QTimer.singleShot(0, self.refresh)
            return
        self.summary_title.setText(f"Raters of {name}")
        self.summary.setRowCount(len(rows))
        for r, s in enumerate(rows):
            gold = ("—" if s.gold_accuracy is None else
                    f"{s.gold_accuracy:.0%} ({s.gold_correct}/{s.gold_answered})")
            median = "—" if s.median_time_s is None else f"{s.median_time_s:.1f} s"
            set_row(self.summary, r, [s.slot, s.rater or "not returned yet",
                                       f"{s.completed}/{s.tasks}", gold, median, s.flags,
                                       s.early, s.changed, s.path or ""])
        fit_columns(self.summary)

    # -- actions -------------------------------------------------------------------
    def choose_outputs(self) -> None:
        if self._refused("Import not possible", "model outputs", "Import them into {project}"):
            return
        folder = QFileDialog.getExistingDirectory(self, "Model outputs folder "
                                                  "(<root>/<model>/<sample_id>.<ext>)")
        if folder:
            self.import_outputs(folder)

    def import_outputs(self, folder: str | Path) -> Any:
        """Import model outputs in the background, then report missing/extra files."""
        if self._refused("Import not possible", "model outputs", "Import them into {project}"):
            return None
        view = self.context.project.worker_view()

        def work(state: JobState) -> dict[str, Any]:
            try:
                return import_outputs(view, folder, state=state).to_json()
            finally:
                view.close()

        def done(job: Job) -> None:
            if job.outcome == "done":
                self._report_outputs(job.future.result(), Path(folder).name)
            elif job.outcome == "failed":
                self.context.message("Import of model outputs failed", str(job.error))
            self.context.data_changed.emit()

        self.last_job = self.context.start_job(f"Import outputs from {Path(folder).name}",
                                               work, done)
        return self.last_job

    def _report_outputs(self, report: dict[str, Any], folder: str) -> None:
        self._inform(*outputs_report(report, folder))

    def _refused(self, title: str, takes: str = "rating sessions",
                 instead: str = "Rate in {project}") -> bool:
        """A curator package holds no sessions or outputs (ADR 130, 222)."""
        return self.context.refuse_in_package(title, takes, instead)

    def _inform(self, title: str, text: str, details: str = "") -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Information, title, text,
                          QMessageBox.StandardButton.Ok, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        if details:
            box.setDetailedText(details)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.last_box = box
        box.open()
        return box

    def new_session(self) -> DesignDialog | None:
        """Open the design dialog on the current Curate selection."""
        project = self.context.project
        if project is None or self._refused("New session"):
            return None
        ids = self.context.selection.sample_ids(project)
        dialog = DesignDialog(ids, output_models(project), "the current Curate filter",
                              project.path.parent / f"{project.path.stem}-sessions", self,
                              taken=[s.name for s in list_sessions(project)],
                              choose=lambda source, value: choose_samples(project, source,
                                                                          value),
                              tags=distinct_tags(project),
                              source="filter" if ids else "benchmark")
        dialog.accepted.connect(lambda: self.create_session(dialog.result_design,
                                                            Path(dialog.out_dir.text())))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.dialog = dialog
        dialog.open()
        return dialog

    def create_session(self, design: SessionDesign | None, out_dir: Path) -> Any:
        """Plan the session and write the rater files in the background."""
        if design is None or self._refused("New session"):
            return None
        view = self.context.project.worker_view()

        def work(state: JobState) -> list[str]:
            try:
                return [str(p) for p in create_and_write(view, design, out_dir, state=state)]
            finally:
                view.close()

        def done(job: Job) -> None:
            self.refresh()
            if job.outcome == "done":
                files = job.future.result()
                self._inform("Session created",
                             f"{design.name}: {len(files)} rater file(s) written to {out_dir}."
                             "\nHand each rater one file; merge the files they send back.",
                             "\n".join(files))
            elif job.outcome == "failed":
                self.context.message("Session not created", str(job.error))

        self.last_job = self.context.start_job(f"Create session {design.name}", work, done)
        return self.last_job

    def choose_merge(self) -> None:
        if self._refused("Merge returned files"):
            return
        paths, _ = QFileDialog.getOpenFileNames(self, "Returned session files", "",
                                                f"Session files (*{SUFFIX})")
        if paths:
            self.merge(paths)

    def merge(self, paths: Sequence[str | Path]) -> Any:
        """Merge returned files in the background; refused files are listed with why."""
        if self._refused("Merge returned files"):
            return None
        view = self.context.project.worker_view()

        def work(state: JobState) -> tuple[list[str], list[str], list[str]]:
            try:
                results, errors = merge_files(view, list(paths), state=state)
                return [r.summary() for r in results], errors, [r.session for r in results]
            finally:
                view.close()

        def done(job: Job) -> None:
            if job.outcome != "done":
                self.refresh()
                self.context.message("Merge failed", str(job.error))
                return
            merged, errors, sessions = job.future.result()
            # the raters' table shows the session merged into (it showed the one selected
            # before, e.g. "not returned yet" for every rater of another session)
            self.refresh(select=sessions[-1] if sessions else None)
            text = "\n".join(merged) or "Nothing merged."
            if errors:
                self.context.message("Some files were refused",
                                     "\n\n".join(errors) + "\n\nMerged:\n" + text)
            else:
                self._inform("Files merged", text)

        self.last_job = self.context.start_job("Merge session files", work, done)
        return self.last_job

    def choose_export(self) -> None:
        name = self.selected_session()
        if name is None or self.context.project is None:
            none_yet = self.sessions.rowCount() == 0
            self.context.refuse("Export results", "No rating session yet: design one with "
                                "New Session… (Ctrl+Shift+N), hand out its rater files and "
                                "merge them back; then export its results." if none_yet
                                else "Select a session in the list first.")
            return
        criterion = None
        criteria = next(s.design.criteria for s in list_sessions(self.context.project)
                        if s.name == name)
        protocol = next(s.protocol for s in list_sessions(self.context.project)
                        if s.name == name)
        if protocol == "side_by_side" and len(criteria) > 1:
            criterion, ok = QInputDialog.getItem(self, "Export results", "Question:",
                                                 list(criteria), 0, False)
            if not ok:
                return
        path, chosen = QFileDialog.getSaveFileName(self, "Export results", f"{name}.csv",
                                                   "CSV (*.csv);;Parquet (*.parquet)")
        if path:
            if chosen.startswith("Parquet") and not path.lower().endswith(".parquet"):
                path += ".parquet"
            self.export(name, path, criterion)

    def export(self, name: str, path: str | Path, criterion: str | None = None) -> int | None:
        """Write the results CSV (the input of ``winnow stats``), or parquet for a
        ``.parquet`` name (ADR 103; the save dialog already asked before replacing)."""
        from core.interop.parquet import export_results_parquet, format_for

        try:
            if format_for(path) == "parquet":
                n = export_results_parquet(self.context.project, name, path, criterion,
                                           replace=True)
            else:
                n = export_results(self.context.project, name, path, criterion=criterion)
        except (ValueError, OSError) as exc:
            self.context.message("Export failed", str(exc))
            return None
        self.context.status(f"{n} row(s) written to {path}")
        return n

    def choose_session_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a session file to rate", "",
                                              f"Session files (*{SUFFIX})")
        if path:
            self.open_session_file(path)

    def open_session_file(self, path: str | Path) -> RaterWindow | None:
        """Open the rater view for a session file (File → Open dispatches here); a file a
        rater window has open already brings that window forward (a second window on it
        would refuse the answers the first gives)."""
        for open_window in self.raters:
            with contextlib.suppress(OSError):
                if not open_window.session.closed and \
                        os.path.samefile(open_window.session.path, path):
                    open_window.showNormal()
                    open_window.raise_()
                    open_window.activateWindow()
                    return open_window
        try:
            session = open_for_rating(path)
        except (ValueError, OSError) as exc:
            name, text = Path(path).name, str(exc)
            self.context.message("Cannot open session file",
                                 text if text.startswith(name) else f"{name}: {text}")
            return None
        window = RaterWindow(session)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        window.destroyed.connect(lambda *_: self.raters.remove(window)
                                 if window in self.raters else None)
        self.raters.append(window)
        window.resize(*fitted_size(1400, 900))
        window.show()
        return window
