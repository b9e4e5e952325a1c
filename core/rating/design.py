"""Session design and the seeded, reproducible plan of who rates what (pure functions).

:func:`core.rating.planning.plan_session` turns a :class:`SessionDesign` and a :class:`Catalog` of the
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
from dataclasses import asdict, dataclass, field
from typing import Any

from core.rating.protocols import CHECKLIST_QUESTIONS, CRITERIA, MAX_RANKED, PROTOCOLS

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
        if self.protocol == "ranking" and len(set(self.models)) > MAX_RANKED:
            raise ValueError(f"a ranking shows at most {MAX_RANKED} models (each is given its "
                             f"rank with one key, 1–{MAX_RANKED}), not "
                             f"{len(set(self.models))}; choose fewer models, or side-by-side")
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
