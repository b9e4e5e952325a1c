"""Summaries of stored metric results: per-model statistics, judge win rates, calibration.

Uses :mod:`core.stats` (win rate with majority vote over judges, TECCI z-score
calibration) rather than re-implementing them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.metrics.store import ResultRow
from core.stats.calibration import zscore_params
from core.stats.success import LikertMeans
from core.stats.winrate import WinRateResult, win_rates


@dataclass(frozen=True)
class ModelStats:
    """Distribution of one metric for one model."""

    model: str
    n: int
    mean: float | None
    median: float | None
    std: float | None
    not_applicable: int
    errors: int


def model_stats(rows: Sequence[ResultRow], metric: str) -> list[ModelStats]:
    """Per-model count, mean, median and standard deviation of ``metric``'s values."""
    by_model: dict[str, list[ResultRow]] = {}
    for r in rows:
        if r.metric == metric:
            by_model.setdefault(r.model, []).append(r)
    out = []
    for model in sorted(by_model):
        rs = by_model[model]
        vals = np.array([r.value for r in rs if r.status == "ok" and r.value is not None])
        out.append(ModelStats(
            model, int(vals.size),
            float(vals.mean()) if vals.size else None,
            float(np.median(vals)) if vals.size else None,
            float(vals.std()) if vals.size else None,
            sum(r.status == "not_applicable" for r in rs), sum(r.status == "error" for r in rs)))
    return out


def judge_win_rates(rows: Sequence[ResultRow], metric: str = "judge_overall") -> WinRateResult:
    """ECHO pseudo-pairwise win rate from per-judge scores, majority vote over judges."""
    sample, model, score, judge = [], [], [], []
    for r in rows:
        if r.metric != metric or r.status != "ok":
            continue
        for name, entry in (r.details.get("judges") or {}).items():
            if isinstance(entry.get("score"), int | float):
                sample.append(r.sample_id)
                model.append(r.model)
                score.append(float(entry["score"]))
                judge.append(name)
    if not sample:
        raise ValueError(f"no {metric} scores stored yet")
    return win_rates(sample, model, score, judge)


def calibrate_tecci(rows: Sequence[ResultRow], human: LikertMeans,
                    metric: str = "judge_tecci") -> dict[str, Any]:
    """TECCI z-score calibration of autorater criteria to human Likert means.

    Parameters are fitted per criterion on the (sample, model) pairs both have
    (human ``unit`` = sample id), then applied to every autorater row.
    Returns ``{"params": {crit: {...}}, "rows": [{sample, model, crit: calibrated}]}``.
    """
    auto = {(r.sample_id, r.model): r.details.get("criteria") or {}
            for r in rows if r.metric == metric and r.status == "ok"}
    if not auto:
        raise ValueError(f"no {metric} results stored yet")
    params: dict[str, dict[str, float]] = {}
    fitted = {}
    for ci, crit in enumerate(human.criteria):
        a_ref, h_ref = [], []
        for mi, m in enumerate(human.models):
            for ui, u in enumerate(human.units):
                h = human.means[mi, ui, ci]
                a = auto.get((u, m), {}).get(crit)
                if a is not None and not np.isnan(h):
                    a_ref.append(float(a))
                    h_ref.append(float(h))
        if len(a_ref) < 2:
            raise ValueError(f"criterion {crit}: fewer than 2 items have both human and "
                             "autorater scores")
        p = zscore_params(a_ref, h_ref)
        fitted[crit] = p
        params[crit] = {"mu_auto": p.mu_auto, "sd_auto": p.sd_auto, "mu_human": p.mu_human,
                        "sd_human": p.sd_human, "n": len(a_ref)}
    out_rows = []
    for (s, m), crits in sorted(auto.items()):
        row: dict[str, Any] = {"sample": s, "model": m}
        for crit, p in fitted.items():
            if crit in crits:
                row[crit] = float(p.apply([crits[crit]])[0])
        out_rows.append(row)
    return {"params": params, "rows": out_rows}
