"""The Analyze workspace: pick a data set, read the leaderboard, tests, agreement and plots.

Data sets come from the project's providers (rating sessions, metric and judge
results; see :mod:`core.analysis.sources`) or from files opened here: statistics CSVs,
arena battle JSON and pairwise vote tables (:mod:`core.analysis.datafiles`).  Every
computation runs through ``context.start_job``; results from an outdated request
are dropped.  "Export HTML report…" writes the current analysis, and the project's
failure keywords, with :func:`core.analysis.report.export_html`.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.analysis.datafiles import arena_format, open_data_file
from core.analysis.report import AnalysisOptions, analyze, export_html
from core.analysis.results import SECTIONS, Analysis
from core.analysis.sources import DataSet, project_datasets
from core.jobs import Job, JobState
from core.stats.battles import BattleOptions
from ui.analyze.arena_options import ArenaOptionsDialog
from ui.analyze.controls import Controls
from ui.analyze.keywords import KeywordPanel
from ui.analyze.views import SectionView, plain_label
from ui.empty_state import EmptyState
from ui.widgets.actions import make_action
from ui.widgets.theme import set_tone

PURPOSE = "Turn ratings and metric results into a leaderboard you can defend."
HOW_TO = [
    "Rating sessions: merge the raters' returned files in Rate — every session with "
    "judgments is listed here",
    "Metrics: run metrics or VLM judges in Metrics — every stored metric is listed here",
    "Or open a CSV in a `winnow stats` format: votes (a,b,winner), rankings "
    "(rater,item,model,rank), Likert (rater,unit,model,criterion,value), checklist "
    "(model,category,subtask,case,q1…q6) or scores (sample,model,score[,judge]); or "
    "arena votes: FastChat / GenAI-Arena battle JSON, or a CSV / parquet table with "
    "model_a, model_b and a winner or vote counts",
    "Then read win rates, Bradley-Terry and Elo with intervals, Friedman tests, "
    "Krippendorff's α, success rates and breakdowns, and export an HTML report",
]


class AnalyzeWorkspace(QWidget):
    """Workspace page, built as ``AnalyzeWorkspace(context)`` by the main window."""

    def __init__(self, context: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.datasets: list[DataSet] = []
        self.csv_sets: list[DataSet] = []
        self.analysis: Analysis | None = None
        self.last_job: Job | None = None
        self.compute_job: Job | None = None  # the latest analysis, cancelled when replaced
        self.last_export: Path | None = None
        self._rows: dict[str, list[dict[str, Any]]] = {}
        self._generation = 0
        self._build_actions()
        self.empty = EmptyState("Analyze", PURPOSE, HOW_TO, [self.act_open])
        self.empty_note = plain_label()
        self.empty.extra.addWidget(self.empty_note)
        self.main = QWidget()
        self._build_main()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.main)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(200)
        self._timer.timeout.connect(self.recompute)
        context.project_changed.connect(self._project_changed)
        context.data_changed.connect(self._project_changed)
        self.keywords.refresh(context.project)
        self.refresh_datasets()

    # -- construction ------------------------------------------------------------------
    def _action(self, text: str, slot: Any, shortcut: str | None = None) -> QAction:
        return make_action(self, text, slot, shortcut, local=True)

    def _build_actions(self) -> None:
        self.act_open = self._action("&Open Data File…", self.choose_csv, "Ctrl+Shift+O")
        self.act_open.setToolTip(
            "Open a statistics CSV (votes, rankings, Likert, checklist "
            "or scores), arena battle JSON / JSON Lines, or a pairwise "
            "CSV / parquet vote table"
        )
        self.act_export = self._action("&Export HTML Report…", self.choose_export, "Ctrl+E")
        self.act_recompute = self._action("&Recompute", self.recompute, "F5")

    def focus_target(self) -> QWidget | None:
        """The tabs take the keyboard when the page is shown (not the data set box, whose
        arrow and letter keys would switch the data set)."""
        return self.tabs.tabBar() if self.stack.currentWidget() is self.main else None

    def workspace_menu(self) -> QMenu:
        """The Analyze menu of the menu bar."""
        menu = QMenu("A&nalyze", self)
        for action in (self.act_open, self.act_recompute, self.act_export):
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self._action("Curator &Agreement…", self.show_agreement))
        return menu

    def _build_main(self) -> None:
        self.controls = Controls()
        self.controls.changed.connect(self.schedule)
        self.controls.dataset_changed.connect(self._dataset_changed)
        top = QHBoxLayout()
        top.addLayout(self.controls.top, 1)
        for action in (self.act_open, self.act_export):
            button = QPushButton(action.text().replace("&", ""))
            button.setToolTip(action.toolTip() or action.text().replace("&", ""))
            button.clicked.connect(action.trigger)
            top.addWidget(button)
        self.export_button = button  # the last one: Export
        self.facts = plain_label()
        set_tone(self.facts, "muted", text_only=True)
        self.busy = QLabel()
        self.busy.setTextFormat(Qt.TextFormat.PlainText)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop this computation (a big bootstrap or online Elo "
                                    "can take minutes); F5 computes again")
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.hide()
        info = QHBoxLayout()
        info.addWidget(self.facts, 1)
        info.addWidget(self.busy)
        info.addWidget(self.stop_button)
        self.tabs = QTabWidget()
        self.views: dict[str, SectionView] = {}
        for key, title in SECTIONS:
            view = SectionView(key, stacked=key in ("success", "breakdown"))
            self.views[key] = view
            self.tabs.addTab(view, title)
        for key, layout in self.controls.tab_rows.items():
            self.views[key].controls.addLayout(layout)
        self.keywords = KeywordPanel()  # community feedback's failure keywords (issue 19)
        self.tabs.addTab(self.keywords, "Failure keywords")
        main_layout = QVBoxLayout(self.main)
        main_layout.setContentsMargins(12, 10, 12, 6)
        main_layout.addLayout(top)
        main_layout.addLayout(self.controls.second)
        main_layout.addLayout(info)
        main_layout.addWidget(self.tabs, 1)

    def show_agreement(self) -> Any:
        """Open the curator agreement window (Curate → Team splits, ADR 134)."""
        from ui.analyze.agreement_view import AgreementWindow

        window = AgreementWindow(self.context, self)
        window.show()
        self.agreement_window = window
        return window

    # -- data sets -----------------------------------------------------------------------
    def _project_changed(self) -> None:
        self._rows = {k: v for k, v in self._rows.items() if k.startswith("csv:")}
        self.keywords.refresh(self.context.project)
        self.refresh_datasets(recompute=True)

    def refresh_datasets(self, recompute: bool = False) -> None:
        """Re-list the data sets (project providers, then opened CSV files)."""
        found, errors = project_datasets(self.context.project)
        self.datasets = found + self.csv_sets
        current = self.current_dataset()
        self.controls.set_datasets(self.datasets, current.key if current else None)
        if errors:
            self.context.status("Some data sets could not be listed: " + "; ".join(errors))
        if not self.datasets and self.keywords.has_data:
            self.stack.setCurrentWidget(self.main)
            self.tabs.setCurrentWidget(self.keywords)
            self.analysis = None
            self.act_export.setEnabled(True)  # a report of the keywords alone
            return
        if not self.datasets:
            note = ("This project has no merged rating sessions or metric results yet."
                    if self.context.project is not None else "No project is open.")
            self.empty_note.setText(note)
            self.stack.setCurrentWidget(self.empty)
            self.analysis = None
            self.act_export.setEnabled(False)
            return
        self.stack.setCurrentWidget(self.main)
        new = self.current_dataset()
        if recompute or self.analysis is None or new is None or current is None \
                or new.key != current.key:
            self.schedule()

    def current_dataset(self) -> DataSet | None:
        key = self.controls.dataset_key()
        return next((d for d in self.datasets if d.key == key), None)

    def _dataset_changed(self) -> None:
        self.analysis = None
        self.controls.reset_for_dataset()
        self.schedule()

    def choose_csv(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open a statistics file",
            str(Path.home()),
            "Statistics files (*.csv *.json *.jsonl *.ndjson *.parquet);;CSV files (*.csv);;"
            "Arena battles (*.json *.jsonl *.ndjson);;Parquet tables (*.parquet);;"
            "All files (*)",
        )
        if path and self.ask_arena_options(path) is None:
            self.open_csv_file(path)

    def ask_arena_options(self, path: str | Path) -> ArenaOptionsDialog | None:
        """For arena votes, ask how to count them (Open reads the file with the choices);
        None for Winnow's own CSVs."""
        path = Path(path)
        fmt = arena_format(path)
        if fmt is None:
            return None
        dialog = self.arena_dialog = ArenaOptionsDialog(path, fmt, self)
        dialog.accepted.connect(lambda: self.open_csv_file(path, dialog.options()))
        dialog.open()
        return dialog

    def open_csv_file(self, path: str | Path, options: BattleOptions | None = None) -> Any:
        """Validate and load a statistics file (CSV, battles, vote table) in the background,
        then select it; ``options`` count arena votes (FastChat's defaults when None)."""
        path = Path(path)

        def work(state: JobState) -> DataSet:
            state.set_status(f"Reading {path.name}")

            def progress(done: int) -> None:  # bytes of a battle file read so far
                if state.total is None:
                    state.set_total(max(1, path.stat().st_size))
                state.set_progress(done)
                state.check()

            def phase(done: int, total: int, what: str) -> None:  # passes over a CSV
                state.check()
                state.set_status(f"Reading {path.name}: {what}")
                state.set_total(total)
                state.set_progress(done)

            return open_data_file(path, progress, options, phase)

        def done(job: Job) -> None:
            if job.outcome != "done":
                if job.outcome == "failed":
                    self.context.message(f"Cannot open {path.name}", _error(job))
                return
            ds: DataSet = job.future.result()
            self.csv_sets = [d for d in self.csv_sets if d.key != ds.key] + [ds]
            self._rows.pop(ds.key, None)
            self.refresh_datasets()
            self.controls.select_dataset(ds.key)
            self.context.status(f"Opened {ds.name}: {ds.description}")

        self.last_job = self.context.start_job(f"Open {path.name}", work, done)
        return self.last_job

    # -- computing -------------------------------------------------------------------------
    def options(self) -> AnalysisOptions:
        ds = self.current_dataset()
        opt = self.controls.options()
        return replace(opt, higher_is_better=ds.higher_is_better) if ds else opt

    def schedule(self) -> None:
        """Recompute shortly (controls changing quickly make one job).

        While the page is hidden nothing runs: the analysis waits until it is shown, so
        opening a project does not bootstrap statistics nobody is looking at.
        """
        if not self.isVisible():
            self._pending = True
            return
        self._show_waiting()
        self._timer.start()

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if getattr(self, "_pending", False):
            self._pending = False
            self._show_waiting()
            self._timer.start()

    def _show_waiting(self) -> None:
        """Say at once that statistics are coming: the first paint after the page is shown
        (before the debounce starts the job) was a blank pane."""
        if self.current_dataset() is None:
            return
        self.busy.setText("Computing…")
        if self.analysis is None:
            for view in self.views.values():
                view.show_section(None, "Computing…")

    def recompute(self) -> Any:
        """Analyse the current data set with the current options in the background."""
        self._timer.stop()
        ds = self.current_dataset()
        if ds is None:
            return None
        self._generation += 1
        generation = self._generation
        opt = self.options()
        cached = self._rows.get(ds.key)
        project = self.context.project

        def work(state: JobState) -> tuple[list[dict[str, Any]], Analysis]:
            rows = cached
            if rows is None:
                state.set_status(f"Loading {ds.name}")
                view = project.worker_view() if project is not None else None
                try:
                    rows = ds.load(view)
                finally:
                    if view is not None:
                        view.close()
            return rows, analyze(rows, ds.kind, opt, name=ds.name, state=state,
                                 order=ds.meta.get("order"),
                                 ordered_by=ds.meta.get("ordered_by", "row"))

        def done(job: Job) -> None:
            if job.outcome == "done":
                rows, analysis = job.future.result()
                self._rows[ds.key] = rows
            if generation != self._generation:
                return  # a newer request is on its way
            self.busy.setText("")
            self.stop_button.hide()
            if job.outcome == "done":
                self.show_analysis(analysis)
            elif job.outcome == "failed":
                self.show_failure(ds, _error(job))
            elif job.outcome == "cancelled":
                self.busy.setText("Stopped — F5 computes again")
                for view in self.views.values():
                    if self.analysis is None:
                        view.show_section(None, "Stopped. Recompute (F5) to try again.")

        self.busy.setText("Computing…")
        self.stop_button.show()
        for view in self.views.values():
            if self.analysis is None:
                view.show_section(None, "Computing…")
        earlier = self.compute_job
        if earlier is not None and earlier.outcome == "running":
            earlier.state.cancel()  # its result would be dropped: stop its bootstrap too
        self.last_job = self.compute_job = self.context.start_job(
            f"Analyze {ds.name}", work, done, quiet=True)
        return self.last_job

    def stop(self) -> None:
        """Stop the running computation (between its steps and bootstrap chunks)."""
        job = self.compute_job
        if job is not None and job.outcome == "running":
            job.state.cancel()
            self.busy.setText("Stopping…")

    def show_analysis(self, analysis: Analysis) -> None:
        self.analysis = analysis
        facts = "   ·   ".join(f"{k}: {v}" for k, v in analysis.facts)
        self.facts.setText(facts)
        for key, view in self.views.items():
            view.show_section(analysis.sections[key])
            index = self.tabs.indexOf(view)
            section = analysis.sections[key]
            self.tabs.setTabToolTip(index, section.message or section.title)
        self.controls.update_from(analysis)
        self.act_export.setEnabled(True)

    def show_failure(self, ds: DataSet, error: str) -> None:
        self.analysis = None
        self.act_export.setEnabled(False)
        self.facts.setText(f"{ds.name}: could not be analysed")
        for view in self.views.values():
            view.show_section(None, f"Could not analyse {ds.name}:\n{error}")

    # -- export ----------------------------------------------------------------------------------
    def _report_name(self) -> str:
        """The report's title: the data set, or (keywords alone) the project's name."""
        if self.analysis is not None:
            return self.analysis.dataset
        project = self.context.project
        return f"{Path(project.path).stem} failure keywords" if project else "failure keywords"

    def choose_export(self) -> None:
        if self.analysis is None and not self.keywords.has_data:
            self.context.refuse("Nothing to export", "Choose a data set and wait for the "
                                "analysis to finish first.")
            return
        base = Path(self.context.project.path).parent if self.context.project else Path.home()
        stem = re.sub(r"[^A-Za-z0-9._-]+", "-", self._report_name()).strip("-") or "analysis"
        path, _ = QFileDialog.getSaveFileName(
            self, "Export HTML report (a folder with report.html and the tables as CSV)",
            str(base / f"{stem}-report"), "Report folder (*)")
        if path:
            self.export_report(path)

    def export_report(self, out_dir: str | Path) -> Any:
        """Write the current analysis (and the failure keywords; or the keywords alone when
        there is nothing to rank) as an HTML report folder in the background."""
        analysis = self.analysis
        keywords = list(self.keywords.counts)  # the "Failure keywords" tab's chart
        if analysis is None and not keywords:
            return None
        out_dir = Path(out_dir)
        title = self._report_name()

        def work(state: JobState) -> Path:
            state.set_status("Drawing the charts")
            return export_html(analysis, out_dir, state, keywords, title)

        def done(job: Job) -> None:
            if job.outcome == "done":
                self.last_export = job.future.result()
                self.context.status(f"Report written to {self.last_export}")
            elif job.outcome == "failed":
                self.context.message("Export failed", _error(job))

        self.last_job = self.context.start_job(f"Export report {out_dir.name}", work, done)
        return self.last_job


def _error(job: Job) -> str:
    exc = job.future.exception()
    return str(exc) if exc is not None else (getattr(job, "error", "") or "unknown error")
