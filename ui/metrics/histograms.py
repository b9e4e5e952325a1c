"""Histograms of metric values: one panel per metric, one coloured series per model."""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import QEvent
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QSizePolicy

from core.metrics.store import ResultRow
from ui.widgets.theme import tone_text


class HistogramCanvas(FigureCanvasQTAgg):
    """A matplotlib canvas that redraws from result rows."""

    def __init__(self) -> None:
        self.figure = Figure(figsize=(6, 4), layout="constrained")
        super().__init__(self.figure)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.panels: dict[str, dict[str, int]] = {}  # metric -> {model: n values}
        self._last: tuple[list[ResultRow], dict[str, str], dict[str, bool]] = ([], {}, {})
        self.show_rows([], {})

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """Redraw in the new colours when the theme changes."""
        super().changeEvent(event)
        # the canvas sets its own (white) palette: follow the application's instead
        if event.type() == QEvent.Type.ApplicationPaletteChange and hasattr(self, "_last"):
            self.show_rows(*self._last)

    def _colours(self) -> tuple[str, str, str]:
        """(figure ground, panel ground, text) from the palette: the plot follows the
        theme instead of a white sheet in a dark window."""
        p = QGuiApplication.palette()
        return (p.color(QPalette.ColorRole.Window).name(),
                p.color(QPalette.ColorRole.Base).name(),
                p.color(QPalette.ColorRole.WindowText).name())

    def show_rows(self, rows: list[ResultRow], titles: dict[str, str],
                  higher: dict[str, bool] | None = None) -> None:
        """Redraw: values with status ok, grouped by metric then model; each row's label
        says whether higher or lower values are better."""
        self._last = (rows, titles, higher or {})
        ground, panel, ink = self._colours()
        self.figure.clear()
        self.figure.set_facecolor(ground)
        grouped: dict[str, dict[str, list[float]]] = {}
        for r in rows:
            if r.status == "ok" and r.value is not None:
                grouped.setdefault(r.metric, {}).setdefault(r.model, []).append(r.value)
        self.panels = {m: {k: len(v) for k, v in by.items()} for m, by in grouped.items()}
        if not grouped:
            ax = self.figure.add_subplot(1, 1, 1)
            ax.axis("off")
            ax.text(0.5, 0.5, "No values yet: tick metrics and press Run (Ctrl+Return)",
                    ha="center", va="center", color=tone_text("muted").name())
            self.draw_idle()
            return
        models = sorted({m for by in grouped.values() for m in by})
        nrows, ncols = len(grouped), len(models)
        self.setMinimumHeight(max(300, 190 * nrows))
        colours = [f"C{k % 10}" for k in range(ncols)]
        for r, (metric, by_model) in enumerate(grouped.items()):
            values = np.concatenate([np.asarray(v) for v in by_model.values()])
            lo, hi = float(values.min()), float(values.max())
            bins = np.linspace(lo, hi if hi > lo else lo + 1e-6, 16)
            better = (higher or {}).get(metric)
            arrow = "" if better is None else (" ↑" if better else " ↓")
            direction = "" if better is None else \
                (" (higher is better)" if better else " (lower is better)")
            first = None
            for c, model in enumerate(models):
                ax = self.figure.add_subplot(nrows, ncols, r * ncols + c + 1,
                                             sharex=first, sharey=first)
                first = first or ax
                ax.set_facecolor(panel)
                for spine in ax.spines.values():
                    spine.set_color(ink)
                vals = by_model.get(model, [])
                if vals:
                    ax.hist(vals, bins=bins, color=colours[c], alpha=0.85)
                    ax.axvline(float(np.mean(vals)), color=ink, linewidth=1, linestyle="--")
                    ax.set_title(f"{model}\nn={len(vals)}, mean {np.mean(vals):.3g}",
                                 fontsize=8, color=ink)
                else:
                    ax.set_title(f"{model}\nno values", fontsize=8, color=ink)
                if c == 0:  # the row's metric, which way is better, what the bars count
                    ax.set_ylabel(f"{titles.get(metric, metric)}{arrow}\noutputs per bin",
                                  fontsize=8, color=ink)
                ax.set_xlabel("value" + direction, fontsize=7, color=ink)
                ax.tick_params(labelsize=7, colors=ink)
        self.draw_idle()
