"""Pairwise vote tables (CSV or parquet) → :class:`~core.stats.battles.RawBattles` (ADR 023).

Column names are matched case-insensitively; other columns are ignored.

* the two models: ``model_a`` and ``model_b`` (FastChat, GenAI-Arena, Chatbot Arena
  datasets) or ``a`` and ``b`` (Winnow);
* **either** a ``winner`` column (one battle per row; values as in battle JSON:
  ``model_a``, ``model_b``, ``tie``, ``tie (bothbad)``, or ``a``, ``b``), with
  optionally ``anony``, ``tstamp``, ``battle_id`` / ``id`` / ``question_id``,
  ``judge`` and ``turn`` as in battle JSON,
* **or** vote counts per row: ``wins_a`` and ``wins_b``, optionally ``ties`` and
  ``bothbad`` (whole numbers ≥ 0; the one-hot ``winner_model_a``, ``winner_model_b``,
  ``winner_tie`` columns of the Chatbot Arena preference data are read as the same).
  Rows of the same pair add up.

CSV files are read by :class:`~core.stats.csvcolumns.CsvColumns`; parquet files
(the optional ``[parquet]`` extra) by :class:`ParquetColumns`, which holds the same
encoded columns and so shares every check and message (row 1 = the first data row).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from core.interop.deps import require_pyarrow
from core.stats.battles import BOTHBAD, MAX_BATTLES, WINNER_WORDS, WINNERS, RawBattles
from core.stats.csvcolumns import CsvColumns, CsvFormatError, Encoded, _Columns, _restrip
from core.stats.csvdialect import header_name
from core.stats.tables import model_pair_codes
from core.stats.votes import A_WINS, B_WINS, TIE

MODEL_PAIRS = (("model_a", "model_b"), ("a", "b"))
#: count column → accepted names, first match wins
COUNT_COLUMNS = {
    "wins_a": ("wins_a", "winner_model_a"),
    "wins_b": ("wins_b", "winner_model_b"),
    "ties": ("ties", "winner_tie"),
    "bothbad": ("bothbad",),
}
_COUNT_KINDS = {"wins_a": A_WINS, "wins_b": B_WINS, "ties": TIE, "bothbad": BOTHBAD}
_BOOL = {"true": 1.0, "false": 0.0, "1": 1.0, "0": 0.0, "": -1.0}
KEY_COLUMNS = ("battle_id", "id", "question_id", "judge", "turn")
CANDIDATES = tuple(
    dict.fromkeys(
        [
            *(c for pair in MODEL_PAIRS for c in pair),
            "winner",
            *(c for names in COUNT_COLUMNS.values() for c in names),
            "anony",
            "tstamp",
            *KEY_COLUMNS,
        ]
    )
)


def is_pairwise_header(header: Sequence[str]) -> bool:
    """True for the header of a table this module reads (not Winnow's own ``a,b,winner``)."""
    have = set(map(header_name, header))
    counts = {"wins_a", "wins_b"} <= have or {"winner_model_a", "winner_model_b"} <= have
    if {"model_a", "model_b"} <= have:
        return "winner" in have or counts
    return {"a", "b"} <= have and counts


class ParquetColumns(CsvColumns):
    """The wanted columns of a parquet file, encoded as :class:`CsvColumns` holds them.

    Every validator of :class:`CsvColumns` works unchanged; rows are numbered from 1 (the
    first data row; parquet has no header line).  Null cells read as empty values.
    """

    def __init__(self, path: str | Path, wanted: Sequence[str]) -> None:  # noqa: D107
        pa, pq = require_pyarrow("Reading parquet vote tables")
        self.path = Path(path)
        self.name = self.path.name
        try:
            pf = pq.ParquetFile(self.path)
            names = {header_name(n): n for n in pf.schema_arrow.names}
            present = [c for c in dict.fromkeys(wanted) if c in names]
            table = pf.read(columns=[names[c] for c in present])
        except (pa.ArrowException, OSError) as exc:
            raise CsvFormatError(f"{self.name}: not a readable parquet file ({exc})") from None
        self.header = list(names)
        self.separator = ","  # no text: numbers are never read with decimal commas
        self.n = table.num_rows
        self._encoded = {
            c: _encode_arrow(pa, table.column(names[c]), c, self.name) for c in present
        }
        self.columns = _Columns(self._encoded)

    def line(self, k: int) -> int:
        return k + 1


def _encode_arrow(pa: Any, column: Any, name: str, file: str) -> Encoded:
    """A parquet column as (distinct values as text, code per row); nulls read as ''."""
    arr = column.combine_chunks() if hasattr(column, "combine_chunks") else column
    kind = arr.type.value_type if pa.types.is_dictionary(arr.type) else arr.type
    if pa.types.is_nested(kind) or pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        raise CsvFormatError(f"{file}: column '{name}' holds {kind}, not text or numbers")
    dic = arr if pa.types.is_dictionary(arr.type) else arr.dictionary_encode()
    uniques = [
        str(v).lower() if isinstance(v, bool) else str(v) for v in dic.dictionary.to_pylist()
    ]
    indices = dic.indices
    if indices.null_count:  # a null reads as an empty cell
        if "" not in uniques:
            uniques.append("")
        indices = indices.fill_null(uniques.index(""))
    return _restrip(uniques, indices.to_numpy(zero_copy_only=False).astype(np.int64))


def read_pairwise_table(path: str | Path, parquet: bool = False) -> RawBattles:
    """A pairwise CSV or parquet table (one battle per row, or vote counts per row)."""
    path = Path(path)
    t = ParquetColumns(path, CANDIDATES) if parquet else CsvColumns(path, (), CANDIDATES)
    header = t.header
    pair = next((p for p in MODEL_PAIRS if t.has(p[0]) and t.has(p[1])), None)
    counts = {c: next((n for n in names if t.has(n)), None) for c, names in COUNT_COLUMNS.items()}
    expected = (
        "model_a, model_b and winner (one battle per row), or model_a, model_b, "
        "wins_a, wins_b[, ties] (vote counts)"
    )
    if pair is None or not (t.has("winner") or (counts["wins_a"] and counts["wins_b"])):
        raise CsvFormatError(
            f"{t.name}: not a pairwise vote table (header has: "
            f"{', '.join(header[:20])}); expected columns {expected}"
        )
    if t.has("winner") and (counts["wins_a"] or counts["wins_b"]):
        raise CsvFormatError(
            f"{t.name}: has both a 'winner' column and vote counts "
            f"('{counts['wins_a'] or counts['wins_b']}'); keep one of them"
        )
    t.require_rows("votes")
    names, a, b = model_pair_codes(t, *pair)
    models = list(names)
    source = "parquet table" if parquet else "CSV table"
    if t.has("winner"):
        return _battle_rows(t, models, a, b, pair, source)
    return _count_rows(t, models, a, b, pair, counts, source)


def _battle_rows(
    t: CsvColumns,
    models: list[str],
    a: np.ndarray,
    b: np.ndarray,
    pair: tuple[str, str],
    source: str,
) -> RawBattles:
    if t.n > MAX_BATTLES:
        raise CsvFormatError(
            f"{t.name}: {t.n:,} battles is more than the {MAX_BATTLES:,} one "
            "file may hold; split it or sum it into a counts table"
        )
    mapping = {k: float(v) for k, v in WINNERS.items()}
    outcome = t.codes("winner", mapping, f"one of {WINNER_WORDS}").astype(np.int8)
    anony = t.codes("anony", _BOOL, "true or false").astype(np.int8) if t.has("anony") else None
    tstamp = _optional_numbers(t, "tstamp") if t.has("tstamp") else None
    keys, label = _keys(t)
    return RawBattles(
        t.name,
        source,
        models,
        a,
        b,
        outcome,
        lambda k: f"{t.name} row {t.line(k)}",
        "column",
        anony if anony is not None and (anony >= 0).any() else None,
        tstamp,
        keys,
        label,
        fields=pair,
    )


def _optional_numbers(t: CsvColumns, column: str) -> np.ndarray:
    """Finite numbers, NaN where the cell is empty."""
    uniques, codes = t._encoded[column]
    values = np.full(len(uniques), np.nan)
    for i, u in enumerate(uniques):
        if u == "":
            continue
        try:
            values[i] = float(u)
        except ValueError:
            values[i] = np.inf
    bad = np.flatnonzero(~np.isfinite(values) & (np.array(uniques, dtype=object) != ""))
    if bad.size:
        k = t._first(column, bad)
        raise t.error(k, column, f"expected a time in seconds, got {uniques[int(codes[k])]!r}")
    return values[codes]


def _keys(t: CsvColumns) -> tuple[np.ndarray | None, str]:
    """Battle identity per row: an id column, else question_id with models, judge, turn."""
    ident = next((c for c in ("battle_id", "id") if t.has(c)), None)
    if ident is not None:
        columns, label = [ident], ident
    elif t.has("question_id"):
        columns = [
            c for c in ("question_id", "model_a", "model_b", "a", "b", "judge", "turn") if t.has(c)
        ]
        label = "question_id, models, judge and turn"
    else:
        return None, ""
    stacked = np.stack([t._encoded[c][1] for c in columns], axis=1)
    uniques, codes = t._encoded[columns[0]]
    if "" in uniques:  # a row without an id is a battle of its own
        empty = codes == uniques.index("")
        stacked = np.concatenate(
            [stacked, np.where(empty, np.arange(len(codes)), -1)[:, None]], axis=1
        )
    return stacked, label


def _count_rows(
    t: CsvColumns,
    models: list[str],
    a: np.ndarray,
    b: np.ndarray,
    pair: tuple[str, str],
    counts: dict[str, str | None],
    source: str,
) -> RawBattles:
    given = {c: name for c, name in counts.items() if name}
    as_read = np.zeros((t.n, len(given)))
    for j, name in enumerate(given.values()):
        values = t.numbers(name, non_negative=True)
        whole = values == np.floor(values)
        if not whole.all():
            k = int(np.flatnonzero(~whole)[0])
            raise t.error(k, name, f"expected a whole number of votes, got {t.columns[name][k]!r}")
        as_read[:, j] = values
    running = np.cumsum(as_read.reshape(-1))  # floats: no overflow before the check
    over = np.flatnonzero(running > MAX_BATTLES)
    if over.size:
        k, j = divmod(int(over[0]), len(given))
        raise t.error(
            k,
            list(given.values())[j],
            f"the votes up to here are more than the {MAX_BATTLES:,} the statistics read "
            "from one file",
        )
    per_row = as_read.astype(np.int64)
    total = int(per_row.sum())
    if total == 0:
        raise CsvFormatError(f"{t.name}: no votes (every count is 0)")
    flat = per_row.reshape(-1)
    kinds = np.tile(np.array([_COUNT_KINDS[c] for c in given], dtype=np.int8), t.n)
    rows = np.repeat(np.arange(t.n), len(given))
    vote_rows = np.repeat(rows, flat)
    return RawBattles(
        t.name,
        source.replace("table", "counts"),
        models,
        a[vote_rows],
        b[vote_rows],
        np.repeat(kinds, flat),
        lambda k: f"{t.name} row {t.line(int(vote_rows[k]))}",
        "column",
        ordered=False,
        fields=pair,
        records=t.n,
    )
