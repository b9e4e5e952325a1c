"""The failure-keyword chart (ECHO Figure 4 as a bar chart): a matplotlib Figure, Qt-free."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.analysis.plots import BLUE, plain

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TOP = 20


def keyword_figure(counts: list[tuple[str, int]], top: int = TOP) -> Figure:
    """Horizontal bars of the ``top`` most frequent failure keywords, most frequent first."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    shown = counts[:top]
    height = max(2.2, 0.32 * len(shown) + 1.1)
    fig = Figure(figsize=(6.4, height), dpi=100, layout="constrained")
    ax = fig.subplots()
    if not shown:
        ax.text(0.5, 0.5, "No failure keywords yet", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    labels = [plain(k) for k, _n in reversed(shown)]
    values = [n for _k, n in reversed(shown)]
    bars = ax.barh(range(len(shown)), values, color=BLUE)
    ax.set_yticks(range(len(shown)), labels, fontsize=9)
    ax.bar_label(bars, padding=2, fontsize=8)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("pieces of community feedback labelled failure")
    more = len(counts) - len(shown)
    ax.set_title("Failure keywords" + (f" (top {len(shown)}; {more} more)" if more > 0
                                       else ""), fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    return fig
