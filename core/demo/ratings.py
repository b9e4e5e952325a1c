"""A finished demo study: rating sessions answered by simulated raters (ADR 056).

:func:`add_demo_ratings` runs the real rating code paths on a demo project
(:func:`core.demo.create_demo_project`): it designs sessions
(:func:`core.rating.sessions.create_session`), writes one session file per rater
(:func:`~core.rating.sessions.write_session_files`), answers every task through
:class:`core.rating.session_file.RatingSession` exactly as the rater view does
(name typed once, append-only judgments with time on task, one "impossible to rank"
flag, one changed answer) and merges the returned files
(:func:`core.rating.merge.merge_files`).

The simulated raters perceive each output as a latent quality that follows how the
demo degraded it (lumen-edit close to the reference, brushwork-2 blurred, aurora-xl
yellow-tinted, pixelforge posterised) plus a per-output effect shared by all raters
and each rater's own noise, so they agree well but not perfectly.  The third rater is
sloppier: noisier, faster, and fails one gold task per session.  Everything is
seeded: the same ``seed`` gives the same plans and the same answers.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from core.jobs import JobState
from core.store.project import Project

#: latent quality on a free scale (higher = better), from how core.demo.sources made them
MODEL_QUALITY = {"lumen-edit": 1.0, "brushwork-2": 0.2, "aurora-xl": 0.1, "pixelforge": -0.9}
#: mean Likert ratings (IF, IC, VQ): the tint hurts consistency, blur and posterising quality
LIKERT_MEANS = {
    "lumen-edit": {"IF": 4.6, "IC": 4.5, "VQ": 4.4},
    "aurora-xl": {"IF": 4.0, "IC": 3.3, "VQ": 3.8},
    "brushwork-2": {"IF": 3.8, "IC": 3.8, "VQ": 3.2},
    "pixelforge": {"IF": 2.7, "IC": 2.4, "VQ": 1.8},
}
DEGRADED_QUALITY = -3.0   # a gold task's degraded copy: obviously the worst
ITEM_SD = 0.35            # per (sample, model) effect every rater sees
LIKERT_ITEM_SD = 0.45
LIKERT_NOISE = 1.1        # Likert noise = rater noise × this (a 1–5 scale)
PAIR_NOISE = 0.7          # two images side by side are easier to compare than four
TIE_MARGIN = 0.12         # side-by-side: closer than this reads as a tie

RANKING = "Demo ranking (ECHO)"
LIKERT = "Demo Likert (TECCI)"
SIDE_BY_SIDE = "Demo side-by-side"
#: (session, protocol, samples, overlap, gold rate, median seconds on task)
SESSIONS = ((RANKING, "ranking", 12, 3, 0.15, 18.0),
            (LIKERT, "likert", 8, 3, 0.1, 12.0),
            (SIDE_BY_SIDE, "side_by_side", 4, 2, 0.1, 9.0))
INSTRUCTIONS = {
    "ranking": "Rank the edited images from best (1) to worst. Judge how well each follows "
               "the prompt and how clean it looks. If two cannot be ordered fairly, press I.",
    "likert": "Rate each edit on instruction following, consistency and visual quality.",
    "side_by_side": "Pick the image you prefer; choose a tie only if they look equally good.",
}
FLAG_REASON = "Two of the outputs look the same to me at this size; I cannot order them fairly."


@dataclass(frozen=True)
class SimulatedRater:
    """How one simulated rater behaves."""

    name: str
    noise: float     # sd of their perception noise (quality units)
    bias: float      # Likert offset (a lenient or strict rater)
    pace: float      # multiplies the time on task
    sloppy: bool = False


RATERS = (SimulatedRater("Amara Osei", 0.32, 0.15, 1.0),
          SimulatedRater("Bruno Lindqvist", 0.34, -0.2, 1.2),
          SimulatedRater("Chen Wei", 0.75, 0.1, 0.65, sloppy=True))


def add_demo_ratings(project: Project, work_dir: Path, state: JobState,
                     seed: int = 0) -> dict[str, Any]:
    """Create, answer and merge the demo rating sessions; return a summary.

    ``work_dir`` receives the raters' ``*.winnow-session`` files (it must not hold
    files of an earlier run: session files are never overwritten).  Returns
    ``{"sessions": [{"name", "protocol", "samples", "raters", "tasks", "judgments",
    "files"}], "judgments": total}``.
    """
    from core.rating.design import SessionDesign
    from core.rating.merge import merge_files
    from core.rating.sessions import create_session, get_session, write_session_files

    models = _demo_models(project)
    picks = _pick_samples(project, models, seed)
    work_dir = Path(work_dir)
    state.set_total(None)
    summary: list[dict[str, Any]] = []
    # created in reverse, so the Rate workspace (newest first) lists the ranking on top
    for k, (name, protocol, _n, overlap, gold_rate, median_s) in reversed(list(
            enumerate(SESSIONS))):
        state.check()
        state.set_status(f"Demo ratings: {name}")
        design = SessionDesign(
            name=name, protocol=protocol, sample_ids=tuple(picks[k]), models=tuple(models),
            raters=len(RATERS), overlap=overlap, gold_rate=gold_rate, gold_mode="auto",
            min_time_s=3.0, penalty_s=5.0, criteria=("preference",),
            instructions=INSTRUCTIONS[protocol], seed=seed * 1000 + k)
        # a demo is rebuilt from its seed, secret included (ADR 058): not blind to anyone
        secret = hashlib.sha256(f"winnow-demo-ratings:{design.seed}".encode()).digest()
        create_session(project, design, state=state, secret=secret)
        files = write_session_files(project, name, work_dir, state=state)
        truth = _task_truth(project, get_session(project, name).id)
        for slot, path in enumerate(files):
            state.check()
            rng = random.Random(f"winnow-demo-rater:{seed}:{name}:{slot}")
            _rate_file(path, RATERS[slot], protocol, truth, seed, median_s, rng)
        results, errors = merge_files(project, list(files), state=state)
        if errors:
            raise RuntimeError(f"merging the demo session {name!r} failed: {'; '.join(errors)}")
        session = get_session(project, name)
        summary.append({"name": name, "protocol": protocol, "samples": len(picks[k]),
                        "raters": session.raters, "tasks": session.tasks,
                        "judgments": session.judgments, "files": [str(p) for p in files]})
    summary.reverse()
    return {"sessions": summary, "judgments": sum(s["judgments"] for s in summary)}


# -- what the demo offers ---------------------------------------------------------------------


def _demo_models(project: Project) -> list[str]:
    have = {r[0] for r in project.conn.execute("SELECT DISTINCT model FROM model_outputs")}
    missing = sorted(set(MODEL_QUALITY) - have)
    if missing:
        raise ValueError("demo ratings need the demo's model outputs; this project has no "
                         f"outputs of {', '.join(missing)}")
    return sorted(MODEL_QUALITY)


def _pick_samples(project: Project, models: list[str], seed: int) -> list[list[str]]:
    """Disjoint seeded picks of samples that have every model's output, one per session."""
    marks = ",".join("?" * len(models))
    eligible = [r[0] for r in project.conn.execute(
        f"SELECT sample_id FROM model_outputs WHERE model IN ({marks}) GROUP BY sample_id "
        f"HAVING count(DISTINCT model) = ? ORDER BY sample_id", (*models, len(models)))]
    need = sum(n for _, _, n, *_ in SESSIONS)
    if len(eligible) < need:
        raise ValueError(f"demo ratings need {need} samples with outputs of every demo model; "
                         f"this project has {len(eligible)}")
    random.Random(f"winnow-demo-samples:{seed}").shuffle(eligible)
    out, start = [], 0
    for _, _, n, *_ in SESSIONS:
        out.append(sorted(eligible[start:start + n]))
        start += n
    return out


@dataclass(frozen=True)
class _Truth:
    """What a simulated rater perceives of a task (from the project; never in the file)."""

    sample_id: str
    gold: bool
    options: dict[str, tuple[str, bool]]  # token -> (model, degraded copy)


def _task_truth(project: Project, session_id: int) -> dict[str, _Truth]:
    opts: dict[str, dict[str, tuple[str, bool]]] = {}
    for tid, tok, model, degraded in project.conn.execute(
            "SELECT task_id, token, model, degraded FROM rating_blinding WHERE session_id = ?",
            (session_id,)):
        opts.setdefault(tid, {})[tok] = (model, bool(degraded))
    return {tid: _Truth(sample, gold is not None, opts[tid]) for tid, sample, gold in
            project.conn.execute("SELECT task_id, sample_id, gold FROM rating_tasks "
                                 "WHERE session_id = ?", (session_id,))}


def _shared_effect(seed: int, *key: str) -> float:
    """The part of an output's quality every rater sees (seeded per output)."""
    return random.Random(f"winnow-demo-item:{seed}:{':'.join(key)}").gauss(0.0, 1.0)


def _quality(seed: int, sample: str, model: str, degraded: bool) -> float:
    if degraded:
        return DEGRADED_QUALITY
    return MODEL_QUALITY[model] + ITEM_SD * _shared_effect(seed, sample, model)


# -- one rater answering one file -----------------------------------------------------------


def _rate_file(path: Path, rater: SimulatedRater, protocol: str, truth: dict[str, _Truth],
               seed: int, median_s: float, rng: random.Random) -> None:
    """Answer every task of one session file through the rater view's API."""
    from core.rating.pacing import penalty_for
    from core.rating.rater_open import open_for_rating

    session = open_for_rating(path)
    try:
        # a real rater commits with synchronous=FULL; the demo is rebuilt, not recovered
        session.conn.execute("PRAGMA synchronous = NORMAL")
        session.set_rater(rater.name)
        gold_failed = not rater.sloppy
        flag_task = _flag_task(session, truth, seed) if rater is RATERS[0] else None
        change = rater is RATERS[1] and protocol == "ranking"  # once, from the 3rd task on
        answered = 0
        while (task := session.next_task()) is not None:
            t = truth[task.task_id]
            seconds = _time_on_task(rng, median_s * rater.pace * (0.7 if t.gold else 1.0))
            penalty = penalty_for(seconds, session.min_time_s, session.penalty_s)
            fail = t.gold and not gold_failed
            gold_failed = gold_failed or fail
            flag = reason = None
            if task.task_id == flag_task:
                answer, flag, reason = {}, "impossible", FLAG_REASON
            else:
                answer = _answer(protocol, task.options, t, rater, seed, rng, fail)
            first = answer
            if change and answered >= 2 and not t.gold and flag is None:
                first = _second_thoughts(answer)  # then "change my last answer"
                change = False
            judgment = session.submit(task.task_id, first, time_ms=round(seconds * 1000),
                                      penalty_ms=round(penalty * 1000), flag=flag,
                                      reason=reason or "", shown_at=_shown_at(seconds))
            if first is not answer:
                again = _time_on_task(rng, 6.0)
                session.submit(task.task_id, answer, time_ms=round(again * 1000),
                               shown_at=_shown_at(again), supersedes=judgment.uid)
            answered += 1
    finally:
        session.close()


def _flag_task(session: Any, truth: dict[str, _Truth], seed: int) -> str | None:
    """The ranking task whose best two outputs are closest: where a careful rater gives up."""
    if session.protocol != "ranking":
        return None
    best: tuple[float, str] | None = None
    for task in session.tasks:
        t = truth[task.task_id]
        if t.gold:
            continue
        q = sorted((_quality(seed, t.sample_id, *t.options[tok]) for tok, _ in task.options),
                   reverse=True)
        gap = q[0] - q[1]
        if best is None or gap < best[0]:
            best = (gap, task.task_id)
    return None if best is None else best[1]


def _time_on_task(rng: random.Random, median_s: float) -> float:
    """Seconds on a task: log-normal around ``median_s``, kept within 5–40 s."""
    return min(40.0, max(5.0, median_s * math.exp(rng.gauss(0.0, 0.35))))


def _shown_at(seconds: float) -> str:
    return (datetime.now(UTC) - timedelta(seconds=seconds)).isoformat(timespec="milliseconds")


def _second_thoughts(answer: dict[str, Any]) -> dict[str, Any]:
    """A first ranking with the top two swapped (then corrected)."""
    ranks = dict(answer["ranks"])
    one = next(tok for tok, r in ranks.items() if r == 1)
    two = next(tok for tok, r in ranks.items() if r == 2)
    ranks[one], ranks[two] = 2, 1
    return {"ranks": ranks}


def _answer(protocol: str, options: tuple[tuple[str, str], ...], t: _Truth,
            rater: SimulatedRater, seed: int, rng: random.Random, fail: bool) -> dict[str, Any]:
    """What this rater answers (``fail``: miss this gold task, as a hurried rater does)."""
    if protocol == "likert":
        return _likert(options[0][0], t, rater, seed, rng, fail)
    noise = rater.noise * (PAIR_NOISE if protocol == "side_by_side" else 1.0)
    seen = {tok: _quality(seed, t.sample_id, *t.options[tok]) + rng.gauss(0.0, noise)
            for tok, _ in options}
    if protocol == "ranking":
        order = sorted(seen, key=lambda tok: -seen[tok])
        if fail:  # the degraded copy ends up second to last
            bad = next(tok for tok in order if t.options[tok][1])
            k = order.index(bad)
            order[k - 1], order[k] = order[k], order[k - 1]
        return {"ranks": {tok: k + 1 for k, tok in enumerate(order)}}
    (left, _), (right, _) = options
    diff = seen[left] - seen[right]
    if fail:
        return {"winner": "tie"}
    if abs(diff) < TIE_MARGIN:
        return {"winner": "tie"}
    return {"winner": "left" if diff > 0 else "right"}


def _likert(token: str, t: _Truth, rater: SimulatedRater, seed: int, rng: random.Random,
            fail: bool) -> dict[str, Any]:
    model, degraded = t.options[token]
    out: dict[str, Any] = {}
    for crit, mean in LIKERT_MEANS[model].items():
        value = mean + LIKERT_ITEM_SD * _shared_effect(seed, t.sample_id, model, crit)
        if degraded:
            value = {"IF": mean - 1.0, "IC": mean - 1.5, "VQ": 1.2}[crit]
        value += rater.bias + rng.gauss(0.0, rater.noise * LIKERT_NOISE)
        out[crit] = min(5, max(1, round(value)))
    if degraded:  # the gold answer is VQ <= 2; a hurried rater misses the artefacts
        out["VQ"] = max(out["VQ"], 3) if fail else min(out["VQ"], 2)
    return out


def describe(summary: dict[str, Any]) -> str:
    """One line per session, for logs and the CLI."""
    return "\n".join(f"{s['name']}: {s['protocol']}, {s['samples']} samples, {s['raters']} "
                     f"raters, {s['tasks']} tasks, {s['judgments']} judgments merged"
                     for s in summary["sessions"])


__all__ = ["RATERS", "add_demo_ratings", "describe"]
