"""The session design dialog: protocol, samples (the Curate filter, all Benchmark
samples, a tag, or ids typed in), models, raters, overlap, gold, minimum time, ties,
seed, output folder.  It only collects choices; the workspace resolves the samples and
hands the resulting :class:`SessionDesign` to ``core``."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.rating.design import SessionDesign
from core.rating.protocols import CRITERIA, PROTOCOL_TITLES, PROTOCOLS
from core.rating.sessions import check_out_dir, in_the_way, session_files_in_the_way
from ui.widgets.dialog_buttons import confirm_cancel
from ui.widgets.theme import set_tone


class DesignDialog(QDialog):
    """Collects a :class:`SessionDesign` and the folder for the rater files."""

    def __init__(self, sample_ids: list[str], models: list[str], selection_text: str,
                 default_dir: Path, parent: QWidget | None = None,
                 taken: Collection[str] = (),
                 choose: Callable[[str, Any], Any] | None = None,
                 tags: Collection[str] = (), source: str = "filter") -> None:
        """``sample_ids`` are the Curate filter's; ``choose(source, value)`` (a
        :class:`core.rating.session_admin.SampleChoice` maker) offers the other sources."""
        super().__init__(parent)
        self.setWindowTitle("New rating session")
        self.filter_ids = list(sample_ids)
        self.sample_ids = list(sample_ids)
        self.problems: tuple[str, ...] = ()
        self.selection_text = selection_text
        self.choose = choose
        self.taken = set(taken)  # names of the project's sessions
        form = QFormLayout()
        self.name = QLineEdit(next(f"session-{k}" for k in itertools.count(1)
                                   if f"session-{k}" not in self.taken))
        self.protocol = QComboBox()
        for key in PROTOCOLS:
            self.protocol.addItem(PROTOCOL_TITLES[key], key)
        self.source = QComboBox()
        self.source.addItem("Current Curate filter", "filter")
        if choose is not None:
            self.source.addItem("All Benchmark samples", "benchmark")
            self.source.addItem("Samples with a tag", "tag")
            self.source.addItem("Samples picked by id", "ids")
        self.source.setToolTip("Which samples the session rates")
        self.tag = QComboBox()
        self.tag.addItems(sorted(tags, key=str.casefold))
        self.tag.setToolTip("A tag works as a saved list: tag samples in Curate (Ctrl+T)")
        self.ids = QPlainTextEdit()
        self.ids.setPlaceholderText("sample ids, separated by spaces, commas or new lines")
        self.ids.setMaximumHeight(64)
        self.ids.setTabChangesFocus(True)
        self.samples = QLabel()
        self.samples.setTextFormat(Qt.TextFormat.PlainText)
        self.samples.setWordWrap(True)
        source_box = QWidget()
        sl = QVBoxLayout(source_box)
        sl.setContentsMargins(0, 0, 0, 0)
        for widget in (self.source, self.tag, self.ids, self.samples):
            sl.addWidget(widget)
        self.models = QListWidget()
        self.models.setMaximumHeight(110)
        for m in models:
            item = QListWidgetItem(m)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.models.addItem(item)
        self.criteria: dict[str, QCheckBox] = {}
        crit_row = QHBoxLayout()
        for key in CRITERIA:
            box = QCheckBox(key)
            box.setToolTip(CRITERIA[key])
            box.setChecked(key == "preference")
            self.criteria[key] = box
            crit_row.addWidget(box)
        self.raters = _spin(1, 100, 3)
        self.overlap = _spin(1, 100, 1)
        self.tasks_per_rater = _spin(0, 100_000, 0)
        self.tasks_per_rater.setSpecialValueText("all (shared out)")
        self.gold_rate = QDoubleSpinBox()
        self.gold_rate.setRange(0, 50)
        self.gold_rate.setSuffix(" %")
        self.gold_rate.setValue(10)
        self.min_time = QDoubleSpinBox()
        self.min_time.setRange(0, 600)
        self.min_time.setSuffix(" s")
        self.min_time.setValue(3)
        self.penalty = QDoubleSpinBox()
        self.penalty.setRange(0, 120)
        self.penalty.setSuffix(" s")
        self.penalty.setValue(5)
        self.ties = QCheckBox("rankings may contain ties")
        self.tie = QCheckBox("side-by-side offers a tie")
        self.tie.setChecked(True)
        self.seed = _spin(0, 2_000_000_000, 0)
        self.instructions = QLineEdit()
        self.instructions.setPlaceholderText("shown to raters before they start (optional)")
        self.out_dir = QLineEdit(str(default_dir))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        out_row = QHBoxLayout()
        out_row.addWidget(self.out_dir, 1)
        out_row.addWidget(browse)
        form.addRow("Name:", self.name)
        form.addRow("Protocol:", self.protocol)
        form.addRow("Samples:", source_box)
        form.addRow("Models:", self.models)
        form.addRow("Side-by-side questions:", _wrap(crit_row))
        form.addRow("Raters:", self.raters)
        form.addRow("Raters per task:", self.overlap)
        form.addRow("Tasks per rater:", self.tasks_per_rater)
        form.addRow("Gold tasks (degraded copies):", self.gold_rate)
        form.addRow("Minimum time per task:", self.min_time)
        form.addRow("Penalty delay:", self.penalty)
        form.addRow("", self.ties)
        form.addRow("", self.tie)
        form.addRow("Seed:", self.seed)
        form.addRow("Instructions:", self.instructions)
        form.addRow("Write rater files to:", _wrap(out_row))
        self.error = QLabel()
        set_tone(self.error, "danger", text_only=True)
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setWordWrap(True)
        buttons = confirm_cancel(self, "Create session", self._accept)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.protocol.currentIndexChanged.connect(self._protocol_changed)
        self._protocol_changed()
        self.result_design: SessionDesign | None = None
        self.source.setCurrentIndex(max(0, self.source.findData(source)))
        self.source.currentIndexChanged.connect(lambda _i: self.resolve_samples())
        self.tag.currentIndexChanged.connect(lambda _i: self.resolve_samples())
        self.ids.textChanged.connect(self.resolve_samples)
        self.resolve_samples()

    def resolve_samples(self) -> None:
        """Take the samples the chosen source gives (and say how many, and what is wrong)."""
        source = self.source.currentData()
        self.tag.setVisible(source == "tag")
        self.ids.setVisible(source == "ids")
        described = {"filter": self.selection_text, "benchmark": "every Benchmark sample",
                     "tag": f"tagged {self.tag.currentText()!r}", "ids": "picked by id"}
        if source == "filter" or self.choose is None:
            self.sample_ids, self.problems = list(self.filter_ids), ()
        else:
            value = {"tag": self.tag.currentText(), "ids": self.ids.toPlainText()}.get(source)
            choice = self.choose(source, value)
            self.sample_ids, self.problems = list(choice.ids), tuple(choice.problems)
        text = f"{len(self.sample_ids):,} samples — {described[source]}"
        self.samples.setText(text + "".join(f"\n{p}" for p in self.problems))

    def _protocol_changed(self) -> None:
        proto = self.protocol.currentData()
        for box in self.criteria.values():
            box.setEnabled(proto == "side_by_side")
        self.ties.setEnabled(proto == "ranking")
        self.tie.setEnabled(proto == "side_by_side")

    def _browse(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Folder for the rater files",
                                                self.out_dir.text())
        if path:
            self.out_dir.setText(path)

    def design(self) -> SessionDesign:
        """The design as currently filled in (may fail validation)."""
        models = tuple(self.models.item(i).text() for i in range(self.models.count())
                       if self.models.item(i).checkState() == Qt.CheckState.Checked)
        return SessionDesign(
            name=self.name.text().strip(), protocol=self.protocol.currentData(),
            sample_ids=tuple(self.sample_ids), models=models, raters=self.raters.value(),
            overlap=self.overlap.value(),
            tasks_per_rater=self.tasks_per_rater.value() or None,
            gold_rate=self.gold_rate.value() / 100,
            gold_mode="auto" if self.gold_rate.value() > 0 else "none",
            min_time_s=self.min_time.value(), penalty_s=self.penalty.value(),
            allow_ties=self.ties.isChecked(), allow_tie=self.tie.isChecked(),
            criteria=tuple(k for k, b in self.criteria.items() if b.isChecked()),
            instructions=self.instructions.text().strip(), seed=self.seed.value())

    def _accept(self) -> None:
        if self.problems:
            self.error.setText("; ".join(self.problems))
            return
        try:
            design = self.design()
            design.validate()
        except ValueError as exc:
            self.error.setText(str(exc))
            return
        if not self.out_dir.text().strip():
            self.error.setText("choose a folder for the rater files")
            return
        if design.name in self.taken:
            self.error.setText(f"a session named {design.name!r} already exists; "
                               "choose another name")
            self.name.setFocus()
            return
        try:
            check_out_dir(Path(self.out_dir.text().strip()))
        except FileExistsError as exc:
            self.error.setText(str(exc))
            return
        clash = session_files_in_the_way(design.name, design.raters, self.out_dir.text())
        if clash:
            self.error.setText(str(in_the_way(clash)))
            return
        self.result_design = design
        self.accept()


def _spin(lo: int, hi: int, value: int) -> QSpinBox:
    box = QSpinBox()
    box.setRange(lo, hi)
    box.setValue(value)
    return box


def _wrap(layout: QHBoxLayout) -> QWidget:
    widget = QWidget()
    layout.setContentsMargins(0, 0, 0, 0)
    widget.setLayout(layout)
    return widget
