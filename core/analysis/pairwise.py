"""Sections for comparative data: pairwise votes, full rankings, per-output scores.

Leaderboards combine the win rate, Bradley-Terry scores (sum 100) and Elo with a
bootstrap interval.  Rankings and scores are broken into pairwise votes for BT/Elo
(every ranking, or every judge's scores on one sample, gives one vote per pair;
ADR 071).  Significance is the Friedman test on complete blocks with a post-hoc.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from core import stats
from core.analysis.compute import Row, col, fit_pairwise, group_by, has, pair_votes, score_tensor
from core.analysis.results import (
    EloChart,
    EloPanel,
    HeatmapChart,
    HeatPanel,
    Section,
    Table,
    num,
    p_text,
)
from core.stats.votes import encode_votes

LEADER_FORMATS = {"Win rate": ".3f", "BT/100": ".2f", "Elo": ".0f", "CI low": ".0f",
                  "CI high": ".0f", "Mean rank": ".2f", "Mean score": ".3f", "Votes": "d",
                  "Rankings": "d"}


def _elo_rows(fit: Any, first: list[str], order: Sequence[int],
              extra: dict[str, Sequence[Any]] | None = None) -> list[list[Any]]:
    rows = []
    for rank, i in enumerate(order, 1):
        cells = [*first, rank, fit.models[i]]
        for values in (extra or {}).values():
            cells.append(values[i])
        cells += [num(fit.win_rate[i]), num(fit.bt[i]), num(fit.elo[i]), num(fit.lo[i]),
                  num(fit.hi[i])]
        rows.append(cells)
    return rows


def _elo_note(opt: Any, fits: list[Any]) -> str:
    boot = (f"{opt.n_boot:,} bootstrap resamples of the votes, {opt.ci:.0%} interval, seed "
            f"{opt.seed}" if opt.n_boot else "no bootstrap (interval = point estimate)")
    notes = {f.note() for f in fits}
    n_map = sum(f.n_boot_map for f in fits)
    extra = (f" {n_map:,} resample{'' if n_map == 1 else 's'} needed the MAP prior."
             if n_map else "")
    return ("BT/100 = Bradley-Terry strength π, scaled to sum to 100; Elo = 1000 + "
            f"400·log10(π / geometric mean of π); higher is better for both; {boot}. "
            + " ".join(sorted(notes)) + extra)


def _splits(fits: list[Any], criteria: Sequence[str] = ("",)) -> list[str]:
    """The warning of each fit whose comparisons split into groups never compared."""
    texts = (f.split_text(c) for f, c in zip(fits, criteria, strict=True))
    return [t for t in texts if t]


def _panel(title: str, fit: Any) -> EloPanel:
    return EloPanel(title, list(fit.models), [float(x) for x in fit.elo],
                    [float(x) for x in fit.lo], [float(x) for x in fit.hi])


# -- votes ------------------------------------------------------------------------------------


def votes_sections(rows: list[Row], opt: Any) -> dict[str, Section]:
    by_crit = group_by(rows, "criterion") if has(rows, "criterion") else {"": rows}
    lead_rows: list[list[Any]] = []
    fits, panels = [], []
    for crit, rs in by_crit.items():
        votes = encode_votes(col(rs, "a"), col(rs, "b"), col(rs, "winner"))
        fit = fit_pairwise(votes, opt.n_boot, opt.ci, opt.seed)
        fits.append(fit)
        panels.append(_panel(crit or "Elo", fit))
        order = list(np.argsort(-fit.elo, kind="stable"))
        lead_rows += _elo_rows(fit, [crit] if crit else [], order,
                               {"Votes": [int(v) for v in fit.votes]})
    columns = (["Criterion"] if len(by_crit) > 1 or "" not in by_crit else []) + [
        "Rank", "Model", "Votes", "Win rate", "BT/100", "Elo", "CI low", "CI high"]
    lead = Section("leaderboard", "Leaderboard", tables=[Table(
        "leaderboard", "Leaderboard", columns, lead_rows,
        "Votes = the votes a model took part in; Win rate = the share of them it won, ties "
        "counting half. " + _elo_note(opt, fits), LEADER_FORMATS)],
        charts=[EloChart(panels, opt.ci, opt.n_boot)])
    lead.summary = [f"{len(rows):,} votes over {len({*col(rows, 'a'), *col(rows, 'b')})} models"
                    + (f", {len(by_crit)} criteria" if len(by_crit) > 1 else "")]
    lead.summary += _splits(fits, list(by_crit))
    sig = Section("significance", "Significance", message=(
        "The Friedman test needs blocks that rank every model (full rankings, Likert "
        "ratings or per-sample scores); pairwise votes have none. The Elo intervals on the "
        "Leaderboard tab show which differences the votes support."))
    return {"leaderboard": lead, "significance": sig,
            "breakdown": _votes_breakdown(rows, by_crit, opt)}


def _votes_breakdown(rows: list[Row], by_crit: dict[str, list[Row]], opt: Any) -> Section:
    column = opt.group_by
    sec = Section("breakdown", "Breakdown")
    if column is None:
        sec.message = no_groups_message()
        return sec
    panels, tables = [], []
    for crit, rs in by_crit.items():
        models = sorted({*col(rs, "a"), *col(rs, "b")})
        groups = group_by(rs, column)
        values = np.full((len(models), len(groups)), np.nan)
        for g, (_, gr) in enumerate(groups.items()):
            present = sorted({*col(gr, "a"), *col(gr, "b")})
            if len(present) >= 2:
                sub = encode_votes(col(gr, "a"), col(gr, "b"), col(gr, "winner"), present)
                keep = [models.index(m) for m in present]
                values[keep, g] = stats.fit_votes(sub).scores
        panels.append(HeatPanel(crit or f"BT/100 by {column}", models, list(groups), values))
        tables.append(matrix_table(f"breakdown-{crit}" if crit else "breakdown",
                                    f"BT/100 by {column}" + (f" — {crit}" if crit else ""),
                                    models, list(groups), values, ".2f"))
    sec.tables = tables
    sec.charts = [HeatmapChart(panels, "BT/100 (within the group)", ".1f")]
    sec.summary = [f"Bradley-Terry scores fitted separately within each {column}; scores "
                   "sum to 100 among the models compared in the group."]
    return sec


def no_groups_message() -> str:
    return ("This data set has no category, edit_type or split column to break the results "
            "down by. Add one of these columns to the CSV (rating sessions and metric "
            "results of a project carry the samples' split).")


def matrix_table(key: str, title: str, models: list[str], groups: list[str],
                  values: np.ndarray, fmt: str) -> Table:
    rows = [[m, *[num(v) for v in values[i]]] for i, m in enumerate(models)]
    return Table(key, title, ["Model", *groups], rows, formats=dict.fromkeys(groups, fmt))


# -- rankings and scores -----------------------------------------------------------------------


def friedman_result(blocks: np.ndarray, models: Sequence[str], opt: Any,
                    what: str) -> tuple[Any, str | None, int]:
    """``(result or None, message when undefined, incomplete blocks left out)``."""
    complete = blocks[~np.isnan(blocks).any(axis=1)]
    dropped = blocks.shape[0] - complete.shape[0]
    if complete.shape[0] < 2:
        return None, (f"The Friedman test needs at least two complete blocks ({what} giving "
                      f"every model a value); there are {complete.shape[0]}."), dropped
    try:
        return stats.friedman(complete, list(models), posthoc=opt.posthoc), None, dropped
    except ValueError as exc:
        return None, f"The Friedman test is undefined here: {exc}", dropped


def friedman_section(blocks: np.ndarray, models: Sequence[str], opt: Any, what: str) -> Section:
    sec = Section("significance", "Significance")
    res, message, dropped = friedman_result(blocks, models, opt, what)
    if res is None:
        sec.message = message
        return sec
    sec.summary = [
        f"Friedman χ² = {res.statistic:.3f} (df = {len(models) - 1}), {p_text(res.p)}, "
        f"over {res.n_blocks:,} complete blocks ({what})"
        + (f"; {dropped:,} incomplete blocks left out" if dropped else "") + ".",
        posthoc_text(opt.posthoc)]
    sec.tables = [_mean_rank_table(res), posthoc_table(res)]
    return sec


def posthoc_text(method: str) -> str:
    return {
        "dunn": "Post-hoc: Dunn's test (as ECHO), Bonferroni-adjusted.",
        "siegel": "Post-hoc: Friedman-specific z test on mean ranks, Bonferroni-adjusted.",
        "conover": "Post-hoc: Conover's test for blocked data, Bonferroni-adjusted.",
        "nemenyi": "Post-hoc: Nemenyi's test (family-wise p already; no second correction).",
    }.get(method, method)


def _mean_rank_table(res: Any) -> Table:
    order = np.argsort(res.mean_ranks, kind="stable")
    return Table("mean-ranks", "Mean rank within blocks (1 = best)", ["Model", "Mean rank"],
                 [[res.models[i], num(res.mean_ranks[i])] for i in order],
                 formats={"Mean rank": ".3f"})


def posthoc_table(res: Any, criterion: str | None = None) -> Table:
    first = ["Criterion"] if criterion is not None else []
    rows = [[*([criterion] if criterion is not None else []), p.a, p.b, num(p.statistic),
             num(p.p), num(p.p_adj), "yes" if p.p_adj < 0.05 else "no"] for p in res.posthoc]
    return Table("posthoc", "Pairwise post-hoc comparisons",
                 [*first, "Model A", "Model B", "Statistic", "p", "p adjusted",
                  "Significant (5%)"], rows,
                 formats={"Statistic": ".3f", "p": "p", "p adjusted": "p"})


def rankings_sections(rows: list[Row], opt: Any) -> dict[str, Section]:
    table = stats.ranking_table(col(rows, "rater"), col(rows, "item"), col(rows, "model"),
                                col(rows, "rank"))
    kem = stats.kemeny_table(table)
    pos = kem.positions()
    with np.errstate(invalid="ignore"):
        mean_rank = np.nanmean(table.ranks, axis=(0, 1))
    wr = stats.win_rates(col(rows, "item"), col(rows, "model"),
                         [-float(r) for r in col(rows, "rank")], col(rows, "rater"))
    echo = dict(zip(wr.models, wr.win_rate, strict=True))
    blocks = table.rankings()
    fit = fit_pairwise(pair_votes(blocks, table.models), opt.n_boot, opt.ci, opt.seed)
    order = list(kem.order)
    # how many rankings back each model (a file of partial rankings ranks some less often)
    ranked = (~np.isnan(blocks)).sum(axis=0)
    columns = ["Rank", "Model", "Rankings", "Mean rank", "Win rate", "BT/100", "Elo",
               "CI low", "CI high"]
    lead_rows = [[int(pos[i]), m, int(ranked[i]), num(mean_rank[i]), num(echo.get(m)),
                  num(fit.bt[i]), num(fit.elo[i]), num(fit.lo[i]), num(fit.hi[i])]
                 for i in order for m in [table.models[i]]]
    kind = "exact" if kem.exact else "heuristic (more items than the exact solver takes)"
    note = (f"Rank = Kemeny-Young consensus ({kind}, agreement {kem.score:,.0f}). Win rate = "
            "ECHO pseudo-pairwise win rate per item, majority vote over raters. "
            + _elo_note(opt, [fit]) + " BT/Elo break every ranking into pairwise votes; the "
            "bootstrap resamples those votes as if independent, so the intervals are somewhat "
            "narrower than resampling whole rankings would give.")
    lead = Section("leaderboard", "Leaderboard", tables=[Table(
        "leaderboard", "Leaderboard", columns, lead_rows, note, LEADER_FORMATS)],
        charts=[EloChart([_panel("Elo", fit)], opt.ci, opt.n_boot)])
    lead.summary = [f"{blocks.shape[0]:,} rankings of {len(table.models)} models by "
                    f"{len(table.raters)} raters on {len(table.items):,} items"]
    lead.summary += _splits([fit])
    sig = friedman_section(blocks, table.models, opt, "rater × item")
    return {"leaderboard": lead, "significance": sig,
            "breakdown": _winrate_breakdown(rows, opt, "item", "rater", "rank", -1.0)}


def scores_sections(rows: list[Row], opt: Any) -> dict[str, Section]:
    sign = 1.0 if opt.higher_is_better else -1.0
    low, judges, samples, models = score_tensor(rows, -sign)  # lower = better
    wr = stats.win_rates_from_tensor(-low, models)
    echo = dict(zip(wr.models, wr.win_rate, strict=True))
    flat = low.reshape(-1, len(models))
    flat = flat[~np.isnan(flat).all(axis=1)]
    fit = fit_pairwise(pair_votes(flat, models), opt.n_boot, opt.ci, opt.seed)
    raw = {}
    for m in models:
        vals = [float(r["score"]) for r in rows if r["model"] == m]
        raw[m] = (float(np.mean(vals)), len({r["sample"] for r in rows if r["model"] == m}))
    order = sorted(range(len(models)), key=lambda i: -(echo.get(models[i], -1.0)))
    columns = ["Rank", "Model", "Samples", "Mean score", "Win rate", "BT/100", "Elo", "CI low",
               "CI high"]
    lead_rows = [[rank, models[i], raw[models[i]][1], num(raw[models[i]][0]),
                  num(echo.get(models[i])), num(fit.bt[i]), num(fit.elo[i]), num(fit.lo[i]),
                  num(fit.hi[i])] for rank, i in enumerate(order, 1)]
    sense = "higher" if opt.higher_is_better else "lower"
    judged = (f"majority vote over {len(judges)} judges" if len(judges) > 1 else "one judge")
    note = (f"A {sense} score is better. Win rate = ECHO pseudo-pairwise win rate ({judged}). "
            + _elo_note(opt, [fit]) + " BT/Elo use one vote per pair of models per sample and "
            "judge.")
    lead = Section("leaderboard", "Leaderboard", tables=[Table(
        "leaderboard", "Leaderboard", columns, lead_rows, note, LEADER_FORMATS)],
        charts=[EloChart([_panel("Elo", fit)], opt.ci, opt.n_boot)])
    lead.summary = [f"{len(rows):,} scores of {len(models)} models on {len(samples):,} samples"
                    + (f" by {len(judges)} judges" if len(judges) > 1 else "")]
    lead.summary += _splits([fit])
    what = "judge × sample" if len(judges) > 1 else "samples"
    sig = friedman_section(flat, models, opt, what)
    return {"leaderboard": lead, "significance": sig,
            "breakdown": _winrate_breakdown(rows, opt, "sample", "judge", "score", sign)}


def _winrate_breakdown(rows: list[Row], opt: Any, unit: str, judge: str, value: str,
                       sign: float) -> Section:
    sec = Section("breakdown", "Breakdown")
    column = opt.group_by
    if column is None:
        sec.message = no_groups_message()
        return sec
    models = sorted({r["model"] for r in rows})
    groups = group_by(rows, column)
    values = np.full((len(models), len(groups)), np.nan)
    counts = []
    for g, gr in enumerate(groups.values()):
        counts.append(len({r[unit] for r in gr}))
        try:
            res = stats.win_rates(col(gr, unit), col(gr, "model"),
                                  [sign * float(v) for v in col(gr, value)],
                                  col(gr, judge) if has(gr, judge) else None)
        except ValueError:
            continue
        for m, rate in zip(res.models, res.win_rate, strict=True):
            values[models.index(m), g] = rate
    labels = [f"{g} ({n:,})" for g, n in zip(groups, counts, strict=True)]
    sec.tables = [matrix_table("breakdown", f"Win rate by {column}", models, labels, values,
                                ".3f")]
    sec.charts = [HeatmapChart([HeatPanel(f"Win rate by {column}", models, labels, values)],
                               "win rate", ".2f", 0.0, 1.0)]
    sec.summary = [f"ECHO win rate within each {column} (items per group in brackets)."]
    return sec
