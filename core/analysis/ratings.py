"""Sections for absolute ratings: TECCI Likert scales and IDEA-Bench checklists."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core import stats
from core.analysis.agreement import criteria_in_order
from core.analysis.compute import Row, col, group_by
from core.analysis.pairwise import (
    friedman_result,
    matrix_table,
    no_groups_message,
    posthoc_table,
    posthoc_text,
)
from core.analysis.results import (
    Cell,
    HeatmapChart,
    HeatPanel,
    Section,
    SweepChart,
    SweepPanel,
    Table,
    num,
)
from core.stats.tables import IDEA_QUESTIONS

#: TECCI's order; other criteria follow alphabetically
CRITERIA_ORDER = {"IF": 0, "IC": 1, "VQ": 2}


def _means(rows: list[Row]) -> stats.LikertMeans:
    """Mean ratings over raters, criteria in TECCI order (IF, IC, VQ, then the rest)."""
    m = stats.likert_means(col(rows, "rater"), col(rows, "unit"), col(rows, "model"),
                           col(rows, "criterion"), [float(v) for v in col(rows, "value")])
    order = sorted(range(len(m.criteria)),
                   key=lambda j: (CRITERIA_ORDER.get(m.criteria[j], 99), m.criteria[j]))
    return stats.LikertMeans(m.models, m.units, tuple(m.criteria[j] for j in order),
                             m.means[:, :, order])




def taus_for(rows: list[Row], step: float = 0.25) -> list[float]:
    """Thresholds for the sweep: the scale's range in steps of ``step``."""
    values = [float(v) for v in col(rows, "value")]
    lo, hi = math.floor(min(values)), math.ceil(max(values))
    if hi <= lo:
        hi = lo + 1
    return [float(t) for t in np.arange(lo, hi + step / 2, step)]


def likert_sections(rows: list[Row], opt: Any) -> dict[str, Section]:
    means = _means(rows)
    res = stats.success_rates(means, opt.tau)
    crit = list(means.criteria)
    with np.errstate(invalid="ignore"):
        per_crit = np.nanmean(means.means, axis=1) if means.units else np.full((0, 0), np.nan)
    def rank_key(i: int) -> tuple[float, float]:  # success first, then mean over criteria
        overall = res.overall[i] if not np.isnan(res.overall[i]) else -1.0
        mean = float(np.nanmean(per_crit[i])) if np.isfinite(per_crit[i]).any() else -np.inf
        return (-overall, -mean)

    order = sorted(range(len(means.models)), key=rank_key)
    tau = f"{opt.tau:g}"
    # units rated per model: how many back its means (a model rated on few units says so)
    rated = (~np.isnan(means.means).all(axis=2)).sum(axis=1) if means.units else \
        np.zeros(len(means.models), int)
    lead_rows = [[rank, means.models[i], int(rated[i]),
                  *[num(per_crit[i, c]) for c in range(len(crit))], num(res.overall[i])]
                 for rank, i in enumerate(order, 1)]
    fmts: dict[str, str] = {f"Mean {c}": ".2f" for c in crit}
    fmts["Units"] = "d"
    fmts[f"Success (all ≥ {tau})"] = "%"
    lead = Section("leaderboard", "Leaderboard", tables=[Table(
        "leaderboard", "Leaderboard",
        ["Rank", "Model", "Units", *[f"Mean {c}" for c in crit], f"Success (all ≥ {tau})"],
        lead_rows,
        "Mean = mean over units of the mean rating over raters. Success: a unit succeeds "
        f"when its mean rating is ≥ {tau} on every criterion (TECCI Overall). Ranked by "
        "success, ties by the mean over criteria.", fmts)])
    lead.summary = [f"{len(rows):,} ratings by {len(set(col(rows, 'rater')))} raters of "
                    f"{len(means.models)} models on {len(means.units):,} units, criteria "
                    f"{', '.join(crit)}",
                    "Elo needs pairwise data (side-by-side votes, rankings or scores); "
                    "Likert ratings are summarised by their means and success rates."]
    return {"leaderboard": lead, "significance": _likert_significance(rows, crit, opt),
            "success": _success(rows, means, res, opt),
            "breakdown": _likert_breakdown(rows, opt)}


def _likert_significance(rows: list[Row], criteria: list[str], opt: Any) -> Section:
    sec = Section("significance", "Significance")
    summary_rows: list[list[Cell]] = []
    posthoc_rows, posthoc_cols = [], None
    for c in criteria:
        rs = [r for r in rows if r["criterion"] == c]
        models = sorted({r["model"] for r in rs})
        keys: dict[tuple[str, str], int] = {}
        for r in rs:
            keys.setdefault((r["rater"], r["unit"]), len(keys))
        blocks = np.full((len(keys), len(models)), np.nan)
        mi = {m: i for i, m in enumerate(models)}
        for r in rs:
            blocks[keys[(r["rater"], r["unit"])], mi[r["model"]]] = -float(r["value"])
        res, message, dropped = friedman_result(blocks, models, opt, "rater × unit")
        if res is None:
            summary_rows.append([c, message, None, None, None, dropped])
            continue
        summary_rows.append([c, num(res.statistic), len(models) - 1, num(res.p), res.n_blocks,
                             dropped])
        t = posthoc_table(res, c)
        posthoc_cols = t.columns
        posthoc_rows += t.rows
    sec.summary = ["Friedman test per criterion; blocks are (rater, unit) pairs that rate "
                   "every model (a model's rating is its treatment value).",
                   posthoc_text(opt.posthoc)]
    sec.tables = [Table("friedman", "Friedman test per criterion",
                        ["Criterion", "χ²", "df", "p", "Blocks", "Incomplete left out"], summary_rows,
                        formats={"χ²": ".3f", "p": "p"})]
    if posthoc_cols:
        sec.tables.append(Table("posthoc", "Pairwise post-hoc comparisons", posthoc_cols,
                                posthoc_rows, formats={"Statistic": ".3f", "p": "p",
                                                       "p adjusted": "p"}))
    return sec


def _success(rows: list[Row], means: stats.LikertMeans, res: stats.SuccessResult,
             opt: Any) -> Section:
    taus = taus_for(rows)
    per, overall = stats.success_sweep(means.means, taus)
    crit = list(means.criteria)
    table = Table("success", f"Success rate at τ = {opt.tau:g}",
                  ["Model", *crit, "Overall"],
                  [[m, *[num(res.rates[i, c]) for c in range(len(crit))], num(res.overall[i])]
                   for i, m in enumerate(means.models)],
                  "A (unit, model) succeeds on a criterion when its mean rating over raters "
                  "is ≥ τ; Overall when it succeeds on every criterion. — = nothing to count.",
                  formats=dict.fromkeys([*crit, "Overall"], "%"))
    sweep_rows: list[list[Cell]] = [[t, *[num(overall[k, i]) for i in range(len(means.models))]]
                  for k, t in enumerate(taus)]
    sweep_table = Table("sweep", "Overall success rate by τ", ["τ", *means.models], sweep_rows,
                        formats={"τ": ".2f", **dict.fromkeys(means.models, "%")})

    def series(values: np.ndarray) -> dict[str, list[float | None]]:
        return {m: [num(values[k, i]) for k in range(len(taus))]
                for i, m in enumerate(means.models)}

    panels = [SweepPanel("Overall (all criteria ≥ τ)", series(overall))]
    panels += [SweepPanel(c, series(per[:, :, j])) for j, c in enumerate(crit)]
    sec = Section("success", "Success", tables=[table, sweep_table],
                  charts=[SweepChart(taus, panels, opt.tau)])
    sec.summary = [f"TECCI success rates at τ = {opt.tau:g}, and their sweep over τ."]
    return sec


def _likert_breakdown(rows: list[Row], opt: Any) -> Section:
    sec = Section("breakdown", "Breakdown")
    column = opt.group_by
    if column is None:
        sec.message = no_groups_message()
        return sec
    models = sorted({r["model"] for r in rows})
    groups = group_by(rows, column)
    crit = criteria_in_order({r["criterion"] for r in rows})
    overall = np.full((len(models), len(groups)), np.nan)
    per = np.full((len(crit), len(models), len(groups)), np.nan)
    labels = []
    for g, (name, gr) in enumerate(groups.items()):
        res = stats.success_rates(_means(gr), opt.tau)
        labels.append(f"{name} ({len({r['unit'] for r in gr}):,})")
        for i, m in enumerate(res.models):
            overall[models.index(m), g] = res.overall[i]
            for j, c in enumerate(res.criteria):
                per[crit.index(c), models.index(m), g] = res.rates[i, j]
    panels = [HeatPanel("Overall", models, labels, overall)]
    panels += [HeatPanel(c, models, labels, per[j]) for j, c in enumerate(crit)]
    sec.tables = [matrix_table("breakdown", f"Overall success at τ = {opt.tau:g} by {column}",
                                models, labels, overall, "%")]
    sec.tables += [matrix_table(f"breakdown-{c}", f"{c} success by {column}", models, labels,
                                 per[j], "%") for j, c in enumerate(crit)]
    sec.charts = [HeatmapChart(panels, f"success rate at τ = {opt.tau:g}", "%", 0.0, 1.0)]
    sec.summary = [f"Success rates at τ = {opt.tau:g} within each {column} (units per group "
                   "in brackets)."]
    return sec


# -- IDEA-Bench checklists ---------------------------------------------------------------------


def checklist_sections(rows: list[Row], opt: Any) -> dict[str, Section]:
    answers = np.array([[r[q] for q in IDEA_QUESTIONS] for r in rows], dtype=float)
    res = stats.idea_scores(col(rows, "model"), col(rows, "category"), col(rows, "subtask"),
                            col(rows, "case"), answers)
    cases = {m: len({(r["category"], r["subtask"], r["case"]) for r in rows if r["model"] == m})
             for m in res.models}
    order = np.argsort(-res.overall, kind="stable")
    lead = Section("leaderboard", "Leaderboard", tables=[Table(
        "leaderboard", "Leaderboard", ["Rank", "Model", "Cases", "IDEA-Bench score"],
        [[k, res.models[i], cases[res.models[i]], num(res.overall[i])]
         for k, i in enumerate(order, 1)],
        "IDEA-Bench hierarchical score (percent): mean over categories.",
        {"IDEA-Bench score": ".2f"})])
    lead.summary = [f"{len(rows):,} checklist rows: {len(res.models)} models, "
                    f"{len(res.categories)} categories, {len(res.subtasks)} subtasks",
                    "Elo needs pairwise data; checklists are scored with IDEA-Bench's "
                    "hierarchical score."]
    cats = list(res.categories)
    idea = Section("idea", "IDEA-Bench", tables=[
        Table("categories", "Score per category (percent)", ["Model", *cats, "Overall"],
              [[m, *[num(res.category_scores[i, j]) for j in range(len(cats))],
                num(res.overall[i])] for i, m in enumerate(res.models)],
              "A level counts only if every lower level is all-yes; case → subtask mean → "
              "category percent → overall mean. A category a model has no cases in counts 0.",
              dict.fromkeys([*cats, "Overall"], ".2f")),
        Table("subtasks", "Score per subtask (percent)",
              ["Category", "Subtask", *res.models],
              [[c, s, *[num(res.subtask_scores[i, k]) for i in range(len(res.models))]]
               for k, (c, s) in enumerate(res.subtasks)],
              formats=dict.fromkeys(res.models, ".2f"))])
    idea.summary = [f"IDEA-Bench hierarchical scores of {len(res.models)} models."]
    brk = Section("breakdown", "Breakdown", tables=[matrix_table(
        "breakdown", "IDEA-Bench score by category", list(res.models), cats,
        res.category_scores, ".2f")], charts=[HeatmapChart([HeatPanel(
            "IDEA-Bench score by category", list(res.models), cats, res.category_scores)],
            "score (percent)", ".1f", 0.0, 100.0)])
    brk.summary = ["Checklists break down by their task category."]
    return {"leaderboard": lead, "idea": idea, "breakdown": brk}

