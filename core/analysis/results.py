"""What an analysis produces: tables, chart data and sections, as plain dataclasses.

A table cell is a number, a text (e.g. why a statistic is undefined) or ``None``
(nothing to count, shown as "—"); NaN never reaches a cell (:func:`num`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.visible_text import cut_name, shown_name

Cell = float | int | str | None

#: section keys in display order, with their titles
SECTIONS = (
    ("leaderboard", "Leaderboard"),
    ("significance", "Significance"),
    ("agreement", "Agreement"),
    ("success", "Success"),
    ("breakdown", "Breakdown"),
    ("idea", "IDEA-Bench"),
)


def num(x: Any) -> float | None:
    """A finite float or None (NaN / inf / None → None)."""
    if x is None:
        return None
    v = float(x)
    return v if math.isfinite(v) else None


def fmt_p(p: float) -> str:
    """A p-value for reading: 4 decimals, or scientific below 0.0001."""
    if p < 1e-300:
        return "< 1e-300"
    return f"{p:.2e}" if p < 1e-4 else f"{p:.4f}"


def p_text(p: float) -> str:
    """``"p = 0.0123"`` or ``"p < 1e-300"``."""
    text = fmt_p(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


@dataclass
class Table:
    """A titled table; ``formats`` maps a column to a format (".3f", "%", "p", "d")."""

    key: str
    title: str
    columns: list[str]
    rows: list[list[Cell]]
    note: str = ""
    formats: dict[str, str] = field(default_factory=dict)

    def display(self, row: int, col: int) -> str:
        """The cell as shown to a reader."""
        return format_cell(self.rows[row][col], self.formats.get(self.columns[col], ""))

    def header(self, col: int) -> str:
        """A column's title as shown: a model or group name heads some columns (ADR 217)."""
        return shown_name(self.columns[col])

    def short(self, row: int, col: int) -> str:
        """:meth:`display`, a long text cut in the middle (:func:`cut_name`): the HTML
        report's cell, where a 10,000-character name widened the table past the page."""
        value = self.rows[row][col]
        shown = self.display(row, col)
        return cut_name(shown, value) if isinstance(value, str) else shown

    def column(self, name: str) -> list[Cell]:
        i = self.columns.index(name)
        return [r[i] for r in self.rows]


def format_cell(value: Cell, fmt: str = "") -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        return shown_name(value)  # no name may look like another (ADR 160, 215, 217)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) and fmt in ("", "d"):
        return f"{value:,}"
    v = float(value)
    if not math.isfinite(v):
        return "—"
    if fmt == "%":
        return f"{100 * v:.1f}%"
    if fmt == "p":
        return fmt_p(v)
    if fmt == "d":
        return f"{v:,.0f}"
    return format(v, fmt or ".3f")


# -- chart data -------------------------------------------------------------------------------


@dataclass
class EloPanel:
    title: str
    models: list[str]
    elo: list[float]
    lo: list[float]
    hi: list[float]


@dataclass
class EloChart:
    """Elo points with bootstrap interval bars, one panel per criterion."""

    panels: list[EloPanel]
    ci: float
    n_boot: int
    title: str = "Elo rating with bootstrap confidence interval"


@dataclass
class SweepPanel:
    title: str
    series: dict[str, list[float | None]]  # model → success rate per tau


@dataclass
class SweepChart:
    """Success rate against the threshold τ, one panel per criterion (and Overall)."""

    taus: list[float]
    panels: list[SweepPanel]
    tau: float  # the threshold in use, marked on the plot
    title: str = "Success rate against the threshold τ"


@dataclass
class HeatPanel:
    title: str
    rows: list[str]
    cols: list[str]
    values: np.ndarray  # (rows, cols), NaN = no data


@dataclass
class HeatmapChart:
    panels: list[HeatPanel]
    value_label: str
    fmt: str = ".2f"  # "%" for rates
    vmin: float | None = None
    vmax: float | None = None
    title: str = ""


@dataclass
class MatrixChart:
    """A symmetric rater × rater matrix (NaN = undefined)."""

    labels: list[str]
    values: np.ndarray
    measure: str  # "Kendall τ-b" or "Pearson r"
    title: str = ""


Chart = EloChart | SweepChart | HeatmapChart | MatrixChart


@dataclass
class Section:
    """One tab of the workspace / one part of the report."""

    key: str
    title: str
    summary: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    #: why this section has nothing for this data set (None when it has content)
    message: str | None = None


@dataclass
class Analysis:
    """Everything computed for one data set with one set of options."""

    dataset: str
    kind: str
    n_rows: int
    options: Any  # report.AnalysisOptions
    sections: dict[str, Section]
    facts: list[tuple[str, str]] = field(default_factory=list)  # ("Models", "8") …
    raters: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)  # breakdown columns available

    def section(self, key: str) -> Section:
        return self.sections[key]

    def tables(self) -> list[tuple[Section, Table]]:
        return [(s, t) for s in self.sections.values() for t in s.tables]
