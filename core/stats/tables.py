"""Reading the statistics CSV files into arrays, with errors that name row and column.

Every file has a header row (column names are matched case-insensitively, extra
columns are ignored) and is read with the stdlib ``csv`` module as UTF-8 (a BOM is
accepted).  Row numbers in messages are the file's line numbers (the header is row 1).
Any problem raises :class:`CsvFormatError` (a :class:`ValueError`), e.g.
``VOTES.csv row 7, column 'winner': expected one of a, b, tie, got 'x'``.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.stats.rankings import RankingTable
from core.stats.success import LikertMeans, likert_means
from core.stats.votes import WINNER_CODES, Votes

_BOOL = {"0": 0.0, "1": 1.0, "no": 0.0, "yes": 1.0, "false": 0.0, "true": 1.0}
IDEA_QUESTIONS = tuple(f"q{i}" for i in range(1, 7))


class CsvFormatError(ValueError):
    """A statistics CSV file is malformed; the message names the file, row and column."""


@dataclass(frozen=True)
class Row:
    """One data row: its line number and its values by (lower-case) column name."""

    line: int
    values: dict[str, str]


class CsvReader:
    """Iterate the rows of a CSV file, checking the header and the field counts."""

    def __init__(self, path: str | Path, required: Sequence[str], optional: Sequence[str] = ()):
        self.path = Path(path)
        self.name = self.path.name
        self.required = tuple(required)
        self.optional = tuple(optional)

    def error(self, line: int, column: str | None, message: str) -> CsvFormatError:
        where = f"{self.name} row {line}" + (f", column '{column}'" if column else "")
        return CsvFormatError(f"{where}: {message}")

    def rows(self) -> Iterator[Row]:
        try:
            with open(self.path, encoding="utf-8-sig", newline="") as fh:
                reader = csv.reader(fh)
                yield from self._rows(reader)
        except UnicodeDecodeError as exc:
            raise CsvFormatError(
                f"{self.name}: not UTF-8 text (byte {exc.start} cannot be decoded)"
            ) from None
        except csv.Error as exc:
            raise CsvFormatError(f"{self.name}: unreadable CSV: {exc}") from None

    def _rows(self, reader: Any) -> Iterator[Row]:
        header = None
        for fields in reader:
            if not fields or all(not f.strip() for f in fields):
                continue
            header = [f.strip().lower() for f in fields]
            break
        if header is None:
            raise CsvFormatError(
                f"{self.name}: the file is empty (expected a header row with columns "
                f"{', '.join(self.required)})"
            )
        seen: set[str] = set()
        for col in header:
            if col and col in seen:
                raise CsvFormatError(
                    f"{self.name} row 1: column '{col}' appears twice in the header"
                )
            seen.add(col)
        missing = [c for c in self.required if c not in seen]
        if missing:
            raise CsvFormatError(
                f"{self.name}: missing column{'s' if len(missing) > 1 else ''} "
                f"{', '.join(repr(c) for c in missing)} (header has: {', '.join(header)})"
            )
        wanted = {c: header.index(c) for c in self.required + self.optional if c in seen}
        width = len(header)
        for fields in reader:
            line = reader.line_num
            if not fields or all(not f.strip() for f in fields):
                continue
            if len(fields) < width:
                raise self.error(line, None, f"expected {width} fields, found {len(fields)}")
            if len(fields) > width and any(f.strip() for f in fields[width:]):
                raise self.error(line, None, f"expected {width} fields, found {len(fields)}")
            yield Row(line, {c: fields[i].strip() for c, i in wanted.items()})

    # -- field parsers -------------------------------------------------------------

    def text(self, row: Row, column: str) -> str:
        value = row.values[column]
        if not value:
            raise self.error(row.line, column, "empty value")
        return value

    def number(
        self, row: Row, column: str, positive: bool = False, non_negative: bool = False
    ) -> float:
        raw = row.values[column]
        try:
            value = float(raw)
        except ValueError:
            raise self.error(row.line, column, f"expected a number, got {raw!r}") from None
        if not math.isfinite(value):
            raise self.error(row.line, column, f"expected a finite number, got {raw!r}")
        if positive and value <= 0:
            raise self.error(row.line, column, f"expected a positive number, got {raw!r}")
        if non_negative and value < 0:
            raise self.error(row.line, column, f"expected a number >= 0, got {raw!r}")
        return value

    def binary(self, row: Row, column: str) -> float:
        raw = row.values[column]
        value = _BOOL.get(raw.lower())
        if value is None:
            raise self.error(row.line, column, f"expected 0 or 1, got {raw!r}")
        return value

    def unique(self, seen: dict[tuple, int], key: tuple, row: Row, what: str) -> None:
        first = seen.setdefault(key, row.line)
        if first != row.line:
            raise self.error(row.line, None, f"{what} already given in row {first}")


def read_votes(path: str | Path) -> Votes:
    """``a,b,winner`` with winner in ``a | b | tie`` → :class:`Votes` (models sorted)."""
    rd = CsvReader(path, ("a", "b", "winner"))
    a_names: list[str] = []
    b_names: list[str] = []
    codes: list[int] = []
    for row in rd.rows():
        a = rd.text(row, "a")
        b = rd.text(row, "b")
        if a == b:
            raise rd.error(row.line, "b", f"the same model as column 'a' ({a!r})")
        w = WINNER_CODES.get(row.values["winner"].lower())
        if w is None:
            raise rd.error(
                row.line, "winner", f"expected one of a, b, tie, got {row.values['winner']!r}"
            )
        a_names.append(a)
        b_names.append(b)
        codes.append(w)
    if not codes:
        raise CsvFormatError(f"{rd.name}: no votes (the file has only a header)")
    models = tuple(sorted(set(a_names) | set(b_names)))
    idx = {m: i for i, m in enumerate(models)}
    return Votes(
        models,
        np.fromiter((idx[m] for m in a_names), dtype=np.int64, count=len(a_names)),
        np.fromiter((idx[m] for m in b_names), dtype=np.int64, count=len(b_names)),
        np.asarray(codes, dtype=np.int8),
    )


@dataclass(frozen=True)
class ScoreRecords:
    sample: list[str]
    model: list[str]
    score: list[float]
    judge: list[str] | None


def read_scores(path: str | Path) -> ScoreRecords:
    """``sample,model,score[,judge]`` (one score per sample, model and judge)."""
    rd = CsvReader(path, ("sample", "model", "score"), ("judge",))
    out = ScoreRecords([], [], [], None)
    judges: list[str] = []
    seen: dict[tuple, int] = {}
    has_judge = False
    for row in rd.rows():
        has_judge = "judge" in row.values
        sample, model = rd.text(row, "sample"), rd.text(row, "model")
        judge = rd.text(row, "judge") if has_judge else ""
        rd.unique(
            seen,
            (sample, model, judge),
            row,
            f"a score for sample {sample!r}, model {model!r}"
            + (f", judge {judge!r}" if has_judge else ""),
        )
        out.sample.append(sample)
        out.model.append(model)
        out.score.append(rd.number(row, "score"))
        judges.append(judge)
    if not out.sample:
        raise CsvFormatError(f"{rd.name}: no scores (the file has only a header)")
    return ScoreRecords(out.sample, out.model, out.score, judges if has_judge else None)


def read_rankings(path: str | Path) -> RankingTable:
    """``rater,item,model,rank`` (1 = best, equal ranks tie) → :class:`RankingTable`."""
    rd = CsvReader(path, ("rater", "item", "model", "rank"))
    recs: list[tuple[str, str, str, float]] = []
    seen: dict[tuple, int] = {}
    for row in rd.rows():
        rater, item, model = rd.text(row, "rater"), rd.text(row, "item"), rd.text(row, "model")
        rd.unique(
            seen, (rater, item, model), row, f"a rank by {rater!r} for {model!r} on item {item!r}"
        )
        recs.append((rater, item, model, rd.number(row, "rank", positive=True)))
    if not recs:
        raise CsvFormatError(f"{rd.name}: no rankings (the file has only a header)")
    raters = tuple(sorted({r[0] for r in recs}))
    items = tuple(sorted({r[1] for r in recs}))
    models = tuple(sorted({r[2] for r in recs}))
    ri = {x: i for i, x in enumerate(raters)}
    ii = {x: i for i, x in enumerate(items)}
    mi = {x: i for i, x in enumerate(models)}
    ranks = np.full((len(raters), len(items), len(models)), np.nan)
    for rater, item, model, rank in recs:
        ranks[ri[rater], ii[item], mi[model]] = rank
    return RankingTable(raters, items, models, ranks)


@dataclass(frozen=True)
class RatingRecords:
    rater: list[str]
    unit: list[str]
    value: list[float]


def read_ratings(path: str | Path, level: str = "interval") -> RatingRecords:
    """``rater,unit,value``; nominal values may be any labels (coded in sorted order)."""
    rd = CsvReader(path, ("rater", "unit", "value"))
    rater: list[str] = []
    unit: list[str] = []
    raw: list[str] = []
    nums: list[float] = []
    seen: dict[tuple, int] = {}
    for row in rd.rows():
        r, u = rd.text(row, "rater"), rd.text(row, "unit")
        rd.unique(seen, (r, u), row, f"a rating by {r!r} of unit {u!r}")
        rater.append(r)
        unit.append(u)
        if level == "nominal":
            raw.append(rd.text(row, "value"))
        else:
            nums.append(rd.number(row, "value", non_negative=level == "ratio"))
    if not rater:
        raise CsvFormatError(f"{rd.name}: no ratings (the file has only a header)")
    if level == "nominal":
        labels = {v: float(i) for i, v in enumerate(sorted(set(raw)))}
        nums = [labels[v] for v in raw]
    return RatingRecords(rater, unit, nums)


def read_likert(path: str | Path) -> LikertMeans:
    """``rater,unit,model,criterion,value`` → mean ratings over raters."""
    rd = CsvReader(path, ("rater", "unit", "model", "criterion", "value"))
    cols: tuple[list, ...] = ([], [], [], [], [])
    seen: dict[tuple, int] = {}
    for row in rd.rows():
        key = tuple(rd.text(row, c) for c in ("rater", "unit", "model", "criterion"))
        if key[3].lower() == "overall":
            raise rd.error(row.line, "criterion", "'overall' is reserved for the combined rate")
        rd.unique(
            seen,
            key,
            row,
            f"a rating by {key[0]!r} of unit {key[1]!r}, model {key[2]!r}, criterion {key[3]!r}",
        )
        for lst, v in zip(cols, (*key, rd.number(row, "value")), strict=True):
            lst.append(v)
    if not cols[0]:
        raise CsvFormatError(f"{rd.name}: no ratings (the file has only a header)")
    return likert_means(*cols)


@dataclass(frozen=True)
class ChecklistRecords:
    model: list[str]
    category: list[str]
    subtask: list[str]
    case: list[str]
    answers: np.ndarray  # (N, 6)


def read_checklist(path: str | Path) -> ChecklistRecords:
    """``model,category,subtask,case,q1..q6`` (answers 0/1; repeated rows are averaged)."""
    rd = CsvReader(path, ("model", "category", "subtask", "case", *IDEA_QUESTIONS))
    out = ChecklistRecords([], [], [], [], np.zeros((0, 6)))
    answers: list[list[float]] = []
    for row in rd.rows():
        out.model.append(rd.text(row, "model"))
        out.category.append(rd.text(row, "category"))
        out.subtask.append(rd.text(row, "subtask"))
        out.case.append(rd.text(row, "case"))
        answers.append([rd.binary(row, q) for q in IDEA_QUESTIONS])
    if not answers:
        raise CsvFormatError(f"{rd.name}: no cases (the file has only a header)")
    return ChecklistRecords(
        out.model, out.category, out.subtask, out.case, np.asarray(answers, dtype=float)
    )
