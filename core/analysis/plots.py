"""matplotlib figures for the analysis charts (Figure objects only, no pyplot state).

The same figures are drawn in the workspace (Qt canvas, in ``ui``) and rendered to
PNG for the HTML report (:func:`png_bytes`, Agg).  matplotlib is imported inside the
functions so that importing :mod:`core.analysis` stays light.  User text (model and
rater names) is escaped so that a ``$`` never switches on mathtext.
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from core.analysis.results import (
    Chart,
    EloChart,
    HeatmapChart,
    MatrixChart,
    SweepChart,
    format_cell,
)
from core.visible_text import cut_name, shown_name

if TYPE_CHECKING:
    from matplotlib.figure import Figure

BLUE = "#2f6db5"
GREY = "#8a8f98"


#: Longest user text a chart label shows; longer names keep their start and end.
LABEL_MAX = 48


def plain(text: Any, limit: int = LABEL_MAX) -> str:
    """User text for a matplotlib label: no mathtext, hidden and control characters spelt
    ``⟨U+XXXX⟩`` as the tables spell them (ADR 160, 215), any other unprintable one as a
    space, and at most about ``limit`` characters (a 5,000-character model name collapsed
    the axes to nothing), cut in the middle with a hash of the whole name so that two
    long names stay apart (ADR 217); the tables' CSV files keep the whole text."""
    s = "".join(c if c.isprintable() else " " for c in shown_name(str(text)))
    return cut_name(s, str(text), limit).replace("$", r"\$")


def _label_inches(labels: Any, points: float = 9) -> float:
    """About how wide the longest of ``labels`` is drawn, in inches (for figure sizes)."""
    return max((len(plain(x)) for x in labels), default=0) * points * 0.8 / 72


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def _grid(n: int, max_cols: int) -> tuple[int, int]:
    cols = min(n, max_cols)
    return math.ceil(n / cols), cols


def elo_figure(chart: EloChart) -> Figure:
    """Elo points with interval bars; models on the y axis, best at the top.

    Several criteria share one axis: each gets its own colour and a small offset.
    """
    from matplotlib.ticker import MaxNLocator

    models: list[str] = []
    for p in chart.panels:
        models += [m for m in p.models if m not in models]
    mean = {m: np.mean([p.elo[p.models.index(m)] for p in chart.panels if m in p.models])
            for m in models}
    order = sorted(models, key=lambda m: mean[m])  # worst at the bottom
    pos = {m: k for k, m in enumerate(order)}
    n = len(chart.panels)
    fig = _figure((6.4 if n == 1 else 7.2) + max(0.0, _label_inches(order) - 1.0),
                  max(2.6, (0.36 + 0.12 * (n - 1)) * len(order) + 1.5))
    ax = fig.subplots()
    width = 0.0 if n == 1 else min(0.6, 0.22 * (n - 1))
    for k, panel in enumerate(chart.panels):
        elo = np.asarray(panel.elo)
        lo, hi = np.asarray(panel.lo), np.asarray(panel.hi)
        y = np.array([pos[m] for m in panel.models], dtype=float)
        if n > 1:
            y += width / 2 - k * width / (n - 1)
        colour = BLUE if n == 1 else _colour(k)
        ax.errorbar(elo, y, xerr=[np.maximum(elo - lo, 0), np.maximum(hi - elo, 0)], fmt="o",
                    color=colour, ecolor=colour, elinewidth=1.6, capsize=3, markersize=5,
                    label=plain(panel.title) if n > 1 else None)
    ax.set_yticks(range(len(order)), [plain(m) for m in order])
    ax.axvline(1000, color=GREY, linestyle=":", linewidth=1)
    ax.xaxis.set_major_locator(MaxNLocator(6))
    ax.grid(axis="x", alpha=0.3)
    ax.margins(y=0.06)
    if n > 1:
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(handles, labels, loc="lower right", fontsize=9, title="criterion",
                  title_fontsize=9)
    interval = (f"{chart.ci:.0%} bootstrap interval, {chart.n_boot:,} resamples"
                if chart.n_boot else "no bootstrap")
    ax.set_title("Elo rating" if chart.title == EloChart.title else plain(chart.title),
                 fontsize=11)
    ax.set_xlabel(f"Elo ({interval})", fontsize=9)
    return fig


def sweep_figure(chart: SweepChart) -> Figure:
    """Success rate against τ; one panel per criterion, one line per model."""
    rows, cols = _grid(len(chart.panels), 2)
    fig = _figure(5.2 * cols + 1.6, 3.0 * rows + 0.6)
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False, sharex=True,
                                      sharey=True)).ravel()
    handles: list[Any] = []
    for ax, panel in zip(axes, chart.panels, strict=False):
        for k, (model, values) in enumerate(panel.series.items()):
            y = [np.nan if v is None else 100 * v for v in values]
            (line,) = ax.plot(chart.taus, y, marker=".", linewidth=1.5,
                              color=_colour(k), label=plain(model))
            if len(handles) < len(panel.series):
                handles.append(line)
        ax.axvline(chart.tau, color=GREY, linestyle=":", linewidth=1)
        ax.set_title(plain(panel.title), fontsize=10)
        ax.set_ylim(-3, 103)
        ax.grid(alpha=0.3)
        ax.set_xlabel("threshold τ")
        ax.set_ylabel("success rate (%)")
        ax.label_outer()
    for ax in axes[len(chart.panels):]:
        ax.set_visible(False)
    fig.legend(handles=handles, loc="outside right center", fontsize=9, frameon=False)
    return fig


def _colour(k: int) -> Any:
    from matplotlib import colormaps

    cmap = colormaps["tab10"] if k < 10 else colormaps["tab20"]
    return cmap(k % cmap.N)


def _annotate(ax: Any, values: np.ndarray, fmt: str, cmap: Any, norm: Any,
              size: float) -> None:
    for (i, j), v in np.ndenumerate(values):
        if np.isnan(v):
            ax.text(j, i, "n/a", ha="center", va="center", fontsize=size, color="#555555")
            continue
        r, g, b, _ = cmap(norm(v))
        dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
        text = f"{100 * v:.0f}%" if fmt == "%" else format_cell(float(v), fmt)
        ax.text(j, i, text, ha="center", va="center", fontsize=size,
                color="white" if dark else "black")


def heatmap_figure(chart: HeatmapChart) -> Figure:
    """Models × groups heatmaps with the value written in every cell."""
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    first = chart.panels[0]
    rows, cols = _grid(len(chart.panels), 2)
    cell_w = max(0.6, min(1.1, 8.0 / max(1, len(first.cols))))
    width = min(14, cols * (len(first.cols) * cell_w + 2.2 + _label_inches(first.rows)) + 1.0)
    height = rows * (0.36 * len(first.rows) + 1.7 + 0.6 * _label_inches(first.cols))
    fig = _figure(width, max(2.6, height))
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
    cmap = colormaps["viridis"].with_extremes(bad="#e6e6e6")
    finite = np.concatenate([p.values[np.isfinite(p.values)].ravel() for p in chart.panels])
    vmin = chart.vmin if chart.vmin is not None else (float(finite.min()) if finite.size else 0)
    vmax = chart.vmax if chart.vmax is not None else (float(finite.max()) if finite.size else 1)
    norm = Normalize(vmin, vmax if vmax > vmin else vmin + 1)
    image = None
    for ax, panel in zip(axes, chart.panels, strict=False):
        image = ax.imshow(np.ma.masked_invalid(panel.values), cmap=cmap, norm=norm,
                          aspect="auto")
        ax.set_xticks(range(len(panel.cols)), [plain(c) for c in panel.cols], rotation=30,
                      ha="right", fontsize=9)
        ax.set_yticks(range(len(panel.rows)), [plain(r) for r in panel.rows], fontsize=9)
        ax.set_title(plain(panel.title), fontsize=10)
        _annotate(ax, panel.values, chart.fmt, cmap, norm, 8)
    for ax in axes[len(chart.panels):]:
        ax.set_visible(False)
    if image is not None:
        bar = fig.colorbar(image, ax=list(axes[: len(chart.panels)]), shrink=0.8)
        bar.set_label(plain(chart.value_label))
        if chart.fmt == "%":
            bar.ax.yaxis.set_major_formatter(lambda v, _pos: f"{100 * v:.0f}%")
    return fig


def matrix_figure(chart: MatrixChart) -> Figure:
    """A rater × rater correlation matrix on a diverging scale from −1 to 1."""
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    n = len(chart.labels)
    side = min(9.0, max(3.6, 0.62 * n + 2.2))
    fig = _figure(side + 1.2, side)
    ax = fig.subplots()
    cmap = colormaps["RdBu"].with_extremes(bad="#e6e6e6")
    norm = Normalize(-1, 1)
    image = ax.imshow(np.ma.masked_invalid(chart.values), cmap=cmap, norm=norm)
    labels = [plain(x) for x in chart.labels]
    ax.set_xticks(range(n), labels, rotation=35, ha="right", fontsize=9)
    ax.set_yticks(range(n), labels, fontsize=9)
    if n <= 14:
        _annotate(ax, chart.values, ".2f", cmap, norm, 8 if n <= 8 else 7)
    ax.set_title(plain(chart.title or chart.measure), fontsize=10)
    fig.colorbar(image, ax=ax, shrink=0.8).set_label(plain(chart.measure))
    return fig


def figure_for(chart: Chart) -> Figure:
    """The figure of any chart."""
    if isinstance(chart, EloChart):
        return elo_figure(chart)
    if isinstance(chart, SweepChart):
        return sweep_figure(chart)
    if isinstance(chart, HeatmapChart):
        return heatmap_figure(chart)
    if isinstance(chart, MatrixChart):
        return matrix_figure(chart)
    raise TypeError(f"not a chart: {type(chart).__name__}")


def png_bytes(fig: Figure, dpi: int = 110) -> bytes:
    """Render ``fig`` to PNG with the Agg canvas (no GUI backend involved)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=dpi)
    return out.getvalue()
