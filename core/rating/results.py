"""Per-rater summaries and the results export in the CSV formats of ``winnow stats``.

Side-by-side votes carry ``rater``, ``item`` (the sample id) and ``criterion`` after
the ``a,b,winner`` that ``winnow stats bt/elo`` read, so agreement can be measured
(ADR 055); the statistics commands ignore the extra columns.

Only the judgment that counts for each task is used (the last in its supersede
chain).  Gold tasks are scored against their known answers and left out of the
results; flagged tasks ("impossible to rank fairly", "instruction invalid") give no
scores.  Model names are restored from the project's blinding map.
"""

from __future__ import annotations

import csv
import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.csv_cells import safe_row
from core.export_files import export_writer
from core.rating.design import gold_correct
from core.rating.protocols import LIKERT_CRITERIA
from core.rating.sessions import SessionRow, get_session
from core.store.project import Project


@dataclass(frozen=True)
class EffectiveJudgment:
    """A judgment that counts, with what the project knows about its task."""

    slot: str
    rater: str
    task_id: str
    sample_id: str
    criterion: str | None
    gold: dict[str, Any] | None
    answer: dict[str, Any]
    flag: str | None
    time_ms: int
    penalty_ms: int


@dataclass(frozen=True)
class RaterSummary:
    """How one rater file is doing: completed, gold accuracy, time, flags."""

    slot: str
    rater: str | None
    tasks: int
    completed: int
    gold_tasks: int
    gold_answered: int
    gold_correct: int
    median_time_s: float | None
    flags: int
    early: int
    changed: int
    path: str | None

    @property
    def gold_accuracy(self) -> float | None:
        return self.gold_correct / self.gold_answered if self.gold_answered else None

    def to_json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["gold_accuracy"] = self.gold_accuracy
        return data


def effective_judgments(project: Project, session: SessionRow) -> list[EffectiveJudgment]:
    """The judgment that counts for each answered task of the session."""
    rows = project.conn.execute(
        "SELECT j.uid, j.supersedes, j.seq, t.slot, j.rater, j.task_id, t.sample_id, "
        "t.criterion, t.gold, j.answer, j.flag, j.time_ms, j.penalty_ms "
        "FROM rating_judgments j JOIN rating_tasks t ON t.session_id = j.session_id "
        "AND t.task_id = j.task_id WHERE j.session_id = ? ORDER BY t.slot, j.seq",
        (session.id,)).fetchall()
    superseded = {r[1] for r in rows if r[1]}
    out: dict[str, EffectiveJudgment] = {}
    for uid, _sup, _seq, slot, rater, tid, sample, crit, gold, answer, flag, ms, pen in rows:
        if uid in superseded:
            continue
        out[tid] = EffectiveJudgment(slot, rater, tid, sample, crit,
                                     None if gold is None else json.loads(gold),
                                     json.loads(answer), flag, ms, pen)
    return list(out.values())


def rater_summaries(project: Project, name: str) -> list[RaterSummary]:
    """One summary per rater file of session ``name``."""
    session = get_session(project, name)
    eff = effective_judgments(project, session)
    out = []
    for slot, rater, path in project.conn.execute(
            "SELECT slot, rater, path FROM rating_files WHERE session_id = ? ORDER BY rowid",
            (session.id,)):
        tasks, gold_tasks = project.conn.execute(
            "SELECT count(*), count(gold) FROM rating_tasks WHERE session_id = ? AND slot = ?",
            (session.id, slot)).fetchone()
        mine = [e for e in eff if e.slot == slot]
        gold = [e for e in mine if e.gold is not None]
        correct = sum(gold_correct(session.protocol, e.gold, e.answer, e.flag) for e in gold
                      if e.gold is not None)
        times = [e.time_ms / 1000 for e in mine]
        changed = project.conn.execute(
            "SELECT count(*) FROM rating_judgments j JOIN rating_tasks t ON t.session_id = "
            "j.session_id AND t.task_id = j.task_id WHERE j.session_id = ? AND t.slot = ? "
            "AND j.supersedes IS NOT NULL", (session.id, slot)).fetchone()[0]
        out.append(RaterSummary(
            slot, rater, tasks, len(mine), gold_tasks, len(gold), correct,
            statistics.median(times) if times else None,
            sum(1 for e in mine if e.flag), sum(1 for e in mine if e.penalty_ms > 0),
            changed, path))
    return out


def _models(project: Project, session: SessionRow) -> dict[str, tuple[str, bool]]:
    return {tok: (model, bool(deg)) for tok, model, deg in project.conn.execute(
        "SELECT token, model, degraded FROM rating_blinding WHERE session_id = ?",
        (session.id,))}


def _rater_names(project: Project, session: SessionRow) -> dict[str, str]:
    """slot -> rater name, disambiguated when one person rated several files."""
    rows = project.conn.execute("SELECT slot, rater FROM rating_files WHERE session_id = ?",
                                (session.id,)).fetchall()
    names = [r or s for s, r in rows]
    return {s: (n if names.count(n) == 1 else f"{n} ({s})") for (s, _), n in zip(rows, names,
                                                                                 strict=True)}


def _options(project: Project, session: SessionRow) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for tid, tok in project.conn.execute(
            "SELECT task_id, token FROM rating_blinding WHERE session_id = ? "
            "ORDER BY task_id, position", (session.id,)):
        out.setdefault(tid, []).append(tok)
    return out


def result_rows(project: Project, name: str,
                criterion: str | None = None) -> tuple[list[str], list[list[Any]]]:
    """Header and rows of the results CSV for session ``name`` (see module docs)."""
    session = get_session(project, name)
    proto = session.protocol
    eff = [e for e in effective_judgments(project, session) if e.gold is None and not e.flag]
    models = _models(project, session)
    raters = _rater_names(project, session)
    rows: list[list[Any]] = []
    if proto == "side_by_side":
        criteria = list(session.design.criteria)
        if criterion is None and len(criteria) > 1:
            raise ValueError(f"session {name!r} asked {len(criteria)} questions "
                             f"({', '.join(criteria)}): choose one with --criterion")
        criterion = criterion or criteria[0]
        if criterion not in criteria:
            raise ValueError(f"session {name!r} has no criterion {criterion!r} "
                             f"(it has {', '.join(criteria)})")
        options = _options(project, session)
        for e in sorted(eff, key=lambda e: (e.sample_id, e.slot, e.task_id)):
            if e.criterion != criterion:
                continue
            left, right = (models[t][0] for t in options[e.task_id])
            winner = {"left": "a", "right": "b", "tie": "tie"}[e.answer["winner"]]
            rows.append([left, right, winner, raters[e.slot], e.sample_id, criterion])
        return ["a", "b", "winner", "rater", "item", "criterion"], rows
    if proto == "ranking":
        for e in sorted(eff, key=lambda e: (raters[e.slot], e.sample_id)):
            for tok, rank in sorted(e.answer["ranks"].items(), key=lambda kv: models[kv[0]][0]):
                rows.append([raters[e.slot], e.sample_id, models[tok][0], rank])
        return ["rater", "item", "model", "rank"], rows
    options = _options(project, session)
    if proto == "likert":
        for e in sorted(eff, key=lambda e: (raters[e.slot], e.sample_id, e.task_id)):
            model = models[options[e.task_id][0]][0]
            for crit in LIKERT_CRITERIA:
                rows.append([raters[e.slot], e.sample_id, model, crit, e.answer[crit]])
        return ["rater", "unit", "model", "criterion", "value"], rows
    splits = dict(project.conn.execute("SELECT id, split FROM samples"))
    category = {"text-to-image": "T2I", "image-to-image": "I2I"}
    for e in sorted(eff, key=lambda e: (e.sample_id, raters[e.slot], e.task_id)):
        model = models[options[e.task_id][0]][0]
        cat = category.get(splits.get(e.sample_id) or "", "other")
        rows.append([model, cat, e.sample_id, e.sample_id,
                     *(e.answer[f"q{k}"] for k in range(1, 7))])
    return ["model", "category", "subtask", "case", "q1", "q2", "q3", "q4", "q5", "q6"], rows


def export_results(project: Project, name: str, out: str | Path,
                   criterion: str | None = None) -> int:
    """Write the results CSV atomically; returns the number of data rows.

    An existing file is replaced only if Winnow wrote it (:func:`export_writer`).
    """
    header, rows = result_rows(project, name, criterion)
    if not rows:
        raise ValueError(f"session {name!r} has no merged judgments to export yet "
                         "(merge the raters' files first)")
    with export_writer(Path(out), "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(safe_row(r) for r in rows)
    return len(rows)
