"""Compute everything the Analyze workspace shows for one data set, and export it.

:func:`analyze` takes the tidy rows of a data set (see :mod:`core.analysis.sources`)
and returns an :class:`~core.analysis.results.Analysis`: one
:class:`~core.analysis.results.Section` per tab (Leaderboard, Significance,
Agreement, Success, Breakdown, IDEA-Bench) holding tables and chart data.  Every
statistic comes from :mod:`core.stats`; a section that does not apply to the kind
of data carries a ``message`` saying why.  :func:`export_html` writes the report.

    >>> from core.analysis.sources import open_csv
    >>> ds = open_csv("votes.csv")
    >>> a = analyze(ds.load(), ds.kind, AnalysisOptions(n_boot=1000, ci=0.99), name=ds.name)
    >>> export_html(a, "report-folder")
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from core import stats
from core.analysis.agreement import agreement_section, filter_for, rater_data
from core.analysis.compute import bootstrap_progress
from core.analysis.export import export_html
from core.analysis.online import NO_ORDER, NO_ORDER_TEXT, online_leaderboard, positions
from core.analysis.pairwise import rankings_sections, scores_sections, votes_sections
from core.analysis.ratings import checklist_sections, likert_sections
from core.analysis.results import SECTIONS, Analysis, Section
from core.analysis.sources import GROUP_COLUMNS, KIND_TITLES, KINDS
from core.jobs import JobState
from core.stats.online_elo import DEFAULT_K, MAX_K
from core.stats.raters import DEFAULT_MIN_CORRELATION

_BUILDERS = {"votes": votes_sections, "rankings": rankings_sections, "scores": scores_sections,
             "likert": likert_sections, "checklist": checklist_sections}

_NOT_APPLICABLE = {
    "success": "Success rates apply to Likert ratings (rater, unit, model, criterion, value): "
               "a unit succeeds when its mean rating reaches the threshold τ.",
    "significance": "IDEA-Bench checklists are scored hierarchically per case; there are no "
                    "ranked blocks for a Friedman test. Compare the category scores on the "
                    "IDEA-Bench tab.",
    "idea": "IDEA-Bench scores apply to checklists (model, category, subtask, case, q1…q6).",
}


@dataclass(frozen=True)
class AnalysisOptions:
    """What the user chose: bootstrap, interval, seed, τ, post-hoc, α level, rater filter."""

    n_boot: int = 1000
    ci: float = 0.95
    seed: int | None = 0
    tau: float = 4.0
    posthoc: str = "dunn"
    alpha_level: str | None = None  # None = the kind's default (see agreement.DEFAULT_LEVELS)
    rater_filter: bool = False
    threshold: float = DEFAULT_MIN_CORRELATION
    group_by: str | None = None  # None = the first of category, edit_type, split present
    higher_is_better: bool = True
    online_elo: bool = False  # votes: FastChat's online Elo beside the ML Elo (ADR 135)
    online_k: float = DEFAULT_K

    def validate(self) -> None:
        if self.n_boot < 0:
            raise ValueError(f"bootstrap count must be >= 0, got {self.n_boot}")
        if not 0.0 < self.ci < 1.0:
            raise ValueError(f"interval level must be between 0 and 1, got {self.ci}")
        if self.posthoc not in stats.POSTHOC_METHODS:
            raise ValueError(f"unknown post-hoc {self.posthoc!r}")
        if self.alpha_level is not None and self.alpha_level not in stats.LEVELS:
            raise ValueError(f"unknown α level {self.alpha_level!r}")
        if not 0 < self.online_k <= MAX_K:
            raise ValueError(f"K of the online Elo must be from 0 to {MAX_K:g} (exclusive "
                             f"of 0), got {self.online_k}")


def group_columns(rows: list[dict[str, Any]]) -> list[str]:
    """The grouping columns this data set has (with at least one non-empty value)."""
    return [c for c in GROUP_COLUMNS if rows and c in rows[0]
            and any(r.get(c) not in (None, "") for r in rows)]


def _facts(rows: list[dict[str, Any]], kind: str) -> list[tuple[str, str]]:
    facts = [("Kind", KIND_TITLES[kind]), ("Rows", f"{len(rows):,}")]
    models = ({*(r["a"] for r in rows), *(r["b"] for r in rows)} if kind == "votes"
              else {r["model"] for r in rows})
    facts.append(("Models", f"{len(models)}"))
    for column, label in (("rater", "Raters"), ("judge", "Judges"), ("criterion", "Criteria")):
        if rows and column in rows[0]:
            facts.append((label, f"{len({r[column] for r in rows})}"))
    return facts


def analyze(rows: list[dict[str, Any]], kind: str, options: AnalysisOptions | None = None, *,
            name: str = "", state: JobState | None = None, order: Any = None,
            ordered_by: str = "row") -> Analysis:
    """Every section for ``rows`` of ``kind`` (raises ValueError for unusable data).

    ``order`` (votes): row indices in battle order for the online Elo, as a battle file
    gives them (``ordered_by`` "tstamp" or "file"); None replays the rows as listed."""
    if kind not in KINDS:
        raise ValueError(f"unknown data set kind {kind!r}")
    if not rows:
        raise ValueError("no data to analyse")
    opt = options or AnalysisOptions()
    opt.validate()
    groups = group_columns(rows)
    if opt.group_by is None or opt.group_by not in groups:
        opt = replace(opt, group_by=groups[0] if groups else None)
    state = state or JobState(title="Analyze")
    state.set_total(3)
    state.set_status("Checking raters")
    data = rater_data(rows, kind, opt.higher_is_better)
    flt = filter_for(data, opt.threshold) if data is not None else None
    used = rows
    online = opt.online_elo and kind == "votes"
    place = positions(order, len(rows)) if online and ordered_by != NO_ORDER else None
    if data is not None and flt is not None and opt.rater_filter:
        kept = set(flt.kept_raters)
        mask = [r[data.column] in kept for r in rows]
        used = [r for r, keep in zip(rows, mask, strict=True) if keep]
        if place is not None:
            place = place[mask]
    state.advance()
    state.check()
    state.set_status("Leaderboard, significance and breakdown")
    with bootstrap_progress(lambda _done, _total: state.check()):  # Cancel inside it
        built = _BUILDERS[kind](used, opt)
    if place is not None:
        state.set_status("Online Elo")
        table, chart = online_leaderboard(used, opt, place, ordered_by, state)
        built["leaderboard"].tables.append(table)
        built["leaderboard"].charts.append(chart)
    elif online:
        built["leaderboard"].summary.append(NO_ORDER_TEXT)
    state.advance()
    state.check()
    state.set_status("Agreement")
    built["agreement"] = agreement_section(used, kind, opt, flt,
                                           data.column if data else "rater")
    state.advance()
    sections: dict[str, Section] = {}
    for key, title in SECTIONS:
        sec = built.get(key) or Section(key, title, message=_NOT_APPLICABLE.get(key))
        sec.title = title
        sections[key] = sec
    analysis = Analysis(name or "data set", kind, len(used), opt, sections,
                        _facts(used, kind), list(data.raters) if data else [], groups)
    if len(used) != len(rows):
        analysis.facts.append(("Rows left out by the rater filter", f"{len(rows) - len(used):,}"))
    return analysis


__all__ = ["AnalysisOptions", "analyze", "export_html", "group_columns"]
