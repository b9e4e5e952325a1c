"""The Analyze workspace's controls: data set, bootstrap / interval / seed, per-tab options."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QSignalBlocker, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSpinBox,
)

from core.analysis.report import AnalysisOptions
from core.analysis.results import Analysis
from core.analysis.sources import KIND_TITLES, DataSet
from core.stats import LEVELS, POSTHOC_METHODS
from core.stats.online_elo import DEFAULT_K

POSTHOC_TITLES = {"dunn": "Dunn (as ECHO)", "siegel": "Friedman z (Siegel)",
                  "conover": "Conover", "nemenyi": "Nemenyi"}
CI_LEVELS = (0.8, 0.9, 0.95, 0.99)
#: what the online Elo check box does, for a vote data set
ONLINE_TIP = ("Votes: also replay the votes one by one in battle order (time order for "
              "arena battle files), as FastChat and `winnow stats elo --online` do")


def _label(text: str, buddy: Any) -> QLabel:
    label = QLabel(text)
    label.setBuddy(buddy)
    return label


class Controls(QObject):
    """Owns the option widgets and turns them into :class:`AnalysisOptions`."""

    changed = Signal()
    dataset_changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.dataset = QComboBox()
        self.dataset.setMinimumContentsLength(28)
        self.dataset.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.dataset.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.dataset.currentIndexChanged.connect(lambda _i: self.dataset_changed.emit())
        self.top = QHBoxLayout()
        self.top.addWidget(_label("&Data set:", self.dataset))
        self.top.addWidget(self.dataset, 1)

        self.n_boot = QSpinBox()
        self.n_boot.setRange(0, 100_000)
        self.n_boot.setSingleStep(500)
        self.n_boot.setValue(1000)
        self.n_boot.setGroupSeparatorShown(True)
        self.n_boot.setToolTip("Bootstrap resamples of the votes for the Elo intervals "
                               "(0 = no interval)")
        self.ci = QComboBox()
        for level in CI_LEVELS:
            self.ci.addItem(f"{level:.0%}", level)
        self.ci.setCurrentIndex(CI_LEVELS.index(0.95))
        self.ci.setToolTip("Confidence level of the Elo intervals (TECCI reports 99%)")
        self.seed = QSpinBox()
        self.seed.setRange(0, 2_000_000_000)
        self.seed.setToolTip("Random seed of the bootstrap (same seed, same intervals)")
        self.second = QHBoxLayout()
        for text, widget in (("&Bootstrap:", self.n_boot), ("&Interval:", self.ci),
                             ("S&eed:", self.seed)):
            self.second.addWidget(_label(text, widget))
            self.second.addWidget(widget)
            self.second.addSpacing(12)
        self.second.addStretch(1)

        self.posthoc = QComboBox()
        for method in POSTHOC_METHODS:
            self.posthoc.addItem(POSTHOC_TITLES.get(method, method), method)
        self.level = QComboBox()
        self.level.addItem("Default for the data", None)
        for name in LEVELS:
            self.level.addItem(name, name)
        self.filter = QCheckBox("&Filter raters by correlation")
        self.filter.setToolTip("TECCI: drop raters whose Pearson correlation with the mean of "
                               "the other raters is below the threshold; every tab then uses "
                               "the remaining raters")
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(-1.0, 1.0)
        self.threshold.setSingleStep(0.05)
        self.threshold.setDecimals(2)
        self.threshold.setValue(AnalysisOptions().threshold)
        self.tau = QDoubleSpinBox()
        self.tau.setRange(0.0, 100.0)
        self.tau.setSingleStep(0.25)
        self.tau.setDecimals(2)
        self.tau.setValue(4.0)
        self.tau.setToolTip("A unit succeeds when its mean rating is at least τ")
        self.group = QComboBox()
        self.group.setMinimumContentsLength(10)
        self.online = QCheckBox("&Online Elo (FastChat), K =")
        self.online.setToolTip(ONLINE_TIP)
        self.online_k = QDoubleSpinBox()
        self.online_k.setRange(0.5, 100.0)
        self.online_k.setSingleStep(1.0)
        self.online_k.setDecimals(1)
        self.online_k.setValue(DEFAULT_K)
        self.online_k.setToolTip("How far one vote moves the two ratings (FastChat: 4)")
        self.online_k.setEnabled(False)

        def row(*items: Any) -> QHBoxLayout:
            lay = QHBoxLayout()
            for item in items:
                lay.addWidget(item)
            lay.addStretch(1)
            return lay

        self.tab_rows = {
            "leaderboard": row(self.online, self.online_k),
            "significance": row(_label("&Post-hoc test:", self.posthoc), self.posthoc),
            "agreement": row(_label("α &level:", self.level), self.level, self.filter,
                             _label("&Threshold r ≥", self.threshold), self.threshold),
            "success": row(_label("Threshold &τ:", self.tau), self.tau),
            "breakdown": row(_label("&Group by:", self.group), self.group),
        }
        for signal in (self.n_boot.valueChanged, self.seed.valueChanged,
                       self.ci.currentIndexChanged, self.posthoc.currentIndexChanged,
                       self.level.currentIndexChanged, self.filter.toggled,
                       self.threshold.valueChanged, self.tau.valueChanged,
                       self.group.currentIndexChanged, self.online.toggled,
                       self.online_k.valueChanged):
            signal.connect(lambda *_: self.changed.emit())
        self.filter.toggled.connect(self.threshold.setEnabled)
        self.threshold.setEnabled(False)
        self.online.toggled.connect(self.online_k.setEnabled)

    # -- data sets -------------------------------------------------------------------------
    def set_datasets(self, datasets: list[DataSet], current: str | None) -> None:
        with QSignalBlocker(self.dataset):
            self.dataset.clear()
            for ds in datasets:
                self.dataset.addItem(f"{ds.name}  —  {KIND_TITLES[ds.kind]}", ds.key)
                tip = f"{ds.source}: {ds.description}" if ds.source else ds.description
                self.dataset.setItemData(self.dataset.count() - 1, tip, 3)  # ToolTipRole
            index = self.dataset.findData(current) if current else -1
            self.dataset.setCurrentIndex(index if index >= 0 else (0 if datasets else -1))

    def select_dataset(self, key: str) -> None:
        index = self.dataset.findData(key)
        if index >= 0 and index != self.dataset.currentIndex():
            self.dataset.setCurrentIndex(index)  # emits dataset_changed

    def dataset_key(self) -> str | None:
        return self.dataset.currentData()

    def reset_for_dataset(self) -> None:
        """A new data set: its own grouping columns, default α level."""
        with QSignalBlocker(self.group), QSignalBlocker(self.level):
            self.group.clear()
            self.level.setCurrentIndex(0)

    # -- options ---------------------------------------------------------------------------------
    def options(self) -> AnalysisOptions:
        return AnalysisOptions(
            n_boot=self.n_boot.value(), ci=float(self.ci.currentData()),
            seed=self.seed.value(), tau=self.tau.value(),
            posthoc=self.posthoc.currentData(), alpha_level=self.level.currentData(),
            rater_filter=self.filter.isChecked(), threshold=self.threshold.value(),
            group_by=self.group.currentData(), online_elo=self.online.isChecked(),
            online_k=self.online_k.value())

    def update_from(self, analysis: Analysis) -> None:
        """Offer what this analysis can do: its grouping columns, a rater filter or not."""
        with QSignalBlocker(self.group):
            self.group.clear()
            for column in analysis.groups:
                self.group.addItem(column.replace("_", " "), column)
            index = self.group.findData(analysis.options.group_by)
            self.group.setCurrentIndex(max(index, 0) if analysis.groups else -1)
        self.group.setEnabled(bool(analysis.groups))
        has_raters = bool(analysis.raters)
        self.filter.setEnabled(has_raters)
        self.threshold.setEnabled(has_raters and self.filter.isChecked())
        self.level.setEnabled(has_raters)
        self.tau.setEnabled(analysis.kind == "likert")
        self.posthoc.setEnabled(analysis.kind in ("rankings", "scores", "likert"))
        votes = analysis.kind == "votes"
        self.online.setEnabled(votes)
        self.online.setToolTip(ONLINE_TIP if votes else
                               "Only for pairwise votes (side-by-side sessions, arena "
                               "battle files): this data set has no battle order to replay")
        self.online_k.setEnabled(votes and self.online.isChecked())
