"""Reading the statistics CSV files into arrays, with errors that name row and column.

Every file has a header row (column names are matched case-insensitively, extra
columns are ignored) and is read with the stdlib ``csv`` module as UTF-8 (a BOM is
accepted).  Row numbers in messages are the file's line numbers (the header is row 1).
Any problem raises :class:`CsvFormatError` (a :class:`ValueError`), e.g.
``VOTES.csv row 7, column 'winner': expected one of a, b, tie, got 'x'``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path

import numpy as np

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


class CsvFormatError(ValueError):
    """A statistics CSV file is malformed; the message names the file, row and column."""


class CsvColumns:
    """The wanted columns of a CSV file as lists of stripped strings, plus validators.

    Records are parsed once with :mod:`csv` (blank lines skipped) and validated per
    column in bulk; only when a value is wrong is the file re-scanned to turn the
    record index into its line number.
    """

    def __init__(
        self, path: str | Path, required: Sequence[str], optional: Sequence[str] = ()
    ) -> None:
        self.path = Path(path)
        self.name = self.path.name
        raw = self.path.read_bytes()
        try:
            self._text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            raise CsvFormatError(
                f"{self.name} row {line}: not UTF-8 text (byte {exc.start} cannot be decoded)"
            ) from None
        header, rows = self._parse()
        if header is None:
            raise CsvFormatError(
                f"{self.name}: the file is empty (expected a header row with columns "
                f"{', '.join(required)})"
            )
        seen: set[str] = set()
        for col in header:
            if col and col in seen:
                raise CsvFormatError(f"{self.name}: column '{col}' appears twice in the header")
            seen.add(col)
        missing = [c for c in required if c not in seen]
        if missing:
            raise CsvFormatError(
                f"{self.name}: missing column{'s' if len(missing) > 1 else ''} "
                f"{', '.join(repr(c) for c in missing)} (header has: {', '.join(header)})"
            )
        width = len(header)
        lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        for k in np.flatnonzero(lengths != width):
            if lengths[k] < width or any(f.strip() for f in rows[k][width:]):
                raise self.error(int(k), None, f"expected {width} fields, found {lengths[k]}")
        self.n = len(rows)
        self.columns: dict[str, list[str]] = {}
        for col in (*required, *optional):
            if col in seen:
                i = header.index(col)
                self.columns[col] = list(map(str.strip, map(itemgetter(i), rows)))

    def _records(self) -> Iterator[tuple[int, list[str]]]:
        reader = csv.reader(io.StringIO(self._text, newline=""))
        try:
            for fields in reader:
                if fields and "".join(fields).strip():
                    yield reader.line_num, fields
        except csv.Error as exc:
            raise CsvFormatError(
                f"{self.name} row {reader.line_num}: unreadable CSV: {exc}"
            ) from None

    def _parse(self) -> tuple[list[str] | None, list[list[str]]]:
        reader = csv.reader(io.StringIO(self._text, newline=""))
        try:
            rows = list(filter(None, reader))  # drops empty lines
        except csv.Error as exc:
            raise CsvFormatError(
                f"{self.name} row {reader.line_num}: unreadable CSV: {exc}"
            ) from None
        if "" in set(map(str.strip, map(itemgetter(0), rows))):  # maybe all-blank rows
            rows = [r for r in rows if "".join(r).strip()]
        if not rows:
            return None, []
        return [f.strip().lower() for f in rows[0]], rows[1:]

    def line(self, k: int) -> int:
        """File line number of data record ``k`` (0-based)."""
        for i, (line, _) in enumerate(self._records()):
            if i == k + 1:  # record 0 is the header
                return line
        return -1

    def error(self, k: int, column: str | None, message: str) -> CsvFormatError:
        where = f"{self.name} row {self.line(k)}" + (f", column '{column}'" if column else "")
        return CsvFormatError(f"{where}: {message}")

    def has(self, column: str) -> bool:
        return column in self.columns

    # -- column validators -------------------------------------------------------

    def text(self, column: str) -> list[str]:
        values = self.columns[column]
        if "" in set(values):
            raise self.error(values.index(""), column, "empty value")
        return values

    def numbers(
        self, column: str, positive: bool = False, non_negative: bool = False
    ) -> np.ndarray:
        values = self.columns[column]
        try:
            out = np.fromiter(map(float, values), dtype=float, count=len(values))
        except ValueError:
            for k, v in enumerate(values):
                try:
                    float(v)
                except ValueError:
                    raise self.error(k, column, f"expected a number, got {v!r}") from None
            raise  # pragma: no cover - unreachable
        bad = ~np.isfinite(out)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise self.error(k, column, f"expected a finite number, got {values[k]!r}")
        if positive and np.any(out <= 0):
            k = int(np.flatnonzero(out <= 0)[0])
            raise self.error(k, column, f"expected a positive number, got {values[k]!r}")
        if non_negative and np.any(out < 0):
            k = int(np.flatnonzero(out < 0)[0])
            raise self.error(k, column, f"expected a number >= 0, got {values[k]!r}")
        return out

    def codes(self, column: str, mapping: dict[str, float], expected: str) -> np.ndarray:
        """Map case-insensitive values through ``mapping``; anything else is an error."""
        values = self.columns[column]
        lowered = list(map(str.lower, values))
        unknown = set(lowered) - mapping.keys()
        if unknown:
            k = min(lowered.index(u) for u in unknown)
            raise self.error(k, column, f"expected {expected}, got {values[k]!r}")
        return np.fromiter(map(mapping.__getitem__, lowered), dtype=float, count=len(values))

    def unique(self, keys: list[tuple], what: Callable[[tuple], str]) -> None:
        """Each key at most once; the second occurrence is reported with the first's row."""
        if len(set(keys)) == len(keys):
            return
        first: dict[tuple, int] = {}
        for k, key in enumerate(keys):
            if key in first:
                raise self.error(
                    k, None, f"{what(key)} already given in row {self.line(first[key])}"
                )
            first[key] = k

    def require_rows(self, what: str) -> None:
        if self.n == 0:
            raise CsvFormatError(f"{self.name}: no {what} (the file has only a header)")

    def require_dense(self, **sizes: int) -> None:
        """Refuse label counts whose dense product exceeds :data:`MAX_CELLS`, and more
        models than the pairwise statistics handle, before anything is allocated."""
        models = sizes.get("models", 0)
        if models > MAX_MODELS:
            raise CsvFormatError(
                f"{self.name}: {models:,} distinct models is more than the {MAX_MODELS:,} "
                "the statistics handle (K × K matrices); check the model column"
            )
        total = 1
        for n in sizes.values():
            total *= max(1, n)
        if total > MAX_CELLS:
            dims = " × ".join(f"{n:,} {what}" for what, n in sizes.items())
            raise CsvFormatError(
                f"{self.name}: {dims} = {total:,} combinations is more than the "
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
    a, b = t.text("a"), t.text("b")
    winner = t.codes("winner", {k: float(v) for k, v in WINNER_CODES.items()}, "one of a, b, tie")
    models, ab = _index(a + b)
    t.require_dense(models=len(models))
    ai, bi = ab[: t.n], ab[t.n :]
    same = np.flatnonzero(ai == bi)
    if same.size:
        k = int(same[0])
        raise t.error(k, "b", f"the same model as column 'a' ({a[k]!r})")
    return Votes(models, ai, bi, winner.astype(np.int8))


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
    t.require_dense(judges=len(set(judge)) if judge else 1, samples=len(set(sample)),
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
    t.require_dense(raters=len(raters), items=len(items), models=len(models))
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
    t.require_dense(raters=len(set(rater)), units=len(set(unit)))
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
    t.require_dense(models=len(set(cols[2])), units=len(set(cols[1])), criteria=len(set(upper)))
    t.unique(
        list(zip(*cols, strict=True)),
        lambda k: f"a rating by {k[0]!r} of unit {k[1]!r}, model {k[2]!r}, criterion {k[3]!r}",
    )
    return likert_means(*cols, value)


@dataclass(frozen=True)
class ChecklistRecords:
    model: list[str]
    category: list[str]
    subtask: list[str]
    case: list[str]
    answers: np.ndarray  # (N, 6)


def read_checklist(path: str | Path) -> ChecklistRecords:
    """``model,category,subtask,case,q1..q6`` (answers 0/1; repeated rows are averaged)."""
    t = CsvColumns(path, ("model", "category", "subtask", "case", *IDEA_QUESTIONS))
    t.require_rows("cases")
    names = [t.text(c) for c in ("model", "category", "subtask", "case")]
    t.require_dense(models=len(set(names[0])),
                    cases=len(set(zip(names[1], names[2], names[3], strict=True))))
    answers = np.stack([t.codes(q, _BOOL, "0 or 1") for q in IDEA_QUESTIONS], axis=1)
    return ChecklistRecords(*names, answers)
