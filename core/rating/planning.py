"""The seeded plan of who rates what: :func:`plan_session` (pure functions).

The units of a design (:func:`units_of`) are shared out to raters, ``overlap`` each,
gold is mixed in (:mod:`core.rating.gold_plan`), and every rater's order and every
task's option order is shuffled; see :mod:`core.rating.design` for the types and how the
randomness is seeded.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

from core.rating.design import Catalog, Option, Plan, PlannedTask, SessionDesign, _Tokens
from core.rating.gold_plan import add_gold, marked_key


def units_of(design: SessionDesign, catalog: Catalog) -> list[tuple[str, str, tuple[str, ...],
                                                                   str | None]]:
    """(unit key, sample, models, criterion) in a canonical order."""
    out: list[tuple[str, str, tuple[str, ...], str | None]] = []
    for sid in sorted(set(design.sample_ids)):  # a sample selected twice is one unit
        info = catalog.samples.get(sid)
        if info is None:
            continue
        models = tuple(m for m in sorted(set(design.models)) if m in info.outputs)
        if design.protocol == "ranking":
            if len(models) >= 2:
                out.append((sid, sid, models, None))
        elif design.protocol == "side_by_side":
            for a, b in itertools.combinations(models, 2):
                for crit in design.criteria:
                    out.append((f"{sid}|{a}|{b}|{crit}", sid, (a, b), crit))
        else:
            for m in models:
                out.append((f"{sid}|{m}", sid, (m,), None))
    return out



def plan_session(design: SessionDesign, catalog: Catalog, key: bytes = b"") -> Plan:
    """The seeded plan: units shared out to raters (``overlap`` each), gold mixed in,
    each rater's order shuffled, each task's option order shuffled.

    ``key`` is the session's plan key (:func:`core.rating.integrity.plan_key`); the
    project passes it so that the seed alone does not reveal the plan.
    """
    design.validate()
    rng = random.Random(f"winnow-rating:{design.seed}" + (f":{key.hex()}" if key else ""))
    token = _Tokens(key)
    units = units_of(design, catalog)
    if not units:
        raise ValueError("no sample in the selection has outputs from enough of the chosen "
                         "models (import model outputs first)")
    if design.gold_mode == "marked" and design.gold_rate > 0:
        # a known answer is rated as a gold unit only: the same images shown as a real
        # unit too would appear in more files than any real unit does (ADR 184)
        known = {marked_key(design, item, j) for j, item in enumerate(design.gold_items)}
        units = [u for u in units if u[0] not in known]
        if not units:
            raise ValueError("every task of the selection is a known answer: select more "
                             "samples or models to rate")
    plan = Plan(raters=design.raters, units_total=len(units))
    rng.shuffle(units)
    if design.tasks_per_rater is not None:
        units = units[:max(1, design.raters * design.tasks_per_rater // design.overlap)]
    plan.units_used = len(units)
    per_slot: list[list[PlannedTask]] = [[] for _ in range(design.raters)]
    load = [0] * design.raters
    for unit, sid, models, crit in units:
        order = sorted(range(design.raters), key=lambda r: (load[r], rng.random()))
        for r in order[:design.overlap]:
            load[r] += 1
            opts = [Option(token("o"), m, catalog.samples[sid].outputs[m]) for m in models]
            rng.shuffle(opts)
            per_slot[r].append(PlannedTask(token("t"), r, 0, sid, unit, crit, tuple(opts)))
    idle = sum(1 for tasks in per_slot if not tasks)
    if idle:
        raise ValueError(
            f"{idle:,} of the {design.raters:,} raters would get no task: "
            f"{len(units):,} task(s) to rate × {design.overlap} rater(s) each fill "
            f"{len(units) * design.overlap:,} place(s); choose fewer raters, more samples "
            "or models, or more raters per task")
    plan.units_used -= add_gold(design, catalog, rng, token, per_slot)
    for r in range(design.raters):
        rng.shuffle(per_slot[r])
        plan.tasks.extend(replace(t, position=i) for i, t in enumerate(per_slot[r]))
    return plan
