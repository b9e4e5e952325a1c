"""Registry of analysable data sets: CSV files the user opens, and project providers.

A :class:`DataSet` has a ``name``, a ``kind`` (one of :data:`KINDS`) and a ``load``
returning *tidy rows*: a list of dicts with the SPEC §6 column names of its kind

========== ============================================================
kind       columns (``[x]`` optional)
========== ============================================================
votes      a, b, winner (a | b | tie) [, criterion] [, rater] [, item]
rankings   rater, item, model, rank (1 = best)
likert     rater, unit, model, criterion, value
checklist  model, category, subtask, case, q1 … q6 (0 / 1)
scores     sample, model, score [, judge]
========== ============================================================

plus, optionally, the grouping columns of :data:`GROUP_COLUMNS` (``category``,
``edit_type``, ``split``) used by the per-group breakdown.

**Hook for other features.**  Anything in the project that can be analysed plugs in
with :func:`register_provider`::

    from core.analysis.sources import DataSet, register_provider

    @register_provider
    def my_datasets(project) -> list[DataSet]:
        return [DataSet(name="…", kind="likert", key="mine:1",
                        loader=lambda p: [{"rater": …, "unit": …, …}, …])]

A provider is called on the GUI thread when the Analyze workspace lists data sets, so
it must be cheap (one small query); the expensive part goes in ``loader``, which is
called as ``loader(project)`` on a worker thread with a connection of its own
(``project.worker_view()``).  A provider that raises is reported, not fatal.
Rating sessions and metric/judge results are provided by
:mod:`core.analysis.project_sources` (registered on first use).  :class:`DataSet` and the
provider registry live in :mod:`core.analysis.datasets` (re-exported here), which breaks
the import cycle this module and ``project_sources`` had.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.analysis.datasets import GROUP_COLUMNS, KIND_TITLES, KINDS, DataSet, Row, providers
from core.analysis.datasets import register_provider as register_provider
from core.analysis.datasets import unregister_provider as unregister_provider
from core.stats import tables
from core.stats.csvdialect import first_row, header_name
from core.stats.tables import IDEA_QUESTIONS, CsvColumns, CsvFormatError

#: checked in this order: the more specific headers first
_DETECT_ORDER = ("checklist", "likert", "rankings", "scores", "votes")
_CHECK = {"0": 0, "1": 1, "no": 0, "yes": 1, "false": 0, "true": 1}
_BUILTINS_LOADED = False


def _load_builtins() -> None:
    global _BUILTINS_LOADED
    if not _BUILTINS_LOADED:
        _BUILTINS_LOADED = True
        import core.analysis.project_sources  # noqa: F401  (registers its providers)


def project_datasets(project: Any) -> tuple[list[DataSet], list[str]]:
    """Every data set the providers offer for ``project``, and one message per failed provider."""
    _load_builtins()
    if project is None:
        return [], []
    out: list[DataSet] = []
    errors: list[str] = []
    for fn in providers():
        try:
            out.extend(fn(project))
        except Exception as exc:  # one broken provider must not hide the others
            errors.append(f"{getattr(fn, '__name__', 'provider')}: {exc}")
    return out, errors


# -- CSV files --------------------------------------------------------------------------


def detect_kind(columns: set[str] | list[str]) -> str | None:
    """The kind whose required columns a header has (None when none fits)."""
    have = set(map(header_name, columns))
    for kind in _DETECT_ORDER:
        if set(KINDS[kind][0]) <= have:
            return kind
    return None


def _expected() -> str:
    return "; ".join(f"{k}: {','.join(KINDS[k][0])}" for k in KINDS)


def _first_row(path: Path) -> list[str]:
    """The header row of a CSV file (empty when there is none)."""
    with open(path, "rb") as fh:
        return first_row(fh.read(65536))


def _unknown(path: Path) -> CsvFormatError:
    return CsvFormatError(f"{path.name}: cannot tell what this file holds "
                          f"({_header_text(path)}); expected the columns of one of: "
                          f"{_expected()}")


def _header_text(path: Path) -> str:
    """How the file's header reads, for an error message (a hint for ';' or tab files)."""
    cols = [c.strip() if len(c.strip()) <= 40 else c.strip()[:39] + "…"
            for c in _first_row(path)]
    text = "header: " + ", ".join(repr(c) for c in cols[:12])
    if len(cols) > 12:
        text += f" and {len(cols) - 12} more"
    if len(cols) == 1:
        sep = next((n for d, n in ((";", "semicolons"), ("\t", "tabs"), ("|", "bars"))
                    if d in cols[0]), None)
        if sep:
            text += f"; the columns seem to be separated by {sep}: save it comma-separated"
    return text


_VALIDATORS: dict[str, Callable[[Path], object]] = {
    "votes": tables.read_votes,
    "rankings": tables.read_rankings,
    "likert": tables.read_likert,
    "checklist": tables.read_checklist,
    "scores": tables.read_scores,
}


#: what :func:`read_csv_rows` does, pass by pass (its ``phase`` callback's words)
PHASES = ("checking the columns", "checking every row", "reading the columns",
          "building the rows")
#: ``phase(done, total, what)``: told before each step of reading a file
Phase = Callable[[int, int, str], None]


def read_csv_rows(path: str | Path, kind: str | None = None,
                  phase: Phase | None = None) -> tuple[str, list[Row]]:
    """Validate a statistics CSV with :mod:`core.stats.tables` and return ``(kind, rows)``.

    The kind is detected from the header unless given.  Errors are
    :class:`~core.stats.tables.CsvFormatError` naming the file, row and column.
    ``phase(done, total, what)`` is told before each pass over the file (it may raise
    to cancel): 2,000,000 votes take seconds a pass, a minute on a busy machine.
    """
    path = Path(path)
    step = phase or (lambda _done, _total, _what: None)
    step(0, len(PHASES), PHASES[0])
    every = sorted({c for req, opt in KINDS.values() for c in (*req, *opt)} | set(GROUP_COLUMNS))
    try:
        probe = CsvColumns(path, (), every)
    except CsvFormatError as exc:
        if "the file is empty" in str(exc):
            raise CsvFormatError(f"{path.name}: the file is empty (expected a header row with "
                                 f"the columns of one of: {_expected()})") from None
        if "not UTF-8" in str(exc) or "UTF-16" in str(exc):
            raise
        if kind is None and detect_kind(_first_row(path)) is None:
            raise _unknown(path) from None  # another tool's file: say that, not "row 7"
        raise
    if kind is None:
        kind = detect_kind(list(probe.columns))
        if kind is None:
            raise _unknown(path)
    elif kind not in KINDS:
        raise ValueError(f"unknown data set kind {kind!r}")
    step(1, len(PHASES), PHASES[1])
    _VALIDATORS[kind](path)  # the exact checks and messages of `winnow stats`
    step(2, len(PHASES), PHASES[2])
    required, optional = KINDS[kind]
    t = CsvColumns(path, required, (*optional, *GROUP_COLUMNS))
    cols: dict[str, list[Any]] = {}
    for name in (*required, *optional):
        if not t.has(name):
            continue
        if name in ("rank", "value", "score"):
            cols[name] = t.numbers(name).tolist()
        elif name == "winner":
            cols[name] = [v.lower() for v in t.text(name)]
        elif name in IDEA_QUESTIONS:
            cols[name] = [_CHECK[v.lower()] for v in t.text(name)]
        else:
            cols[name] = t.text(name)
    for name in GROUP_COLUMNS:
        if t.has(name):
            cols[name] = t.columns[name]
    step(3, len(PHASES), PHASES[3])
    names = list(cols)
    rows = [dict(zip(names, values, strict=True)) for values in zip(*cols.values(), strict=True)]
    return kind, rows


def open_csv(path: str | Path, kind: str | None = None, *,
             higher_is_better: bool = True, phase: Phase | None = None) -> DataSet:
    """Read and validate a CSV now; the data set keeps its rows (the file may change later).
    ``phase`` as in :func:`read_csv_rows`."""
    path = Path(path)
    kind, rows = read_csv_rows(path, kind, phase)
    extras = [c for c in GROUP_COLUMNS if c in rows[0]]
    desc = f"{len(rows):,} rows of {KIND_TITLES[kind]} from {path}"
    if extras:
        desc += f" (grouping columns: {', '.join(extras)})"
    return DataSet(name=path.name, kind=kind, key=f"csv:{path.resolve()}",
                   loader=lambda _project: rows, source="CSV file", description=desc,
                   higher_is_better=higher_is_better, meta={"path": str(path)})
