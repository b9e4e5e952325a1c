"""The four rating protocols (SPEC §5): their questions, answers and validation.

Answers are plain JSON-able dicts, checked here so the rater view, the session file
and the merge all agree on what a complete answer is:

- ``ranking`` (ECHO): ``{"ranks": {option_token: rank}}``, 1 = best; equal ranks tie
  (only when the session allows ties).
- ``likert`` (TECCI): ``{"valid": True, "IF": 1..5, "IC": 1..5, "VQ": 1..5}``; an
  invalid instruction is ``{"valid": False}`` with the flag ``invalid`` and a reason.
- ``side_by_side`` (TECCI, Rapidata): ``{"winner": "left" | "right" | "tie"}``.
- ``checklist`` (IDEA-Bench): ``{"q1": 0|1, ..., "q6": 0|1}``.

A flagged judgment (``impossible`` for rankings, ``invalid`` for Likert) carries a
non-empty reason and no scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PROTOCOLS = ("ranking", "likert", "side_by_side", "checklist")
PROTOCOL_TITLES = {
    "ranking": "Full ranking (ECHO)",
    "likert": "Single-sided Likert 1–5 (TECCI)",
    "side_by_side": "Side-by-side (TECCI, Rapidata)",
    "checklist": "Checklist, six yes/no questions (IDEA-Bench)",
}

#: Side-by-side criterion -> the question shown at the top of the task.
CRITERIA = {
    "preference": "Which image do you prefer?",
    "coherence": "Which image is more plausible to exist and has fewer odd or "
                 "impossible-looking things?",
    "alignment": "Which image better reflects the prompt shown above them?",
    "overall": "Overall, which edit is better?",
}
#: Criteria for which the prompt is shown (Rapidata shows it only for alignment).
PROMPT_CRITERIA = {"alignment", "overall"}

LIKERT_CRITERIA = ("IF", "IC", "VQ")
LIKERT_TITLES = {
    "IF": "Instruction following: were all requested changes made?",
    "IC": "Image consistency: is everything not asked for left unchanged?",
    "VQ": "Visual quality: free of artefacts, blur, unnatural blending?",
}
LIKERT_ANCHORS = {1: "Not at all", 2: "Slightly", 3: "Moderately", 4: "Mostly", 5: "Completely"}
VALIDITY_QUESTION = ("Is the instruction valid: relevant to the source image, feasible, "
                     "and appropriate?")

#: IDEA-Bench default questions, levels (1–2) task understanding, (3–4) completion
#: quality, (5–6) detail and aesthetics.  A designer may replace them per session.
CHECKLIST_QUESTIONS = (
    "Does the output address the task the prompt asks for?",
    "Is the required subject (or input content) present?",
    "Is the requested change or content carried out correctly?",
    "Is the result complete, with nothing requested missing?",
    "Are details (text, hands, edges, small objects) rendered cleanly?",
    "Is the image aesthetically pleasing, free of visible artefacts?",
)
CHECKLIST_LEVELS = ("Task understanding", "Completion quality", "Detail and aesthetics")

FLAGS = {"ranking": "impossible", "likert": "invalid"}
#: most outputs a ranking session shows in a task: the rater gives each its rank with
#: one key, 1–9 (ADR 204); Kemeny-Young is exact up to 9 as well
MAX_RANKED = 9
#: outputs per task the rater view can show (rankings made before ADR 204 had up to 10;
#: the rater ranks the tenth by dragging its card)
SHOWN_OPTIONS = {"ranking": (2, 10), "side_by_side": (2, 2), "likert": (1, 1),
                 "checklist": (1, 1)}


class AnswerError(ValueError):
    """An answer is incomplete or malformed for its task."""


@dataclass(frozen=True)
class TaskView:
    """What a rater sees of one task (read from the session file; no model names)."""

    task_id: str
    position: int
    protocol: str
    prompt: str
    criterion: str | None
    inputs: tuple[str, ...]             # sha256 of input images
    options: tuple[tuple[str, str], ...]  # (blinded option token, image sha256), shown order

    @property
    def image_shas(self) -> list[str]:
        """Every image the task shows: its inputs, then its options in shown order."""
        return [*self.inputs, *(sha for _, sha in self.options)]

    @property
    def question(self) -> str:
        """The question shown above the images."""
        if self.protocol == "side_by_side":
            return CRITERIA.get(self.criterion or "preference", CRITERIA["preference"])
        if self.protocol == "ranking":
            return "Rank the outputs from best (1) to worst."
        if self.protocol == "likert":
            return VALIDITY_QUESTION
        return "Answer each question yes or no."

    @property
    def shows_prompt(self) -> bool:
        """Side-by-side hides the prompt except for alignment/overall (Rapidata §2.1.1)."""
        return self.protocol != "side_by_side" or (self.criterion in PROMPT_CRITERIA)


def task_shape_problem(task: TaskView) -> str | None:
    """Why the rater view cannot show ``task`` (too many or too few outputs, options or
    inputs that are not image references), or None.  Only a file edited outside Winnow
    has such a task: the rater view showed it with a traceback, or crashed."""
    lo, hi = SHOWN_OPTIONS[task.protocol]
    n = len(task.options)
    if not lo <= n <= hi:
        shown = f"{lo}" if lo == hi else f"{lo} to {hi}"
        return f"task {task.position + 1} has {n} output(s), where a {task.protocol} task " \
               f"shows {shown}"
    refs = [*task.inputs, *(x for option in task.options for x in option)]
    if any(len(option) != 2 for option in task.options) or \
            not all(isinstance(x, str) for x in refs):
        return f"task {task.position + 1} has options or inputs that are not image references"
    return None


def validate_answer(protocol: str, options: tuple[tuple[str, str], ...], answer: dict[str, Any],
                    *, flag: str | None = None, reason: str = "",
                    allow_ties: bool = False, allow_tie: bool = True) -> dict[str, Any]:
    """Check ``answer`` for a task with these ``options``; return a normalised copy.

    Raises :class:`AnswerError` naming what is missing or wrong.
    """
    if protocol not in PROTOCOLS:
        raise AnswerError(f"unknown protocol {protocol!r}")
    if flag is not None:
        if flag != FLAGS.get(protocol):
            raise AnswerError(f"flag {flag!r} does not apply to {protocol}")
        if not reason.strip():
            raise AnswerError("a flag needs a reason")
        return {"valid": False} if protocol == "likert" else {}
    if not isinstance(answer, dict):
        raise AnswerError("an answer must be an object")
    if protocol == "ranking":
        return {"ranks": _ranks(options, answer.get("ranks"), allow_ties)}
    if protocol == "likert":
        out: dict[str, Any] = {"valid": True}
        for crit in LIKERT_CRITERIA:
            value = answer.get(crit)
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 5:
                raise AnswerError(f"{crit} needs a rating from 1 to 5, got {value!r}")
            out[crit] = value
        return out
    if protocol == "side_by_side":
        winner = answer.get("winner")
        allowed = ("left", "right", "tie") if allow_tie else ("left", "right")
        if winner not in allowed:
            raise AnswerError(f"winner must be one of {', '.join(allowed)}, got {winner!r}")
        return {"winner": winner}
    out = {}
    for k in range(1, 7):
        value = answer.get(f"q{k}")
        if value not in (0, 1) or isinstance(value, bool):
            raise AnswerError(f"question {k} needs yes (1) or no (0), got {value!r}")
        out[f"q{k}"] = int(value)
    return out


def _ranks(options: tuple[tuple[str, str], ...], ranks: Any, allow_ties: bool) -> dict[str, int]:
    tokens = [tok for tok, _ in options]
    if not isinstance(ranks, dict) or set(ranks) != set(tokens):
        raise AnswerError("every output needs a rank")
    values = list(ranks.values())
    n = len(tokens)
    if any(not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= n for v in values):
        raise AnswerError(f"ranks must be whole numbers from 1 to {n}")
    if not allow_ties and len(set(values)) != n:
        raise AnswerError("ties are not allowed in this session: give each output its own rank")
    # normalise to competition ranks (1, 1, 3): what matters is the order
    return {tok: 1 + sum(1 for w in values if w < ranks[tok]) for tok in tokens}
