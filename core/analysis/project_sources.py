"""Project providers: rating sessions and stored metric / judge results as data sets.

Thin adapters over the public APIs of :mod:`core.rating` (``list_sessions``,
``results.result_rows``: the same rows ``winnow session export`` writes) and
:mod:`core.metrics` (``store.load_results``, the registry's ``higher_is_better``).
Registered with :func:`core.analysis.datasets.register_provider` on import.

* a rating session with merged judgments → its protocol's kind (side-by-side →
  ``votes`` with ``rater``, ``item`` and ``criterion`` columns, so agreement is
  measured as in ADR 055; ranking → ``rankings``; Likert → ``likert``; checklist →
  ``checklist``); votes, rankings and Likert rows get the sample's ``split``;
* each stored metric configuration → ``scores`` (sample, model, value), the
  sample's own image (``@sample``) left out; VLM judges with per-judge scores
  (``judge_overall``, ``judge_text``) → ``scores`` with a ``judge`` column;
  ``judge_tecci`` → ``likert`` with each judge as a rater (mean over its runs).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from core.analysis.datasets import DataSet, Row, register_provider

_PROTOCOL_KINDS = {"side_by_side": "votes", "ranking": "rankings", "likert": "likert",
                   "checklist": "checklist"}
SAMPLE_MODEL = "@sample"


def _splits(project: Any) -> dict[str, str]:
    return {sid: split or "" for sid, split in project.conn.execute(
        "SELECT id, split FROM samples")}


# -- rating sessions -----------------------------------------------------------------------


def _session_rows(project: Any, name: str) -> list[Row]:
    from core.rating.results import result_rows
    from core.rating.sessions import get_session

    session = get_session(project, name)
    rows: list[Row] = []
    if session.protocol == "side_by_side":  # one export per question; rows carry it
        for crit in session.design.criteria:
            header, data = result_rows(project, name, crit)
            rows.extend(dict(zip(header, r, strict=True)) for r in data)
    else:
        header, data = result_rows(project, name)
        rows = [dict(zip(header, r, strict=True)) for r in data]
    key = {"side_by_side": "item", "ranking": "item", "likert": "unit"}.get(session.protocol)
    if key:
        splits = _splits(project)
        for r in rows:
            r["split"] = splits.get(str(r[key]), "")
    return rows


@register_provider
def rating_datasets(project: Any) -> list[DataSet]:
    """One data set per rating session that has merged judgments."""
    from core.rating.protocols import PROTOCOL_TITLES
    from core.rating.sessions import list_sessions

    out = []
    for s in list_sessions(project):
        if s.judgments == 0 or s.protocol not in _PROTOCOL_KINDS:
            continue
        out.append(DataSet(
            name=f"Session: {s.name}", kind=_PROTOCOL_KINDS[s.protocol],
            key=f"rating:{s.uid}", loader=partial(_session_rows, name=s.name),
            source="Rating session",
            description=(f"{PROTOCOL_TITLES.get(s.protocol, s.protocol)}; {s.raters} rater "
                         f"file(s), {s.judgments:,} judgments merged"),
            meta={"session": s.name}))
    return out


# -- metric and judge results ----------------------------------------------------------------


def _metric_rows(project: Any, metric: str, params_hash: str, mode: str) -> list[Row]:
    from core.metrics.store import load_results

    splits = _splits(project)
    out: list[Row] = []
    for r in load_results(project, metrics=[metric], params_hashes={metric: params_hash}):
        if r.status != "ok" or r.model == SAMPLE_MODEL:
            continue
        split = splits.get(r.sample_id, "")
        if mode == "value":
            if r.value is not None:
                out.append({"sample": r.sample_id, "model": r.model, "score": float(r.value),
                            "split": split})
        elif mode == "judges":
            for judge, entry in (r.details.get("judges") or {}).items():
                if isinstance(entry.get("score"), int | float):
                    out.append({"sample": r.sample_id, "model": r.model,
                                "score": float(entry["score"]), "judge": judge,
                                "split": split})
        else:  # "tecci": each judge a rater, mean over its runs per criterion
            for judge, entry in (r.details.get("judges") or {}).items():
                runs = [run for run in entry.get("runs") or [] if isinstance(run, dict)]
                for crit in sorted({c for run in runs for c in run}):
                    vals = [float(run[crit]) for run in runs
                            if isinstance(run.get(crit), int | float)]
                    if vals:
                        out.append({"rater": judge, "unit": r.sample_id, "model": r.model,
                                    "criterion": crit, "value": sum(vals) / len(vals),
                                    "split": split})
    return out


@register_provider
def metric_datasets(project: Any) -> list[DataSet]:
    """One data set per stored metric configuration (plus per-judge views for judges)."""
    from core.metrics import registry

    try:
        rows = project.conn.execute(
            "SELECT metric, params_hash, count(*) FROM metric_results WHERE status = 'ok' "
            "AND model != ? GROUP BY metric, params_hash ORDER BY metric, params_hash",
            (SAMPLE_MODEL,)).fetchall()
    except Exception as exc:  # a project without the metrics schema
        if "no such table" in str(exc):
            return []
        raise
    per_metric: dict[str, int] = {}
    for metric, _, _ in rows:
        per_metric[metric] = per_metric.get(metric, 0) + 1
    out = []
    for metric, phash, n in rows:
        try:
            info = registry.get(metric)
            title, better = info.title, info.higher_is_better
        except ValueError:
            title, better = metric, True
        label = title if per_metric[metric] == 1 else f"{title} [config {phash[:6]}]"
        sense = "higher is better" if better else "lower is better"
        modes = [("value", "scores", f"Metric: {label}", f"{n:,} results; {sense}")]
        if metric in ("judge_overall", "judge_text"):
            modes.append(("judges", "scores", f"Judges: {label}",
                          "per-judge scores; win rate by majority vote over judges"))
        if metric == "judge_tecci":
            modes.append(("tecci", "likert", f"Autorater IF/IC/VQ: {label}",
                          "each judge as a rater, mean over its runs"))
        for mode, kind, name, desc in modes:
            out.append(DataSet(
                name=name, kind=kind, key=f"metric:{metric}:{phash}:{mode}",
                loader=partial(_metric_rows, metric=metric, params_hash=phash, mode=mode),
                source="Metric results", description=desc, higher_is_better=better,
                meta={"metric": metric, "params_hash": phash}))
    return out
