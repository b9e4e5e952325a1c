"""Gold tasks mixed into a session plan: automatic (a degraded copy) and marked (a known
answer), each planned as a unit that ``overlap`` raters share (ADR 184).

A gold task must not be told from a real one by a rater holding one file, nor by one
holding several (ADR 184, 191).  So an automatic gold unit shows a sample (ranking) or an
output (Likert, checklist) its raters do not see anywhere else in their files; where each
of them sees them all, the gold unit takes the place of one of their real units, with
the same raters (that unit is not rated for real).  Only when neither is possible does a
unit go to fewer than ``overlap`` raters, and only when nothing is free does a rater get
less gold than the rate asks.  Side-by-side gold pits an output against its own degraded
copy, which the pair itself shows; it is drawn as before.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any

from core.rating.design import (
    GOLD_UNIT,
    Catalog,
    Option,
    PlannedTask,
    SampleInfo,
    SessionDesign,
    _Tokens,
)
from core.rating.protocols import LIKERT_CRITERIA


def gold_count(n_real: int, design: SessionDesign) -> int:
    """How many gold tasks a rater with ``n_real`` real tasks gets."""
    if design.gold_mode == "none" or design.gold_rate <= 0 or n_real == 0:
        return 0
    return max(1, round(n_real * design.gold_rate / (1.0 - design.gold_rate)))


def add_gold(design: SessionDesign, catalog: Catalog, rng: random.Random, token: _Tokens,
             per_slot: list[list[PlannedTask]]) -> int:
    """Mix gold units into ``per_slot`` (changed in place); the number of real units they
    took the place of.  Each rater gets about ``gold_rate`` of their final list
    (:func:`gold_count`); filling a unit's last places may give a rater one more.  A
    rater without real tasks gets none."""
    if design.gold_mode == "none" or design.gold_rate <= 0:
        return 0
    eligible = [r for r, tasks in enumerate(per_slot) if tasks]
    shown = [{seen_as(design.protocol, t) for t in tasks} for tasks in per_slot]
    board = _Board(design, per_slot)
    k, replaced = 0, 0
    while eligible:
        needs = {r: board.need(r) for r in eligible}
        if max(needs.values()) <= 0:
            break
        order = sorted(eligible, key=lambda r: (-needs[r], rng.random()))
        if design.gold_mode == "marked":
            made = _marked_unit(design, catalog, rng, token, order[:design.overlap], k, shown)
            if made is None:
                break  # every known answer is used: fewer gold, no repeat
            k += 1
            if not made:
                continue
            board.place(made, None)
            continue
        found = _auto_unit(design, catalog, rng, token, order, k, board)
        if found is None:
            eligible.remove(order[0])  # nothing left this rater could be shown as gold
            continue
        made, instead = found
        k += 1
        replaced += instead is not None
        board.place(made, instead)
    return replaced


class _Board:
    """Who sees what: per rater, the samples (ranking) or outputs (Likert, checklist) their
    tasks show, their real and gold task counts, and the raters of each real unit (kept
    up to date, so that a plan of thousands of tasks is made in seconds)."""

    def __init__(self, design: SessionDesign, per_slot: list[list[PlannedTask]]) -> None:
        self.design, self.protocol, self.per_slot = design, design.protocol, per_slot
        self.seen: list[set[Hashable]] = [set() for _ in per_slot]
        self.used: set[Hashable] = set()
        self.real = [0] * len(per_slot)
        self.gold = [0] * len(per_slot)
        self._raters: dict[str, list[int]] = {}
        for slot, tasks in enumerate(per_slot):
            for task in tasks:
                self._note(task)
                if task.gold is None:
                    self.real[slot] += 1
                    self._raters.setdefault(task.unit, []).append(slot)
                else:
                    self.gold[slot] += 1

    def shows(self, task: PlannedTask) -> set[Hashable]:
        """What of ``task`` a rater would recognise elsewhere in their file."""
        if self.protocol == "ranking":
            return {task.sample_id}
        if self.protocol == "side_by_side":
            return set()
        return {(task.sample_id, o.model) for o in task.options}

    def _note(self, task: PlannedTask) -> None:
        looks = self.shows(task)
        self.seen[task.slot] |= looks
        self.used |= looks

    def real_units(self, slot: int) -> list[str]:
        """The real units of rater ``slot``, in plan order."""
        return [t.unit for t in self.per_slot[slot] if t.gold is None]

    def raters_of(self, unit: str) -> list[int]:
        """The raters of real unit ``unit``, in slot order."""
        return self._raters.get(unit, [])

    def may_give_way(self, unit: str) -> bool:
        """Whether gold may take real unit ``unit``'s place: each of its raters keeps a
        real task and gets at most one gold task more than the rate asks."""
        return all(self.real[r] >= 2 and gold_count(self.real[r] - 1, self.design)
                   >= self.gold[r] for r in self.raters_of(unit))

    def need(self, slot: int) -> int:
        """How many more gold tasks rater ``slot`` should get (negative: more than asked)."""
        return gold_count(self.real[slot], self.design) - self.gold[slot]

    def place(self, made: list[PlannedTask], instead: str | None) -> None:
        """Add gold tasks ``made``, each in place of its rater's task of real unit
        ``instead`` when one is given."""
        for task in made:
            tasks = self.per_slot[task.slot]
            if instead is not None:
                kept = [t for t in tasks if t.unit != instead]
                self.real[task.slot] -= len(tasks) - len(kept)
                tasks[:] = kept
            tasks.append(task)
            self.gold[task.slot] += 1
            self._note(task)
        if instead is not None:
            del self._raters[instead]


def _auto_unit(design: SessionDesign, catalog: Catalog, rng: random.Random, token: _Tokens,
               order: list[int], k: int, board: _Board
               ) -> tuple[list[PlannedTask], str | None] | None:
    """Gold unit ``k`` of an output against its degraded copy, for raters led by
    ``order[0]``, and the real unit it takes the place of (None: added); None when
    nothing can be shown to ``order[0]`` as gold without a tell."""
    proto = design.protocol
    crit = design.criteria[k % len(design.criteria)] if proto == "side_by_side" else None
    usable = [s for s in sorted(set(design.sample_ids)) if s in catalog.samples and
              len(_models(design, catalog.samples[s])) >= (2 if proto == "ranking" else 1)]
    if not usable:
        raise ValueError("no sample has the outputs needed to make gold tasks")
    unit = f"{GOLD_UNIT}{k}"
    if proto == "side_by_side":
        info = catalog.samples[rng.choice(usable)]
        models = _models(design, info)
        source = rng.choice(models)
        return [_auto_copy(proto, info, models, source, crit, unit, rng, token, r)
                for r in order[:design.overlap]], None
    choice = _free_choice(design, catalog, usable, order, board, rng)
    if choice is None:
        return None
    (sample, named), raters, instead = choice
    info = catalog.samples[sample]
    models = _models(design, info)
    picked = named if named is not None else rng.choice(models)
    return [_auto_copy(proto, info, models, picked, crit, unit, rng, token, r)
            for r in raters], instead


def _models(design: SessionDesign, info: SampleInfo) -> list[str]:
    return [m for m in sorted(set(design.models)) if m in info.outputs]


def _free_choice(design: SessionDesign, catalog: Catalog, usable: list[str],
                 order: list[int], board: _Board, rng: random.Random
                 ) -> tuple[tuple[str, str | None], list[int], str | None] | None:
    """What a ranking or Likert/checklist gold unit shows ((sample, source model or None
    for any)), its raters, and the real unit it replaces.  In turn: a sample/output no
    rater of the session sees, that ``overlap`` raters in ``order`` do not; one that
    ``overlap`` of them do not see; the lead rater's real unit whose raters all keep
    another real task, best one all of whose raters want more gold (replaced, same
    raters); one the lead alone does not see (fewer
    raters)."""
    lead, overlap = order[0], design.overlap
    if design.protocol == "ranking":
        candidates: list[tuple[str, str | None]] = [(s, None) for s in usable]
    else:
        candidates = [(s, m) for s in usable for m in _models(design, catalog.samples[s])]

    def key(c: tuple[str, str | None]) -> Hashable:
        return c[0] if c[1] is None else c

    open_to = [r for r in order if board.need(r) >= 0]  # none gets 2 more than asked

    def free(c: tuple[str, str | None]) -> list[int]:
        return [r for r in open_to if key(c) not in board.seen[r]]

    def has_room(c: tuple[str, str | None]) -> bool:  # len(free(c)) >= overlap, sooner
        look, room = key(c), 0
        for r in open_to:
            room += look not in board.seen[r]
            if room >= overlap:
                return True
        return False

    fresh = [c for c in candidates if key(c) not in board.seen[lead]]
    # one no rater sees is free for every rater open to more gold
    unused = [c for c in fresh if key(c) not in board.used] if len(open_to) >= overlap else []
    if unused:
        c = rng.choice(unused)
        return c, open_to[:overlap], None
    enough = [c for c in fresh if has_room(c)]
    # a ranking shows all of its sample's outputs but the copied one: on a sample others
    # rank as well, two files (one of each) show one prompt with two image sets, which
    # no real unit does; a real unit makes way first
    if enough and design.protocol != "ranking":
        c = rng.choice(enough)
        return c, free(c)[:overlap], None
    swaps = [u for u in dict.fromkeys(board.real_units(lead)) if board.may_give_way(u)]
    wanted = [u for u in swaps if all(board.need(r) > 0 for r in board.raters_of(u))]
    if swaps:
        unit = rng.choice(wanted or swaps)
        task = next(t for t in board.per_slot[lead] if t.unit == unit)
        c = (task.sample_id, None if design.protocol == "ranking" else task.options[0].model)
        return c, list(board.raters_of(unit)), unit
    if enough:  # ranking: a sample others rank too (two files tell it)
        c = rng.choice(enough)
        return c, free(c)[:overlap], None
    if fresh:
        c = rng.choice(fresh)
        return c, free(c), None
    return None
def _auto_copy(proto: str, info: SampleInfo, models: list[str], source: str,
               crit: str | None, unit: str, rng: random.Random, token: _Tokens,
               slot: int) -> PlannedTask:
    """One rater's task of an automatic gold unit (its own tokens and option order)."""
    bad = Option(token("o"), source, info.outputs[source], degraded=True)
    if proto == "side_by_side":
        opts = [Option(token("o"), source, info.outputs[source]), bad]
        rng.shuffle(opts)
        gold: dict[str, Any] = {"winner": "left" if opts[0] is not bad else "right"}
    elif proto == "ranking":  # every model once, one of them as its degraded copy
        others = [Option(token("o"), m, info.outputs[m]) for m in models if m != source]
        opts = [*others, bad]
        rng.shuffle(opts)
        gold = {"last": bad.token}
    elif proto == "likert":
        opts, gold = [bad], {"max": {"VQ": 2}}
    else:
        opts, gold = [bad], {"no": ["q6"]}
    return PlannedTask(token("t"), slot, 0, info.id, unit, crit, tuple(opts), gold)


def seen_as(protocol: str, task: PlannedTask) -> tuple[Any, ...]:
    """What a rater recognises a task by: a ranking by its sample (its prompt), any other
    task by its criterion and images.  Two tasks of one file alike mark one as gold."""
    if protocol == "ranking":
        return (task.sample_id,)
    return (task.criterion, frozenset((o.sha256, o.degraded) for o in task.options))


def marked_key(design: SessionDesign, item: dict[str, Any], j: int) -> str:
    """The real unit that known answer ``j`` shows (as :func:`core.rating.planning.units_of` names it)."""
    sid = str(item.get("sample", ""))
    if design.protocol == "ranking":
        return sid
    if design.protocol == "side_by_side":
        pair = sorted((str(item.get("better")), str(item.get("worse"))))
        return f"{sid}|{pair[0]}|{pair[1]}|{_marked_criterion(design, item, j)}"
    return f"{sid}|{item.get('model')}"


def _marked_criterion(design: SessionDesign, item: dict[str, Any], j: int) -> str | None:
    """A side-by-side known answer's criterion: its own, else the design's in turn."""
    if design.protocol != "side_by_side":
        return None
    return str(item.get("criterion") or design.criteria[j % len(design.criteria)])


def _marked_unit(design: SessionDesign, catalog: Catalog, rng: random.Random,
                 token: _Tokens, raters: list[int], k: int,
                 shown: list[set[tuple[Any, ...]]]) -> list[PlannedTask] | None:
    """Gold unit ``k``: known answer ``k`` (ADR 052), each used once, like a real unit,
    one task for each of ``raters``; None when every known answer is used, [] when this
    one repeats an earlier one.  Its real
    unit is not planned (:func:`plan_session`), so it shows nothing a rater sees
    elsewhere in their file (``shown``, updated)."""
    if k >= len(design.gold_items):
        return None
    item = design.gold_items[k]
    crit = _marked_criterion(design, item, k)
    copies = [_marked_gold(design, catalog, rng, token, r, item, crit, f"{GOLD_UNIT}{k}")
              for r in raters]
    looks = seen_as(design.protocol, copies[0])
    if any(looks in shown[r] for r in raters):
        return []  # the same known answer given twice: used once
    for r in raters:
        shown[r].add(looks)
    return copies


def _marked_gold(design: SessionDesign, catalog: Catalog, rng: random.Random, token: _Tokens,
                 slot: int, item: dict[str, Any], crit: str | None, unit: str) -> PlannedTask:
    sid = str(item.get("sample", ""))
    info = catalog.samples.get(sid)
    if info is None:
        raise ValueError(f"gold item for sample {sid!r}: no such sample with outputs")

    def opt(model: str) -> Option:
        if model not in info.outputs:
            raise ValueError(f"gold item for sample {sid!r}: no output of model {model!r}")
        return Option(token("o"), model, info.outputs[model])

    proto = design.protocol
    if proto in ("side_by_side", "ranking"):
        better, worse = opt(str(item.get("better"))), opt(str(item.get("worse")))
        if proto == "side_by_side":
            opts = [better, worse]
            rng.shuffle(opts)
            crit = item.get("criterion", crit)
            return PlannedTask(token("t"), slot, 0, sid, unit, crit, tuple(opts),
                               {"winner": "left" if opts[0] is better else "right"})
        rest = [opt(m) for m in sorted(set(design.models))
                if m in info.outputs and m not in (better.model, worse.model)]
        opts = [better, worse, *rest]
        rng.shuffle(opts)
        return PlannedTask(token("t"), slot, 0, sid, unit, None, tuple(opts),
                           {"better": better.token, "worse": worse.token})
    single = opt(str(item.get("model")))
    if proto == "likert":
        criterion = item.get("criterion", "VQ")
        if criterion not in LIKERT_CRITERIA:
            raise ValueError(f"gold item for sample {sid!r}: unknown criterion {criterion!r}")
        bound: dict[str, Any] = {k: {criterion: int(item[k])} for k in ("min", "max")
                                 if k in item}
        if not bound:
            raise ValueError(f"gold item for sample {sid!r}: give 'min' or 'max'")
        return PlannedTask(token("t"), slot, 0, sid, unit, None, (single,), bound)
    question = f"q{int(item.get('question', 6))}"
    value = int(item.get("value", 0))
    return PlannedTask(token("t"), slot, 0, sid, unit, None, (single,),
                       {"yes" if value else "no": [question]})
