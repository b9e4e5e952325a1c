"""Analyze's "Failure keywords" tab: what users said went wrong (ECHO Figure 4), as a bar
chart of the most frequent keywords of community feedback labelled failure."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from core.propose.plots import keyword_figure
from core.propose.report import keyword_counts


class KeywordPanel(QWidget):
    """The chart, and a line saying where the keywords come from."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.counts: list[tuple[str, int]] = []
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.area = QScrollArea()
        self.area.setWidgetResizable(True)
        self.canvas: Any = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.note)
        layout.addWidget(self.area, 1)
        layout.addStretch(0)  # takes the room while there is no chart
        self.area.hide()

    @property
    def has_data(self) -> bool:
        return bool(self.counts)

    def refresh(self, project: Any) -> None:
        """Re-count the keywords of ``project`` (None: nothing)."""
        try:
            self.counts = keyword_counts(project) if project is not None else []
        except Exception:  # noqa: BLE001 - a read-only project from before proposals
            self.counts = []
        total = sum(n for _k, n in self.counts)
        self.note.setText(
            f"{total:,} pieces of community feedback labelled failure, {len(self.counts):,} "
            "distinct keywords (as curators left them: a corrected label counts, the "
            "model's replaced one does not). Label feedback with Curate → Propose… "
            "(feedback kind)." if self.counts else
            "No failure keywords yet: let a model label community feedback (Curate → "
            "Propose…, kind “Feedback success/failure + keyword”).")
        self.area.setVisible(bool(self.counts))  # no empty frame under "no keywords yet"
        if not self.counts:
            self.area.takeWidget()
            self.canvas = None
            return
        from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg

        fig = keyword_figure(self.counts)
        self.canvas = FigureCanvasQTAgg(fig)
        width, height = fig.get_size_inches() * fig.dpi
        self.canvas.setMinimumSize(int(min(width, 320)), int(height))
        self.area.setWidget(self.canvas)
