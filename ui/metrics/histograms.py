"""Histograms of metric values: one panel per metric, one coloured series per model."""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QEvent
from PySide6.QtGui import QPalette, QShowEvent
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

from core.analysis.plots import plain
from core.metrics.store import ResultRow
from ui.widgets.figure_theme import style_figure

#: the most characters of a model name a panel's title shows (start…end)
TITLE_MAX = 22


class HistogramCanvas(QWidget):
    """A matplotlib canvas that redraws from result rows.

    matplotlib is imported, and the figure drawn, only once the widget is shown: the
    Metrics page is built at start-up but seldom looked at first (issue 15, start-up).
    """

    def __init__(self) -> None:
        super().__init__()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._canvas: Any = None
        self._pending: tuple[list[ResultRow], dict[str, str], dict[str, bool]] | None = (
            [], {}, {})
        self.panels: dict[str, dict[str, int]] = {}  # metric -> {model: n values}

    @property
    def figure(self) -> Any:
        """The matplotlib figure (created, with its canvas, on first use)."""
        if self._canvas is None:
            from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
            from matplotlib.figure import Figure

            self._canvas = FigureCanvasQTAgg(Figure(figsize=(6, 4), layout="constrained"))
            self._canvas.setSizePolicy(QSizePolicy.Policy.Expanding,
                                       QSizePolicy.Policy.Expanding)
            self._layout.addWidget(self._canvas)
        return self._canvas.figure

    def draw_idle(self) -> None:
        """Repaint the figure (in the app's palette) when Qt next gets to it."""
        if self._canvas is not None:
            style_figure(self._canvas.figure, self.palette())
            self._canvas.draw_idle()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """A theme change recolours the figure."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.draw_idle()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._pending is not None:
            self._draw(*self._pending)

    def show_rows(self, rows: list[ResultRow], titles: dict[str, str],
                  higher: dict[str, bool] | None = None) -> None:
        """Redraw: values with status ok, grouped by metric then model (when shown);
        ``higher`` says per metric whether higher is better (beside the row)."""
        grouped = _grouped(rows)
        self.panels = {m: {k: len(v) for k, v in by.items()} for m, by in grouped.items()}
        self._pending = (rows, titles, higher or {})
        if self.isVisible():
            self._draw(rows, titles, higher or {})

    def _draw(self, rows: list[ResultRow], titles: dict[str, str],
              higher: dict[str, bool]) -> None:
        self._pending = None
        grouped = _grouped(rows)
        self.figure.clear()
        ink = self.palette().color(QPalette.ColorRole.WindowText).name()
        if not grouped:
            ax = self.figure.add_subplot(1, 1, 1)
            ax.axis("off")
            ax.text(0.5, 0.5, "No values yet: tick metrics and press Run",
                    ha="center", va="center", color=ink)
            self.draw_idle()
            return
        models = sorted({m for by in grouped.values() for m in by})
        nrows, ncols = len(grouped), len(models)
        self.setMinimumHeight(max(300, 190 * nrows))
        colours = [f"C{k % 10}" for k in range(ncols)]
        for r, (metric, by_model) in enumerate(grouped.items()):
            values = np.concatenate([np.asarray(v) for v in by_model.values()])
            bins = np.linspace(*value_range(values), 16)
            better = "" if metric not in higher else (
                "↑ higher is better\n" if higher[metric] else "↓ lower is better\n")
            first = None
            for c, model in enumerate(models):
                ax = self.figure.add_subplot(nrows, ncols, r * ncols + c + 1,
                                             sharex=first, sharey=first)
                first = first or ax
                vals = by_model.get(model, [])
                # a panel is ~100 px wide at 1024: a 120-character name ran over its
                # neighbours' titles; '$' started mathtext (the Results table has it whole)
                name = plain(model, TITLE_MAX)
                if vals:
                    ax.hist(vals, bins=bins, color=colours[c], alpha=0.85)
                    ax.axvline(float(np.mean(vals)), color=ink, linewidth=1, linestyle="--")
                    # one fact a line: side by side, five panels of a 1024-pixel window
                    # had no room for "n=32, mean 0.83" (they overlapped, the last cut)
                    ax.set_title(f"{name}\nn={len(vals)}\nmean {np.mean(vals):.3g}",
                                 fontsize=8)
                else:
                    ax.set_title(f"{name}\nno values", fontsize=8)
                if c == 0:  # the row's metric, and what the bars count
                    title = plain(titles.get(metric, metric))
                    ax.set_ylabel(f"{title}\n{better}outputs per bin", fontsize=8)
                ax.set_xlabel("value", fontsize=7)
                ax.tick_params(labelsize=7)
                ax.ticklabel_format(axis="x", useOffset=False)
        self.draw_idle()


def value_range(values: np.ndarray) -> tuple[float, float]:
    """The x range of a row of panels: the values' own, widened around a single value
    (all ones read "1e-6+1" under ticks 0 to 1, with the bar at "0")."""
    lo, hi = float(values.min()), float(values.max())
    if hi > lo:
        return lo, hi
    pad = 0.05 * max(abs(lo), 1.0)
    return lo - pad, hi + pad


def _grouped(rows: list[ResultRow]) -> dict[str, dict[str, list[float]]]:
    grouped: dict[str, dict[str, list[float]]] = {}
    for r in rows:
        if r.status == "ok" and r.value is not None:
            grouped.setdefault(r.metric, {}).setdefault(r.model, []).append(r.value)
    return grouped
