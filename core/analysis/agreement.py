"""Agreement between raters: Krippendorff's α per criterion, rater × rater matrix, filter.

Who counts as a rater depends on the kind: ``rater`` for rankings, Likert ratings and
votes that carry ``rater`` and ``item`` columns; ``judge`` for scores.  The rater
filter (TECCI) uses each rater's Pearson correlation with the mean of the others over
every cell they share (pooled over criteria).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from core import stats
from core.analysis.compute import Row, alpha_value, col, dense, has, pearson_matrix
from core.analysis.results import Cell, MatrixChart, Section, Table, num


def criteria_in_order(names: set[str]) -> list[str]:
    """TECCI's IF, IC, VQ first, then the other criteria alphabetically."""
    order = {"IF": 0, "IC": 1, "VQ": 2}
    return sorted(names, key=lambda c: (order.get(c, 99), c))

DEFAULT_LEVELS = {"rankings": "ordinal", "likert": "interval", "votes": "nominal",
                  "scores": "interval"}


@dataclass
class RaterData:
    """Per-criterion reliability data and the pooled (raters, cells) matrix."""

    column: str  # "rater" or "judge"
    criteria: list[tuple[str, np.ndarray]]  # (criterion, data (raters, units))
    pooled: np.ndarray
    raters: tuple[str, ...]


def _vote_rows(rows: list[Row]) -> list[Row]:
    """Votes coded per unordered pair: 1 = the alphabetically first model won, 0.5 = tie."""
    out = []
    for r in rows:
        lo, hi = sorted((r["a"], r["b"]))
        won = r["a"] if r["winner"] == "a" else r["b"]
        code = 0.5 if r["winner"] == "tie" else (1.0 if won == lo else 0.0)
        out.append({"rater": r["rater"], "criterion": r.get("criterion") or "preference",
                    "item": r["item"], "lo": lo, "hi": hi, "value": code})
    return out


def rater_data(rows: list[Row], kind: str, higher_is_better: bool = True) -> RaterData | None:
    """The reliability data of a data set (None when it has fewer than two raters)."""
    spec: tuple[str, str | None, tuple[str, ...], str, list[Row]]
    if kind == "rankings":
        spec = ("rater", None, ("item", "model"), "rank", rows)
    elif kind == "likert":
        spec = ("rater", "criterion", ("unit", "model"), "value", rows)
    elif kind == "scores" and has(rows, "judge"):
        spec = ("judge", None, ("sample", "model"), "score", rows)
    elif kind == "votes" and has(rows, "rater") and has(rows, "item"):
        spec = ("rater", "criterion", ("item", "lo", "hi"), "value", _vote_rows(rows))
    else:
        return None
    who, crit_col, keys, value, rs = spec
    if len(set(col(rs, who))) < 2:
        return None
    sign = 1.0 if (kind != "scores" or higher_is_better) else -1.0
    pooled_keys = (*keys, crit_col) if crit_col else keys
    pooled, raters, _ = dense(rs, who, pooled_keys, value, sign)
    criteria = []
    names = criteria_in_order({r[crit_col] for r in rs}) if crit_col else [value]
    for c in names:
        part = [r for r in rs if r[crit_col] == c] if crit_col else rs
        data, part_raters, _ = dense(part, who, keys, value, sign)
        full = np.full((len(raters), data.shape[1]), np.nan)
        full[[raters.index(x) for x in part_raters]] = data
        criteria.append((c, full))
    return RaterData(who, criteria, pooled, raters)


def filter_for(data: RaterData, threshold: float) -> stats.RaterFilter:
    return stats.filter_raters(data.pooled, data.raters, threshold)


def filter_table(flt: stats.RaterFilter, who: str, active: bool = True) -> Table:
    below = "dropped" if active else "below threshold (filter off)"
    rows = [[r, num(c) if c is not None else "undefined (too few shared ratings or constant)",
             n, "kept" if k else below]
            for r, c, n, k in zip(flt.raters, flt.correlation, flt.n_shared, flt.kept,
                                  strict=True)]
    return Table("rater-filter", f"{who.capitalize()} filter (threshold r ≥ {flt.threshold:g})",
                 [who.capitalize(), "Pearson r with the others' mean", "Shared cells",
                  "Decision"], rows,
                 "TECCI rater filtering: Pearson correlation of each rater's ratings with the "
                 "mean of the other raters over the cells both have.",
                 {"Pearson r with the others' mean": ".3f"})


def agreement_section(rows: list[Row], kind: str, opt: Any, flt: stats.RaterFilter | None,
                      who: str) -> Section:
    """α per criterion, the rater matrix and the filter table for the rows in use."""
    sec = Section("agreement", "Agreement")
    data = rater_data(rows, kind, opt.higher_is_better)
    level = opt.alpha_level or DEFAULT_LEVELS.get(kind, "interval")
    if flt is not None:
        sec.tables.append(filter_table(flt, who, opt.rater_filter))
        if opt.rater_filter:
            dropped = flt.dropped_raters
            sec.summary.append(
                f"Rater filter on (r ≥ {flt.threshold:g}): " + (
                    f"dropped {', '.join(dropped)}; every tab uses the remaining raters."
                    if dropped else "no rater falls below the threshold."))
        else:
            sec.summary.append("Rater filter off: every rater is used.")
    if data is None:
        sec.message = _why_no_raters(kind, rows)
        if flt is not None and opt.rater_filter:  # filtering left fewer than two raters
            sec.message = ("Fewer than two raters remain after filtering: agreement needs at "
                           "least two. Lower the threshold or turn the filter off.")
        return sec
    alpha_rows: list[list[Cell]] = []
    for crit, matrix in data.criteria:
        units = int((np.sum(~np.isnan(matrix), axis=0) >= 2).sum())
        alpha_rows.append([crit, alpha_value(matrix, level), units,
                           int(np.any(~np.isnan(matrix), axis=1).sum())])
    sec.tables.insert(0, Table(
        "alpha", f"Krippendorff's α ({level})", ["Criterion", "α", "Units rated twice+",
                                                 "Raters"], alpha_rows,
        "α = 1 is perfect agreement, 0 is chance level; units rated by one rater only do "
        "not count.", {"α": ".3f"}))
    if kind == "rankings":
        table = stats.ranking_table(col(rows, "rater"), col(rows, "item"), col(rows, "model"),
                                    col(rows, "rank"))
        matrix, measure = stats.rater_matrix(table), "Kendall τ-b"
        pairs = stats.rater_pairs(table)
        cons = stats.vs_consensus(table)
        sec.tables.append(Table(
            "rater-pairs", "Kendall τ-b between raters", ["Rater A", "Rater B", "τ-b", "p",
                                                          "Shared ranks"],
            [[p.a, p.b, num(p.tau_b) if p.tau_b is not None else "undefined",
              num(p.p), p.n] for p in pairs], formats={"τ-b": ".3f", "p": "p"}))
        sec.tables.append(Table(
            "vs-consensus", "Each rater against the Kemeny consensus", ["Rater", "τ-b"],
            [[r, num(v) if v is not None else "undefined"] for r, v in cons.items()],
            formats={"τ-b": ".3f"}))
    else:
        matrix, measure = pearson_matrix(data.pooled), "Pearson r"
    sec.charts.append(MatrixChart(list(data.raters), matrix, measure,
                                  f"{measure} between {data.column}s"))
    sec.summary.insert(0, f"{len(data.raters)} {data.column}s; α at the {level} level.")
    return sec


def _why_no_raters(kind: str, rows: list[Row]) -> str:
    if kind == "checklist":
        return "Checklist data carry no rater column: there is no agreement to measure."
    if kind == "votes" and not (has(rows, "rater") and has(rows, "item")):
        return ("Agreement needs to know who voted on what: add 'rater' and 'item' columns "
                "to the votes (the same item judged by at least two raters).")
    if kind == "scores":
        return ("These scores come from a single judge: agreement needs a 'judge' column "
                "with at least two judges.")
    return "Agreement needs at least two raters who rated the same units."
