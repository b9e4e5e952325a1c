"""Metrics workspace: selection × models × metrics → Run (background, cancellable) → results.

Left: what will be scored (the Curate filter's samples, models, metrics, device)
with Run / Cancel and live progress.  Right: the results table, histograms per
metric and model, and a drill-down with input and output side by side.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelectionModel, QObject, Qt, Signal, Slot
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.jobs import Job, JobState
from core.metrics.base import SAMPLE_MODEL, params_hash
from core.metrics.items import available_models, collect_items, rating_sessions
from core.metrics.registry import all_metrics, get
from core.metrics.runner import run_metrics
from core.metrics.store import export_csv, has_results, load_results
from ui.empty_state import EmptyState
from ui.metrics.drilldown import DrillDown
from ui.metrics.results_pane import ResultsPane, summary_text
from ui.metrics.run_panel import RunPanel, report_items
from ui.metrics.settings_dialog import MetricsSettingsDialog, load_settings
from ui.widgets.actions import make_action


class _Progress(QObject):
    """Carries JobState updates from the worker thread to the GUI thread (queued)."""

    changed = Signal(int, int, str)


class MetricsWorkspace(QWidget):
    """The page built by the main window as ``MetricsWorkspace(context)``."""

    drill: DrillDown  # built in _build_main, after the table whose signals show it
    tabs: QTabWidget

    def __init__(self, context: Any) -> None:
        super().__init__()
        self.context = context
        self.job: Job | None = None
        self._last_finished: Job | None = None  # the run _finished saw last
        self.sample_ids: list[str] = []
        self.all_rows: list[Any] = []
        self.titles = {m.name: m.title for m in all_metrics()}
        self.higher = {m.name: m.higher_is_better for m in all_metrics()}
        self._progress = _Progress(self)
        self._progress.changed.connect(self._show_progress)
        self.stack = QStackedWidget()
        self.empty = EmptyState(
            "Metrics", "Run local metrics and VLM judges on a selection of samples and models.",
            ["Open or create a project first (File → Open, or File → New demo project)",
             "Colour shift, face identity, DINO structure distance, CLIPScore, OCR text "
             "rendering, VLM judges", "Runs in the background with progress and Cancel; "
             "results are cached in the project"])
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self._build_main())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self._build_actions()
        context.project_changed.connect(self._project_changed)
        context.data_changed.connect(self.reload)
        context.selection_changed.connect(self.reload)
        self.reload()

    # -- construction ----------------------------------------------------------------------
    def _build_main(self) -> QWidget:
        left = RunPanel()
        # the panel's widgets, by the names the rest of the workspace (and tests) use
        self.selection_label, self.models, self.metrics = (left.selection_label, left.models,
                                                           left.metrics)
        self.device, self.run_button, self.cancel_button = (left.device, left.run_button,
                                                            left.cancel_button)
        self.settings_button, self.progress, self.status, self.source = (
            left.settings_button, left.progress, left.status, left.source)
        self.run_button.clicked.connect(self.run)
        self.cancel_button.clicked.connect(self.cancel)
        self.settings_button.clicked.connect(self.open_settings)
        self.source.currentIndexChanged.connect(self._source_changed)

        pane = ResultsPane()
        # the pane's widgets, by the names the rest of the workspace (and tests) use
        self.tabs, self.model, self.table, self.summary = (pane, pane.model, pane.table,
                                                           pane.summary)
        self.hide_na, self.hist, self.drill = pane.hide_na, pane.hist, pane.drill
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        self.hide_na.toggled.connect(self.refresh_results)
        self.metrics.itemChanged.connect(lambda _: self.refresh_results())
        self.models.itemChanged.connect(lambda _: self.refresh_results())
        self.drill.step_requested.connect(self.step)
        self.drill.reveal_requested.connect(lambda sid: self.context.reveal("curate", sid))
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(self.tabs)
        split.setStretchFactor(1, 1)
        return split

    def _build_actions(self) -> None:
        def action(text: str, slot: Any, shortcut: Any = None, tip: str = "") -> Any:
            return make_action(self, text, lambda _=False: slot(), shortcut, tip, local=True)

        self.act_run = action("&Run Metrics", self.run, "Ctrl+Return",
                              "Score the selection with the ticked metrics")
        self.act_cancel = action("&Cancel Run", self.cancel, "Esc",
                                 "Stop the run after the current batch (results so far stay)")
        self.act_settings = action("&Settings…", self.open_settings, None,
                                   "Model folders, judges and batch sizes")
        self.act_export = action("&Export Results as CSV…", self.export,
                                 QKeySequence("Ctrl+E"), "Write every stored result to a CSV")
        self.act_next = action("&Next Result", lambda: self.step(1), "J",
                               "Drill-down: the next row of the results")
        self.act_next.setShortcuts([QKeySequence("J"), QKeySequence("Alt+Down")])
        self.act_previous = action("&Previous Result", lambda: self.step(-1), "K",
                                   "Drill-down: the previous row of the results")
        self.act_previous.setShortcuts([QKeySequence("K"), QKeySequence("Alt+Up")])
        self.act_reveal = action("Show Sample in &Curate", self.reveal_current, "Ctrl+G",
                                 "Switch to Curate with this result's sample selected")

    def focus_target(self) -> QWidget | None:
        """The results table takes the keyboard when the page is shown (not the selection
        box, whose arrow keys would change what is scored)."""
        return self.table if self.stack.currentIndex() == 1 else None

    def workspace_menu(self) -> QMenu:
        """The Metrics menu of the menu bar."""
        menu = QMenu("&Metrics", self)
        for act in (self.act_run, self.act_cancel, None, self.act_next, self.act_previous,
                    self.act_reveal, None, self.act_settings, self.act_export):
            menu.addSeparator() if act is None else menu.addAction(act)
        return menu

    def update_actions(self) -> None:
        """Enable what can act now (ADR 080): Run needs a writable project and no run in
        progress, Cancel a run, stepping and Curate a result on screen."""
        project = self.project
        writable = project is not None and not project.readonly
        running = self.job is not None
        self.act_run.setEnabled(writable and not running)
        self.run_button.setEnabled(writable and not running)
        self.act_cancel.setEnabled(running)
        self.cancel_button.setEnabled(running)
        self.act_export.setEnabled(project is not None)
        row = self.table.currentIndex().row()
        count = self.model.rowCount()
        self.act_next.setEnabled(0 <= row < count - 1 or (row < 0 and count > 0))
        self.act_previous.setEnabled(row > 0)
        self.act_reveal.setEnabled(self.drill.current is not None)

    # -- state -----------------------------------------------------------------------------
    @property
    def project(self) -> Any:
        return self.context.project

    def checked(self, widget: QListWidget) -> list[str]:
        return [widget.item(i).data(Qt.ItemDataRole.UserRole) for i in range(widget.count())
                if widget.item(i).checkState() == Qt.CheckState.Checked]

    def set_checked(self, widget: QListWidget, names: list[str]) -> None:
        for i in range(widget.count()):
            item = widget.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.data(Qt.ItemDataRole.UserRole)
                               in names else Qt.CheckState.Unchecked)

    @Slot()
    def _project_changed(self) -> None:
        self.drill.clear()  # its pair belongs to the project that was closed
        self.reload()

    @Slot()
    def reload(self) -> None:
        """Refresh models, selection count and results from the project."""
        project = self.project
        self.stack.setCurrentIndex(0 if project is None else 1)
        # results are stored in the project: a read-only one can show and export, not run
        self.update_actions()
        if project is None:
            return
        previous = set(self.checked(self.models))
        self.models.blockSignals(True)
        self.models.clear()
        for name in available_models(project):
            label = "@sample (the sample's own output)" if name == SAMPLE_MODEL else name
            item = QListWidgetItem(label)
            item.setToolTip(label)
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if not previous or name in previous
                               else Qt.CheckState.Unchecked)
            self.models.addItem(item)
        self.models.blockSignals(False)
        self.sessions = rating_sessions(project)
        current = self.source.currentText()
        self.source.blockSignals(True)
        self.source.clear()
        self.source.addItem("Curate filter")
        for name, samples, _ in self.sessions:
            self.source.addItem(f"Rating session: {name} ({len(samples)} samples)")
        self.source.setCurrentIndex(max(0, self.source.findText(current)))
        self.source.blockSignals(False)
        self._apply_source(tick_models=False)

    def _source_changed(self, _index: int) -> None:
        self._apply_source(tick_models=True)

    def _apply_source(self, tick_models: bool) -> None:
        """Take the sample ids (and, for a session, its models) from the chosen source."""
        if self.project is None:
            return
        k = self.source.currentIndex()
        if k <= 0:
            ids = self.context.selection.sample_ids(self.project)
            text = f"{len(ids):,} samples selected in Curate."
        else:
            name, ids, models = self.sessions[k - 1]
            text = f"{len(ids):,} samples and {len(models)} models of session {name}."
            if tick_models:
                self.models.blockSignals(True)
                self.set_checked(self.models, models)
                self.models.blockSignals(False)
        self.sample_ids = list(ids)
        if self.project.readonly:
            text += (f"\nRead-only: {self.project.path.name} is open read-only, so stored "
                     "results show and export but Run is off.")
        self.selection_label.setText(
            text + ("" if self.models.count() else "\nNo output images yet: import model "
                    "outputs (Rate → Import Model Outputs…) or curate samples with "
                    "outputs."))
        self.refresh_results()

    def refresh_results(self) -> None:
        """Show stored results for the selection, checked models and current settings."""
        if self.project is None:
            return
        settings = load_settings(self.device.currentData())
        hashes = {m.name: params_hash(m, m.params(settings)) for m in all_metrics()}
        rows = load_results(self.project, params_hashes=hashes, sample_ids=self.sample_ids,
                            models=self.checked(self.models) or ["\0"])
        self.all_rows = rows
        ticked = set(self.checked(self.metrics))
        # the ticked metrics' results only: with none stored yet, every other metric's
        # showed instead (a run of CLIPScore listed the demo's colour shifts as its own)
        shown = [r for r in rows if r.metric in ticked] if ticked else rows
        n_na = sum(r.status == "not_applicable" for r in shown)
        visible = [r for r in shown if r.status != "not_applicable"] \
            if self.hide_na.isChecked() else shown
        self.model.set_rows(visible, self.titles, self.higher)
        self.hist.show_rows(shown, self.titles, self.higher)
        others = sorted({r.metric for r in rows} - ticked, key=list(self.titles).index)
        self.summary.setText(summary_text(shown, visible, n_na, others,
                                          has_samples=bool(self.sample_ids),
                                          has_models=bool(self.checked(self.models)),
                                          titles=self.titles))
        self.update_actions()

    # -- running -----------------------------------------------------------------------------
    @Slot()
    def run(self) -> Any:
        """Start a background run on the current selection; returns the job (or None)."""
        if self.project is None or self.job is not None:
            return None
        if self.project.readonly:
            self.context.refuse("Project is read-only",
                                f"{self.project.path.name} is open read-only: metric results "
                                "cannot be stored. Reopen it for writing to run metrics.")
            return None
        if self.context.refuse_in_package("Run not possible", "metric results",
                                          "Run metrics in {project}"):
            return None
        if not self.sample_ids or not self.models.count():  # nothing a tick could fix
            self.context.refuse("Nothing to run", (
                "No samples selected: choose samples in Curate (its filter is the "
                "selection) or a rating session under Selection." if not self.sample_ids
                else "No output images to measure yet: import model outputs (Rate → "
                "Import Model Outputs…) or curate samples with outputs."))
            return None
        metrics = [get(n) for n in self.checked(self.metrics)]
        models = self.checked(self.models)
        if not metrics or not models:
            self.context.refuse("Nothing to run", "Tick at least one model and one metric.")
            return None
        settings = load_settings(self.device.currentData())
        if any(m.is_judge for m in metrics) and not settings.judges:
            self.context.refuse("No judge configured", "Judge metrics need an endpoint: "
                                "Metrics → Settings… (base URL and judge model names).")
            return None
        project, ids = self.project, list(self.sample_ids)
        emit = self._progress.changed.emit
        titles = dict(self.titles)

        def work(state: JobState) -> Any:
            state.subscribe(lambda s: emit(s.done, s.total or 0, s.status))
            view = project.worker_view()
            try:
                items = collect_items(view, ids, models)
                summary = run_metrics(state, view, metrics, items, settings)
            finally:
                view.close()
            report_items(state, summary, len(items), titles)
            return summary

        names = ", ".join(m.title for m in metrics)
        self.status.setText("Starting…")
        job = self.context.start_job(f"Metrics: {names}", work, self._finished)
        # a fully cached run can finish (and call _finished) before start_job returns
        self.job = None if self._last_finished is job else job
        self.update_actions()
        return job

    @Slot()
    def cancel(self) -> None:
        if self.job is not None:
            self.job.state.cancel()
            self.status.setText("Cancelling after the current batch…")

    @Slot(int, int, str)
    def _show_progress(self, done: int, total: int, status: str) -> None:
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(min(done, max(total, 1)))
        if status:
            self.status.setText(status)

    def _finished(self, job: Job) -> None:
        self._last_finished = job
        self.job = None
        self.update_actions()
        if job.outcome == "done":
            s = job.future.result()
            text = (f"Done on {s.device}: {s.computed} computed, {s.cached} cached, "
                    f"{s.not_applicable} not applicable, {s.errors} errors "
                    f"({s.seconds:.1f} s).")
            if job.state.verdict == "failed":
                text = "Failed: nothing could be computed. " + text
            if s.failed_metrics:
                failed = "\n".join(f"{self.titles.get(k, k)}: {v}"
                                   for k, v in s.failed_metrics.items())
                self.context.message("Some metrics could not run", failed)
                text += " Failed: " + ", ".join(s.failed_metrics)
            self.status.setText(text)
        elif job.outcome == "cancelled":
            self.status.setText("Cancelled; the results computed so far are kept.")
        else:
            self.status.setText(f"Failed: {job.error}")
            self.context.message("Metrics run failed", job.error)
        self.refresh_results()

    # -- other actions ------------------------------------------------------------------------
    @Slot()
    def open_settings(self) -> None:
        dialog = MetricsSettingsDialog(self)
        dialog.accepted.connect(self.refresh_results)
        self.settings_dialog = dialog
        dialog.open()

    @Slot()
    def export(self) -> None:
        if self.project is None or self._nothing_to_export():
            return
        path, chosen = QFileDialog.getSaveFileName(self, "Export all stored metric results",
                                                   "metric-results.csv",
                                                   "CSV files (*.csv);;Parquet (*.parquet)")
        if path:
            if chosen.startswith("Parquet") and not path.lower().endswith(".parquet"):
                path += ".parquet"
            self.export_to(path)

    def export_to(self, path: str) -> int | None:
        """Write every stored result to ``path`` (parquet for a ``.parquet`` name, ADR 103);
        a file-system error or a missing optional package becomes a message."""
        from core.interop.parquet import export_metrics_parquet, format_for

        if self._nothing_to_export():
            return 0
        try:
            if format_for(path) == "parquet":  # the save dialog asked before replacing
                n = export_metrics_parquet(self.project, path, replace=True)
            else:
                n = export_csv(self.project, path)
        except ValueError as exc:
            self.context.message("Export failed", str(exc))
            return None
        except FileExistsError as exc:  # Winnow's own sentence: the path, left as it is
            self.context.message("Export failed", str(exc))
            return None
        except OSError as exc:
            self.context.message("Export failed", f"Could not write {path}: "
                                 f"{exc.strerror or exc}")
            return None
        self.context.status(f"Wrote {n:,} rows to {path}")
        return n

    def _nothing_to_export(self) -> bool:
        """Say so when no result is stored, rather than write a header-only file."""
        if has_results(self.project):
            return False
        self.context.refuse("Nothing to export", "No metric results are stored in this "
                            "project yet: choose metrics and press Run, then export.")
        return True

    def _row_changed(self, current: Any, _previous: Any) -> None:
        if not current.isValid():
            self.update_actions()
            return
        row = self.model.rows[current.row()]
        rows = [r for r in self.all_rows if (r.sample_id, r.model) == (row.sample_id, row.model)]
        self.drill.show_pair(self.project, row.sample_id, row.model, rows, self.titles,
                             self.higher)
        self.drill.set_position(current.row(), self.model.rowCount())
        self.update_actions()

    @Slot(int)
    def step(self, delta: int) -> None:
        """Show the next (+1) or previous (-1) result of the table in the drill-down."""
        count = self.model.rowCount()
        if count == 0:
            return
        row = self.table.currentIndex().row()
        target = 0 if row < 0 else max(0, min(count - 1, row + delta))
        index = self.model.index(target, 0)
        self.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows)
        self.table.scrollTo(index)

    @Slot()
    def reveal_current(self) -> None:
        """Show the drill-down's sample in Curate."""
        if self.drill.current is not None:
            self.context.reveal("curate", self.drill.current[0])
