"""The statistics CSV formats (SPEC §6): one reader per kind of file, on top of
:class:`core.stats.csvcolumns.CsvColumns` (which parses and words the errors).

Row numbers in messages are the file's line numbers (the header is row 1).  Any problem
raises :class:`CsvFormatError` (a :class:`ValueError`), e.g.
``VOTES.csv row 7, column 'winner': expected one of a, b, tie, got 'x'``.  A reader for
another format (battle JSON…) sits beside these and returns the same types.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.stats.csvcolumns import CsvColumns, CsvFormatError
from core.stats.rankings import RankingTable
from core.stats.success import LikertMeans, likert_means
from core.stats.votes import MAX_MODELS, WINNER_CODES, Votes

_BOOL = {"0": 0.0, "1": 1.0, "no": 0.0, "yes": 1.0, "false": 0.0, "true": 1.0}
IDEA_QUESTIONS = tuple(f"q{i}" for i in range(1, 7))
#: TECCI's Likert criteria (instruction following, image consistency, visual quality).
LIKERT_CRITERIA = ("IF", "IC", "VQ")
LIKERT_RANGE = (1.0, 5.0)
#: Most cells of the dense arrays a statistic builds from a file's labels (raters ×
#: items × models, …): 50 million float64 = 400 MB. Larger inputs are refused before
#: anything that size is allocated.
MAX_CELLS = 50_000_000


def _require_dense(t: CsvColumns, **sizes: int) -> None:
    """Refuse label counts whose dense product exceeds :data:`MAX_CELLS`, and more
    models than the pairwise statistics handle, before anything is allocated."""
    models = sizes.get("models", 0)
    if models > MAX_MODELS:
        raise CsvFormatError(
            f"{t.name}: {models:,} distinct models is more than the {MAX_MODELS:,} "
            "the statistics handle (K × K matrices); check the model column"
        )
    total = 1
    for n in sizes.values():
        total *= max(1, n)
    if total > MAX_CELLS:
        dims = " × ".join(f"{n:,} {what}" for what, n in sizes.items())
        raise CsvFormatError(
            f"{t.name}: {dims} = {total:,} combinations is more than the "
            f"{MAX_CELLS:,} this statistic can hold in memory; split the file"
        )



def _index(values: list[str]) -> tuple[tuple[str, ...], np.ndarray]:
    labels = tuple(sorted(set(values)))
    pos = {v: i for i, v in enumerate(labels)}
    return labels, np.fromiter(map(pos.__getitem__, values), dtype=np.int64, count=len(values))


def read_votes(path: str | Path) -> Votes:
    """``a,b,winner`` with winner in ``a | b | tie`` → :class:`Votes` (models sorted)."""
    t = CsvColumns(path, ("a", "b", "winner"))
    t.require_rows("votes")
    try:
        winner = t.codes("winner", {k: float(v) for k, v in WINNER_CODES.items()},
                         "one of a, b, tie")
    except CsvFormatError as exc:
        raise _winner_named(t, exc) from None
    models, ai, bi = model_pair_codes(t, "a", "b")
    return Votes(models, ai, bi, winner.astype(np.int8))


def _winner_named(t: CsvColumns, exc: CsvFormatError) -> CsvFormatError:
    """A spreadsheet's winner column often holds the winning model's *name*: say so."""
    winner, a, b = (t.columns[c] for c in ("winner", "a", "b"))
    k = next(i for i, w in enumerate(winner) if w.lower() not in WINNER_CODES)
    if winner[k] in (a[k], b[k]):
        return CsvFormatError(f"{exc}: that is the winner's name; write a or b (the side "
                              "that won) or tie")
    return exc


def model_pair_codes(
    t: CsvColumns, col_a: str, col_b: str
) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """Models sorted by name and each row's two codes into them; too many models, or a
    row of a model against itself (ADR 018), rejects the file naming it."""
    a_names, a_codes = t.categories(col_a)
    b_names, b_codes = t.categories(col_b)
    t.one_spelling((col_a, col_b))
    models = tuple(sorted(set(a_names) | set(b_names)))
    _require_dense(t, models=len(models))
    pos = {m: i for i, m in enumerate(models)}
    ai = np.array([pos[m] for m in a_names], dtype=np.int64)[a_codes]
    bi = np.array([pos[m] for m in b_names], dtype=np.int64)[b_codes]
    same = np.flatnonzero(ai == bi)
    if same.size:
        k = int(same[0])
        raise t.error(k, col_b, f"the same model as column '{col_a}' ({models[ai[k]]!r})")
    return models, ai, bi


@dataclass(frozen=True)
class ScoreRecords:
    sample: list[str]
    model: list[str]
    score: list[float]
    judge: list[str] | None


def read_scores(path: str | Path) -> ScoreRecords:
    """``sample,model,score[,judge]`` (one score per sample, model and judge)."""
    t = CsvColumns(path, ("sample", "model", "score"), ("judge",))
    t.require_rows("scores")
    sample, model = t.text("sample"), t.text("model")
    judge = t.text("judge") if t.has("judge") else None
    score = t.numbers("score")
    _require_dense(t, judges=len(set(judge)) if judge else 1, samples=len(set(sample)),
                    models=len(set(model)))
    if judge is None:
        t.unique(
            list(zip(sample, model, strict=True)),
            lambda k: f"a score for sample {k[0]!r}, model {k[1]!r}",
        )
    else:
        t.unique(
            list(zip(sample, model, judge, strict=True)),
            lambda k: f"a score for sample {k[0]!r}, model {k[1]!r}, judge {k[2]!r}",
        )
    return ScoreRecords(sample, model, score.tolist(), judge)


def read_rankings(path: str | Path) -> RankingTable:
    """``rater,item,model,rank`` (1 = best, equal ranks tie) → :class:`RankingTable`."""
    t = CsvColumns(path, ("rater", "item", "model", "rank"))
    t.require_rows("rankings")
    rater, item, model = t.text("rater"), t.text("item"), t.text("model")
    rank = t.numbers("rank", positive=True)
    t.unique(
        list(zip(rater, item, model, strict=True)),
        lambda k: f"a rank by {k[0]!r} for {k[2]!r} on item {k[1]!r}",
    )
    raters, ri = _index(rater)
    items, ii = _index(item)
    models, mi = _index(model)
    _require_dense(t, raters=len(raters), items=len(items), models=len(models))
    ranks = np.full((len(raters), len(items), len(models)), np.nan)
    ranks[ri, ii, mi] = rank
    return RankingTable(raters, items, models, ranks)


@dataclass(frozen=True)
class RatingRecords:
    rater: list[str]
    unit: list[str]
    value: list[float]


def read_ratings(path: str | Path, level: str = "interval") -> RatingRecords:
    """``rater,unit,value``; nominal values may be any labels (coded in sorted order)."""
    t = CsvColumns(path, ("rater", "unit", "value"))
    t.require_rows("ratings")
    rater, unit = t.text("rater"), t.text("unit")
    _require_dense(t, raters=len(set(rater)), units=len(set(unit)))
    t.unique(
        list(zip(rater, unit, strict=True)), lambda k: f"a rating by {k[0]!r} of unit {k[1]!r}"
    )
    if level == "nominal":
        _, codes = _index(t.text("value"))
        values = codes.astype(float)
    else:
        values = t.numbers("value", non_negative=level == "ratio")
    return RatingRecords(rater, unit, values.tolist())


def read_likert(path: str | Path) -> LikertMeans:
    """``rater,unit,model,criterion,value`` → mean ratings over raters.

    Criteria are TECCI's IF, IC and VQ (any case; reported upper-case) and values are
    ratings from 1 to 5.
    """
    t = CsvColumns(path, ("rater", "unit", "model", "criterion", "value"))
    t.require_rows("ratings")
    cols = [t.text(c) for c in ("rater", "unit", "model")]
    upper = [c.upper() for c in t.text("criterion")]
    unknown = set(upper) - set(LIKERT_CRITERIA)
    if unknown:
        k = min(upper.index(u) for u in unknown)
        got = t.columns["criterion"][k]
        if got.lower() == "overall":
            raise t.error(k, "criterion", "'overall' is reserved for the combined rate")
        raise t.error(k, "criterion", f"expected one of {', '.join(LIKERT_CRITERIA)} "
                                      f"(TECCI's criteria), got {got!r}")
    cols.append(upper)
    value = t.numbers("value")
    lo, hi = LIKERT_RANGE
    outside = np.flatnonzero((value < lo) | (value > hi))
    if outside.size:
        k = int(outside[0])
        raise t.error(k, "value", f"expected a rating from {lo:g} to {hi:g}, "
                                  f"got {t.columns['value'][k]!r}")
    _require_dense(t, models=len(set(cols[2])), units=len(set(cols[1])), criteria=len(set(upper)))
    t.unique(
        list(zip(*cols, strict=True)),
        lambda k: f"a rating by {k[0]!r} of unit {k[1]!r}, model {k[2]!r}, criterion {k[3]!r}",
    )
    return likert_means(cols[0], cols[1], cols[2], cols[3], value)


@dataclass(frozen=True)
class ChecklistRecords:
    model: list[str]
    category: list[str]
    subtask: list[str]
    case: list[str]
    answers: np.ndarray  # (N, 6)


def read_checklist(path: str | Path) -> ChecklistRecords:
    """``model,category,subtask,case,q1..q6`` (answers 0/1; repeated rows are averaged; a
    category may not be called "overall", the key of the overall score)."""
    t = CsvColumns(path, ("model", "category", "subtask", "case", *IDEA_QUESTIONS))
    t.require_rows("cases")
    names = [t.text(c) for c in ("model", "category", "subtask", "case")]
    reserved = [k for k, c in enumerate(names[1]) if c.lower() == "overall"]
    if reserved:  # its percentage would share the result's "overall" key
        raise t.error(reserved[0], "category", "'overall' is reserved for the overall score")
    _require_dense(t, models=len(set(names[0])),
                    cases=len(set(zip(names[1], names[2], names[3], strict=True))))
    answers = np.stack([t.codes(q, _BOOL, "0 or 1") for q in IDEA_QUESTIONS], axis=1)
    return ChecklistRecords(names[0], names[1], names[2], names[3], answers)
