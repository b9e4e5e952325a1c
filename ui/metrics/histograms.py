"""Histograms of metric values: one panel per metric, one coloured series per model."""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtWidgets import QSizePolicy

from core.metrics.store import ResultRow


class HistogramCanvas(FigureCanvasQTAgg):
    """A matplotlib canvas that redraws from result rows."""

    def __init__(self) -> None:
        self.figure = Figure(figsize=(6, 4), layout="constrained")
        super().__init__(self.figure)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.panels: dict[str, dict[str, int]] = {}  # metric -> {model: n values}
        self.show_rows([], {})

    def show_rows(self, rows: list[ResultRow], titles: dict[str, str]) -> None:
        """Redraw: values with status ok, grouped by metric then model."""
        self.figure.clear()
        grouped: dict[str, dict[str, list[float]]] = {}
        for r in rows:
            if r.status == "ok" and r.value is not None:
                grouped.setdefault(r.metric, {}).setdefault(r.model, []).append(r.value)
        self.panels = {m: {k: len(v) for k, v in by.items()} for m, by in grouped.items()}
        if not grouped:
            ax = self.figure.add_subplot(1, 1, 1)
            ax.axis("off")
            ax.text(0.5, 0.5, "No values yet: tick metrics and press Run",
                    ha="center", va="center", color="0.4")
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
            first = None
            for c, model in enumerate(models):
                ax = self.figure.add_subplot(nrows, ncols, r * ncols + c + 1,
                                             sharex=first, sharey=first)
                first = first or ax
                vals = by_model.get(model, [])
                if vals:
                    ax.hist(vals, bins=bins, color=colours[c], alpha=0.85)
                    ax.axvline(float(np.mean(vals)), color="k", linewidth=1, linestyle="--")
                    ax.set_title(f"{model}\nn={len(vals)}, mean {np.mean(vals):.3g}",
                                 fontsize=8)
                else:
                    ax.set_title(f"{model}\nno values", fontsize=8)
                if c == 0:  # the row's metric, and what the bars count
                    ax.set_ylabel(f"{titles.get(metric, metric)}\noutputs per bin", fontsize=8)
                ax.set_xlabel("value", fontsize=7)
                ax.tick_params(labelsize=7)
        self.draw_idle()
