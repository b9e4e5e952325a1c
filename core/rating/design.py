"""Session design and the seeded, reproducible plan of who rates what (pure functions).

:func:`plan_session` turns a :class:`SessionDesign` and a :class:`Catalog` of the
samples' images into a :class:`Plan`: the tasks of every rater in order, each with
its options in display order (left/right for side-by-side), blinded tokens and, for
gold tasks, the known answer.  Every random choice comes from one
``random.Random`` seeded by the design's seed and the session's plan key, so the same
design, catalog and key give the same plan on any machine (string seeds are hashed
with SHA-512, independent of ``PYTHONHASHSEED``).  Tokens are HMACs of a counter under
the key, never drawn from the Mersenne Twister: a rater who knows the seed (0 by
default) and Winnow's code can neither replay the shuffles nor recover the generator's
state from the tokens in the file (ADR 052).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import random
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from core.rating.protocols import CHECKLIST_QUESTIONS, CRITERIA, LIKERT_CRITERIA, PROTOCOLS

GOLD_MODES = ("none", "auto", "marked")
#: Unit key prefix of a gold unit that ``overlap`` raters share (ADR 184); sessions made
#: before it have per-rater gold units "gold:<slot>:…", whose copies are seeded per task.
GOLD_UNIT = "gold-unit:"
#: Limits of a design, as the designer's dialog has them (raters: 100 there).
MAX_RATERS = 1000
MAX_MIN_TIME_S = 600.0
MAX_PENALTY_S = 120.0


@dataclass(frozen=True)
class SessionDesign:
    """Everything the designer chose; stored as JSON with the session."""

    name: str
    protocol: str
    sample_ids: tuple[str, ...]
    models: tuple[str, ...]
    raters: int = 3
    overlap: int = 1                      # raters per task
    tasks_per_rater: int | None = None    # None = all units, shared out
    gold_rate: float = 0.0                # fraction of each rater's tasks that are gold
    gold_mode: str = "auto"
    gold_items: tuple[dict[str, Any], ...] = ()  # designer-marked known answers
    min_time_s: float = 0.0
    penalty_s: float = 5.0
    allow_ties: bool = False              # ranking
    allow_tie: bool = True                # side-by-side
    criteria: tuple[str, ...] = ("preference",)
    questions: tuple[str, ...] = CHECKLIST_QUESTIONS
    instructions: str = ""
    seed: int = 0

    def validate(self) -> None:
        """Raise ValueError naming the first problem."""
        if not self.name.strip():
            raise ValueError("the session needs a name")
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"unknown protocol {self.protocol!r} "
                             f"(choose one of {', '.join(PROTOCOLS)})")
        if not self.sample_ids:
            raise ValueError("no samples selected")
        need = 2 if self.protocol in ("ranking", "side_by_side") else 1
        if len(set(self.models)) < need:
            raise ValueError(f"{self.protocol} needs at least {need} model(s)")
        if self.raters > MAX_RATERS:
            raise ValueError(f"a session has at most {MAX_RATERS:,} raters, not "
                             f"{self.raters:,}")
        if self.raters < 1 or not 1 <= self.overlap <= self.raters:
            raise ValueError("raters per task must be between 1 and the number of raters")
        if self.tasks_per_rater is not None and self.tasks_per_rater < 1:
            raise ValueError("tasks per rater must be at least 1")
        if not 0.0 <= self.gold_rate <= 0.5:
            raise ValueError("the gold rate must be between 0 and 0.5")
        if self.gold_mode not in GOLD_MODES:
            raise ValueError(f"gold mode must be one of {', '.join(GOLD_MODES)}")
        if self.gold_mode == "marked" and self.gold_rate > 0 and not self.gold_items:
            raise ValueError("gold mode 'marked' needs gold items with known answers")
        if self.min_time_s < 0 or self.penalty_s < 0:
            raise ValueError("times cannot be negative")
        if not 0 <= self.min_time_s <= MAX_MIN_TIME_S:  # NaN too
            raise ValueError(f"the minimum time per task must be from 0 to "
                             f"{MAX_MIN_TIME_S:g} seconds, not {self.min_time_s:g}")
        if not 0 <= self.penalty_s <= MAX_PENALTY_S:
            raise ValueError(f"the penalty delay must be from 0 to {MAX_PENALTY_S:g} "
                             f"seconds, not {self.penalty_s:g}")
        bad = [c for c in self.criteria if c not in CRITERIA]
        if self.protocol == "side_by_side" and (bad or not self.criteria):
            raise ValueError(f"unknown criterion {bad[0]!r}" if bad else "choose a criterion")
        if len(self.questions) != 6:
            raise ValueError("a checklist has exactly six questions")

    def to_json(self) -> dict[str, Any]:
        """JSON-able form (stored in the project)."""
        data = asdict(self)
        for key in ("sample_ids", "models", "criteria", "questions", "gold_items"):
            data[key] = list(data[key])
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SessionDesign:
        """Inverse of :meth:`to_json`."""
        data = dict(data)
        for key in ("sample_ids", "models", "criteria", "questions", "gold_items"):
            if key in data:
                data[key] = tuple(data[key])
        return cls(**data)


@dataclass(frozen=True)
class SampleInfo:
    """What a task needs of a sample: prompt, split, input images, model outputs."""

    id: str
    prompt: str
    split: str | None
    inputs: tuple[str, ...]
    outputs: dict[str, str]  # model -> sha256


@dataclass(frozen=True)
class Catalog:
    """The samples a design may use, by id."""

    samples: dict[str, SampleInfo]


@dataclass(frozen=True)
class Option:
    """One blinded output in a task.  ``degraded`` = a gold copy made worse on purpose."""

    token: str
    model: str
    sha256: str              # the original output (the degraded copy is derived from it)
    degraded: bool = False


@dataclass(frozen=True)
class PlannedTask:
    """One task of one rater."""

    task_id: str
    slot: int          # rater index, 0-based
    position: int      # 0-based order in the rater's file
    sample_id: str
    unit: str          # what several raters rate in common (gold: GOLD_UNIT + k)
    criterion: str | None
    options: tuple[Option, ...]
    gold: dict[str, Any] | None = None  # expected answer, in option tokens


@dataclass
class Plan:
    """All tasks of a session, and the units left out by the per-rater cap."""

    tasks: list[PlannedTask] = field(default_factory=list)
    raters: int = 0
    units_total: int = 0
    units_used: int = 0

    def for_slot(self, slot: int) -> list[PlannedTask]:
        """One rater's tasks in order."""
        return sorted((t for t in self.tasks if t.slot == slot), key=lambda t: t.position)


def slot_name(slot: int) -> str:
    """Rater slot label: R1, R2, ..."""
    return f"R{slot + 1}"


def _units(design: SessionDesign, catalog: Catalog) -> list[tuple[str, str, tuple[str, ...],
                                                                   str | None]]:
    """(unit key, sample, models, criterion) in a canonical order."""
    out: list[tuple[str, str, tuple[str, ...], str | None]] = []
    for sid in sorted(design.sample_ids):
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


class _Tokens:
    """Unique tokens ``<prefix><12 hex>``: HMAC-SHA256 of a counter under the plan key."""

    def __init__(self, key: bytes) -> None:
        self.key, self.count = key, 0
        self.used: set[str] = set()

    def __call__(self, prefix: str) -> str:
        while True:
            self.count += 1
            digest = hmac.new(self.key, f"token:{self.count}".encode(), hashlib.sha256)
            tok = f"{prefix}{digest.hexdigest()[:12]}"
            if tok not in self.used:
                self.used.add(tok)
                return tok


def plan_session(design: SessionDesign, catalog: Catalog, key: bytes = b"") -> Plan:
    """The seeded plan: units shared out to raters (``overlap`` each), gold mixed in,
    each rater's order shuffled, each task's option order shuffled.

    ``key`` is the session's plan key (:func:`core.rating.integrity.plan_key`); the
    project passes it so that the seed alone does not reveal the plan.
    """
    design.validate()
    rng = random.Random(f"winnow-rating:{design.seed}" + (f":{key.hex()}" if key else ""))
    token = _Tokens(key)
    units = _units(design, catalog)
    if not units:
        raise ValueError("no sample in the selection has outputs from enough of the chosen "
                         "models (import model outputs first)")
    if design.gold_mode == "marked" and design.gold_rate > 0:
        # a known answer is rated as a gold unit only: the same images shown as a real
        # unit too would appear in more files than any real unit does (ADR 184)
        known = {_marked_key(design, item, j) for j, item in enumerate(design.gold_items)}
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
    _add_gold(design, catalog, rng, token, per_slot)
    for r in range(design.raters):
        rng.shuffle(per_slot[r])
        plan.tasks.extend(replace(t, position=i) for i, t in enumerate(per_slot[r]))
    return plan


def _gold_count(n_real: int, design: SessionDesign) -> int:
    if design.gold_mode == "none" or design.gold_rate <= 0 or n_real == 0:
        return 0
    return max(1, round(n_real * design.gold_rate / (1.0 - design.gold_rate)))


def _add_gold(design: SessionDesign, catalog: Catalog, rng: random.Random, token: _Tokens,
              per_slot: list[list[PlannedTask]]) -> None:
    """Gold units mixed into ``per_slot``, each given to ``overlap`` raters like a real
    unit (the same images in each of their files), so that comparing rater files tells
    gold from real tasks no more than one file does (ADR 184).  Each rater gets about
    ``gold_rate`` of their final list (:func:`_gold_count`); filling a unit's last places
    may give a rater one more.  A rater without real tasks gets none."""
    if design.gold_mode == "none" or design.gold_rate <= 0:
        return
    need = [_gold_count(len(tasks), design) for tasks in per_slot]
    eligible = [r for r, tasks in enumerate(per_slot) if tasks]
    seen = [{t.sample_id for t in tasks} for tasks in per_slot]
    shown = [{_seen_as(design.protocol, t) for t in tasks} for tasks in per_slot]
    used = {t.sample_id for tasks in per_slot for t in tasks}
    k = 0
    while any(need[r] > 0 for r in eligible):
        order = sorted(eligible, key=lambda r: (-need[r], rng.random()))
        made = (_marked_unit(design, catalog, rng, token, order[:design.overlap], k, shown)
                if design.gold_mode == "marked" else
                _auto_unit(design, catalog, rng, token, order, k, seen, used))
        if made is None:
            break  # every known answer is used: fewer gold, no repeat
        k += 1
        if not made:
            continue
        for task in made:
            per_slot[task.slot].append(task)
            need[task.slot] -= 1
            seen[task.slot].add(task.sample_id)
        used.add(made[0].sample_id)


def _auto_unit(design: SessionDesign, catalog: Catalog, rng: random.Random, token: _Tokens,
               order: list[int], k: int, seen: list[set[str]],
               used: set[str]) -> list[PlannedTask]:
    """Gold unit ``k`` of an output against its degraded copy: one task for each of the
    first ``overlap`` raters of ``order`` (in a ranking, of those who do not rank its
    sample otherwise)."""
    proto = design.protocol
    crit = design.criteria[k % len(design.criteria)] if proto == "side_by_side" else None
    usable = [s for s in sorted(design.sample_ids) if s in catalog.samples and
              len([m for m in design.models if m in catalog.samples[s].outputs])
              >= (2 if proto == "ranking" else 1)]
    if not usable:
        raise ValueError("no sample has the outputs needed to make gold tasks")
    raters = order[:design.overlap]
    if proto == "ranking":
        sample, raters = _ranking_gold_sample(usable, order, seen, used, design.overlap, rng)
        info = catalog.samples[sample]
    else:
        info = catalog.samples[rng.choice(usable)]
    models = [m for m in sorted(set(design.models)) if m in info.outputs]
    source = rng.choice(models)
    unit = f"{GOLD_UNIT}{k}"
    return [_auto_copy(proto, info, models, source, crit, unit, rng, token, r) for r in raters]


def _ranking_gold_sample(usable: list[str], order: list[int], seen: list[set[str]],
                         used: set[str], overlap: int,
                         rng: random.Random) -> tuple[str, list[int]]:
    """A ranking gold unit's sample and raters: a ranking shows each sample once, so a
    sample the first rater of ``order`` does not rank, that ``overlap`` raters do not
    rank (taken in ``order``), best one no task of the session shows yet (``used``)."""
    def free(sample: str) -> list[int]:
        return [r for r in order if sample not in seen[r]]

    lead = order[0]
    fresh = [s for s in usable if s not in seen[lead]]
    enough = [s for s in fresh if len(free(s)) >= overlap]
    tiers = ([s for s in enough if s not in used], enough, fresh, usable)
    sample = rng.choice(next(tier for tier in tiers if tier))
    return sample, free(sample)[:overlap] or order[:overlap]


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


def _seen_as(protocol: str, task: PlannedTask) -> tuple[Any, ...]:
    """What a rater recognises a task by: a ranking by its sample (its prompt), any other
    task by its criterion and images.  Two tasks of one file alike mark one as gold."""
    if protocol == "ranking":
        return (task.sample_id,)
    return (task.criterion, frozenset((o.sha256, o.degraded) for o in task.options))


def _marked_key(design: SessionDesign, item: dict[str, Any], j: int) -> str:
    """The real unit that known answer ``j`` shows (as :func:`_units` names it)."""
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
    looks = _seen_as(design.protocol, copies[0])
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


def gold_correct(protocol: str, gold: dict[str, Any], answer: dict[str, Any],
                 flag: str | None) -> bool:
    """Whether a judgment matches a gold task's known answer (a flag never does)."""
    if flag is not None:
        return False
    if protocol == "side_by_side":
        return answer.get("winner") == gold.get("winner")
    if protocol == "ranking":
        ranks = answer.get("ranks", {})
        if "last" in gold:
            worst = ranks.get(gold["last"])
            return worst is not None and all(v < worst for t, v in ranks.items()
                                             if t != gold["last"])
        return bool(ranks.get(gold["better"], 99) < ranks.get(gold["worse"], -1))
    if protocol == "likert":
        ok = all(answer.get(c, 0) >= v for c, v in gold.get("min", {}).items())
        return ok and all(answer.get(c, 99) <= v for c, v in gold.get("max", {}).items())
    return (all(answer.get(q) == 0 for q in gold.get("no", []))
            and all(answer.get(q) == 1 for q in gold.get("yes", [])))
