"""Arena battles (FastChat / GenAI-Arena) → votes, with ties, "both bad" and duplicates (ADR 022).

A battle is an object with ``model_a``, ``model_b`` and ``winner`` in ``model_a``,
``model_b``, ``tie`` or ``tie (bothbad)`` (Winnow's own ``a`` and ``b`` are accepted
too); other keys (``question_id``, ``judge``, ``anony``, ``tstamp``, ``turn``,
``language``, conversations …) may be present.  :func:`read_battle_json` streams a
``clean_battle*.json`` array or a JSON Lines file into :class:`RawBattles`;
:mod:`core.stats.pairwise_tables` builds the same from CSV and parquet tables; and
:func:`finalize` applies the user's choices and returns a :class:`VoteFile`:

* ``tie (bothbad)`` counts as a tie (FastChat's Elo) unless ``bothbad="drop"``;
* ``anonymous_only`` keeps the battles with ``anony: true`` (FastChat's leaderboard);
* a battle whose id repeats an earlier one (``battle_id`` or ``id``; else
  ``question_id`` with the models, judge and turn) is reported, and counted
  (``duplicates="keep"``, what FastChat does) or left out (``"drop"``);
* a model against itself rejects the file, naming the record (ADR 018).
"""

from __future__ import annotations

import hashlib
import json
import math
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from core.stats.csvcolumns import CsvFormatError
from core.stats.csvdialect import TWO_SPELLINGS, nfc_twins
from core.stats.jsonstream import DUPLICATE_KEYS, Progress, json_array, json_lines
from core.stats.votes import A_WINS, B_WINS, MAX_MODELS, TIE, Votes
from core.visible_text import listed

#: ``tie (bothbad)``: a tie in which the voter disliked both outputs.
BOTHBAD = 3
#: Accepted ``winner`` values (compared lower-cased and stripped).
WINNERS = {
    "model_a": A_WINS,
    "a": A_WINS,
    "model_b": B_WINS,
    "b": B_WINS,
    "tie": TIE,
    "tie (bothbad)": BOTHBAD,
}
WINNER_WORDS = "model_a, model_b, tie or tie (bothbad)"
#: Fields that name one battle on their own, checked in this order.
ID_FIELDS = ("battle_id", "id")
#: Without one of those, a battle is its question_id together with these.
QUESTION_KEY = ("question_id", "model_a", "model_b", "judge", "turn")
_USED = {"model_a", "model_b", "winner", "anony", "tstamp", *ID_FIELDS, *QUESTION_KEY}
#: Most battles (or votes of a counts table) one file may hold: ~40 bytes each in memory.
MAX_BATTLES = 20_000_000
BOTHBAD_CHOICES = ("tie", "drop")
DUPLICATE_CHOICES = ("keep", "drop")


@dataclass(frozen=True)
class BattleOptions:
    """What to do with ``tie (bothbad)``, non-anonymous battles and repeated ids."""

    bothbad: str = "tie"
    anonymous_only: bool = False
    duplicates: str = "keep"

    def __post_init__(self) -> None:
        if self.bothbad not in BOTHBAD_CHOICES:
            raise ValueError(f"bothbad must be one of {', '.join(BOTHBAD_CHOICES)}")
        if self.duplicates not in DUPLICATE_CHOICES:
            raise ValueError(f"duplicates must be one of {', '.join(DUPLICATE_CHOICES)}")


@dataclass
class RawBattles:
    """Battles as read, before the options apply: codes into ``models``, one per record."""

    name: str
    source: str  # "JSON array", "JSON Lines", "CSV table", "parquet table", …
    models: list[str]
    a: np.ndarray  # int64 codes into models
    b: np.ndarray
    outcome: np.ndarray  # int8: A_WINS, B_WINS, TIE, BOTHBAD
    where: Callable[[int], str]  # record index → "f.json record 5 (line 40)"
    field_word: str = "field"  # "field" (JSON) or "column" (tables)
    anony: np.ndarray | None = None  # int8: 1, 0, -1 = not given
    tstamp: np.ndarray | None = None  # float64, NaN = not given
    keys: np.ndarray | None = None  # (N, m) ints; equal rows = the same battle
    id_label: str = ""  # what the keys are made of, for messages
    ordered: bool = True  # records are events in an order (False: a counts table)
    fields: tuple[str, str] = ("model_a", "model_b")  # the two model fields' names
    records: int = -1  # records or rows read (-1: one per battle)

    def error(self, k: int, column: str, message: str) -> CsvFormatError:
        return CsvFormatError(f"{self.where(k)}, {self.field_word} '{column}': {message}")


@dataclass(frozen=True)
class Duplicates:
    """Battles that repeat an earlier battle's id."""

    count: int
    conflicting: int  # of those, how many give another winner than the first
    example: str  # "record 17 repeats record 5 (question_id 'abc')"
    dropped: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "conflicting": self.conflicting,
            "example": self.example,
            "dropped": self.dropped,
        }


#: words for the keys of ``VoteFile.left_out``
LEFT_OUT_WORDS = {
    "duplicates": "repeated battles",
    "not_anonymous": "not anonymous",
    "bothbad": "tie (bothbad)",
}


def describe_unvoted(unvoted: tuple[str, ...]) -> str:
    """``"2 models without a vote ('x', 'y')"`` (ten named at most)."""
    return (f"{len(unvoted):,} model{'s' if len(unvoted) > 1 else ''} without a vote "
            f"({listed(unvoted)})")


def describe_left_out(left_out: dict[str, int]) -> str:
    """``"3 repeated battles, 120 tie (bothbad)"``."""
    return ", ".join(f"{n:,} {LEFT_OUT_WORDS.get(k, k)}" for k, n in left_out.items())


@dataclass(frozen=True)
class VoteFile:
    """The votes of a file and what reading it left out or found."""

    votes: Votes
    source: str
    records: int
    #: records not counted, by reason: ``duplicates``, ``not_anonymous``, ``bothbad``
    left_out: dict[str, int] = field(default_factory=dict)
    duplicates: Duplicates | None = None
    #: vote order for online Elo (by ``tstamp`` when every battle has one), None = no order
    order: np.ndarray | None = None
    ordered_by: str = "file"  # "tstamp" or "file"
    #: models of the file left with no vote (zero counts, battles left out): no score
    unvoted: tuple[str, ...] = ()


# -- JSON and JSON Lines ------------------------------------------------------------------


def _kind(value: Any) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "true/false",
        type(None): "null",
    }.get(type(value), "a number")


class _Collector:
    """Per-record checks and compact columns for streamed battle objects."""

    def __init__(self, name: str, jsonl: bool) -> None:
        self.name = name
        self.jsonl = jsonl
        self.models: dict[str, int] = {}
        self.a = array("q")
        self.b = array("q")
        self.outcome = array("b")
        self.anony = array("b")
        self.tstamp = array("d")
        self.lines = array("q")
        self.keys = bytearray()
        self.id_label = ""

    def where(self, record: int, line: int) -> str:
        return (
            f"{self.name} line {line}"
            if self.jsonl
            else f"{self.name} record {record} (line {line})"
        )

    def _model(self, obj: dict[str, Any], key: str, here: str) -> int:
        value = obj.get(key)
        if not isinstance(value, str) or not value.strip():
            what = (
                "missing"
                if value is None
                else (
                    "empty"
                    if isinstance(value, str)
                    else f"expected the model's name, got {_kind(value)}"
                )
            )
            raise CsvFormatError(f"{here}, field '{key}': {what}")
        name = value.strip()
        code = self.models.get(name)
        if code is None:
            if len(self.models) >= MAX_MODELS:
                raise CsvFormatError(
                    f"{here}, field '{key}': more than {MAX_MODELS:,} distinct "
                    "models, the most the pairwise statistics handle"
                )
            try:
                name.encode("utf-8")
            except UnicodeEncodeError as exc:  # JSON may escape half a UTF-16 pair
                raise CsvFormatError(
                    f"{here}, field '{key}': the name contains \\u{ord(name[exc.start]):04x}, "
                    "half of a UTF-16 surrogate pair, which is not a character"
                ) from None
            code = self.models[name] = len(self.models)
        return code

    def add(self, record: int, line: int, obj: Any) -> None:
        here = self.where(record, line)
        if record == 1 and _a_whole_table(obj):
            raise CsvFormatError(
                f"{here}: a table, not one battle object per record (pandas' "
                "DataFrame.to_json writes one so unless told otherwise); write it with "
                "to_json(..., orient='records') or orient='records', lines=True"
            )
        if not isinstance(obj, dict):
            raise CsvFormatError(
                f"{here}: expected a battle object with model_a, model_b and "
                f"winner, got {_kind(obj)}"
            )
        twice = [k for k in obj.get(DUPLICATE_KEYS, ()) if k in _USED]
        if twice:
            raise CsvFormatError(f"{here}, field '{twice[0]}': given twice in one record")
        a, b = self._model(obj, "model_a", here), self._model(obj, "model_b", here)
        if a == b:
            raise CsvFormatError(
                f"{here}, field 'model_b': the same model as field 'model_a' "
                f"({obj['model_a'].strip()!r})"
            )
        winner = obj.get("winner")
        code = WINNERS.get(winner.strip().lower()) if isinstance(winner, str) else None
        if code is None:
            got = "missing" if "winner" not in obj else f"got {winner!r}"[:80]
            raise CsvFormatError(f"{here}, field 'winner': expected one of {WINNER_WORDS}, {got}")
        anony = obj.get("anony")
        if anony is not None and not isinstance(anony, bool):
            raise CsvFormatError(
                f"{here}, field 'anony': expected true or false, got {_kind(anony)}"
            )
        stamp = obj.get("tstamp")
        if stamp is None:
            stamp = math.nan
        elif (
            isinstance(stamp, bool)
            or not isinstance(stamp, int | float)
            or not math.isfinite(stamp)
        ):
            raise CsvFormatError(
                f"{here}, field 'tstamp': expected a time in seconds, got "
                f"{_kind(stamp) if not isinstance(stamp, float) else stamp}"
            )
        if len(self.a) >= MAX_BATTLES:
            raise CsvFormatError(
                f"{here}: more than {MAX_BATTLES:,} battles; split the file "
                "or sum it into a counts table"
            )
        self.a.append(a)
        self.b.append(b)
        self.outcome.append(code)
        self.anony.append(-1 if anony is None else int(anony))
        self.tstamp.append(float(stamp))
        self.lines.append(line)
        self.keys += self._key(obj, record)

    def _key(self, obj: dict[str, Any], record: int) -> bytes:
        ident = next((k for k in ID_FIELDS if obj.get(k) is not None), None)
        if ident is not None:
            parts: list[Any] = [ident, obj[ident]]
        elif obj.get("question_id") is not None:
            ident = "question_id"
            parts = [obj.get(k) for k in QUESTION_KEY]
        else:  # no id: a battle of its own
            return record.to_bytes(8, "little") + b"\xff" * 8
        self.id_label = self.id_label or ident
        text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
        # surrogatepass: half a UTF-16 pair in an id only has to be told apart, not shown
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()

    def raw(self, source: str) -> RawBattles:
        lines = (
            np.frombuffer(self.lines, dtype=np.int64) if len(self.lines) else np.zeros(0, np.int64)
        )

        def where(k: int) -> str:
            return self.where(k + 1, int(lines[k]))

        keys = None
        if self.id_label:
            keys = np.frombuffer(bytes(self.keys), dtype=np.uint64).reshape(-1, 2)
        tstamp = np.array(self.tstamp, dtype=float)
        anony = np.array(self.anony, dtype=np.int8)
        return RawBattles(
            self.name,
            source,
            list(self.models),
            np.array(self.a, dtype=np.int64),
            np.array(self.b, dtype=np.int64),
            np.array(self.outcome, dtype=np.int8),
            where,
            "field",
            anony if (anony >= 0).any() else None,
            tstamp if (~np.isnan(tstamp)).any() else None,
            keys,
            self._label(),
        )

    def _label(self) -> str:
        if self.id_label == "question_id":
            return "question_id, models, judge and turn"
        return self.id_label


def read_battle_json(path: str | Path, progress: Progress | None = None) -> RawBattles:
    """A JSON array or JSON Lines file of battles, streamed (memory: one record)."""
    path = Path(path)
    with open(path, "rb") as fh:
        head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
        fh.seek(0)
        jsonl = not head.startswith(b"[")
        collector = _Collector(path.name, jsonl)
        records = (json_lines if jsonl else json_array)(fh, path.name, progress)
        for record, line, obj in records:
            collector.add(record, line, obj)
    if not collector.a:
        raise CsvFormatError(f"{path.name}: no battles (the file holds no records)")
    return collector.raw("JSON Lines" if jsonl else "JSON array")


# -- options ---------------------------------------------------------------------------------


def _duplicates(raw: RawBattles, keep: np.ndarray, drop: bool) -> Duplicates | None:
    """Find records repeating an earlier record's key; clear them from ``keep`` if ``drop``."""
    if raw.keys is None or len(raw.keys) < 2:
        return None
    _, first, inverse = np.unique(raw.keys, axis=0, return_index=True, return_inverse=True)
    firsts = first[inverse.reshape(-1)]
    dup = np.flatnonzero(firsts != np.arange(len(firsts)))
    if not dup.size:
        return None
    k, j = int(dup[0]), int(firsts[dup[0]])
    conflicting = int(np.count_nonzero(raw.outcome[dup] != raw.outcome[firsts[dup]]))
    example = f"{raw.where(k)} repeats {_short(raw.where(j), raw.name)} (same {raw.id_label})"
    if drop:
        keep[dup] = False
    return Duplicates(int(dup.size), conflicting, example, drop)


def _short(where: str, name: str) -> str:
    return where[len(name) + 1 :] if where.startswith(name + " ") else where


def _a_whole_table(obj: Any) -> bool:
    """A first record that is a table, as pandas writes one with another ``orient``:
    columns or index (an object of objects), split or table (``data`` beside
    ``columns``/``schema``), values (a list of lists)."""
    if isinstance(obj, list):  # a row of values (a battle is never a list)
        return True
    if not isinstance(obj, dict) or isinstance(obj.get("model_a"), str) or not obj:
        return False
    return (all(isinstance(v, dict) for v in obj.values())
            or "data" in obj and ("columns" in obj or "schema" in obj))


def _two_spellings(raw: RawBattles, first: int, second: int) -> None:
    """Refuse two model names that differ only in their Unicode spelling, naming both."""
    def record(code: int) -> int:
        return int(np.flatnonzero((raw.a == code) | (raw.b == code))[0])

    k = record(second)
    field = raw.fields[0] if raw.a[k] == second else raw.fields[1]
    raise raw.error(k, field, f"{raw.models[second]!r} and {raw.models[first]!r} "
                              f"({raw.where(record(first))}) {TWO_SPELLINGS}")


def finalize(raw: RawBattles, options: BattleOptions | None = None) -> VoteFile:
    """Apply ``options`` to ``raw`` and build :class:`Votes` (models sorted by name)."""
    opt = options or BattleOptions()
    n = len(raw.a)
    same = np.flatnonzero(raw.a == raw.b)
    if same.size:
        k = int(same[0])
        raise raw.error(
            k,
            raw.fields[1],
            f"the same model as {raw.field_word} '{raw.fields[0]}' ({raw.models[raw.a[k]]!r})",
        )
    if (twins := nfc_twins(raw.models)) is not None:
        _two_spellings(raw, *twins)
    keep = np.ones(n, dtype=bool)
    left_out: dict[str, int] = {}
    dups = _duplicates(raw, keep, opt.duplicates == "drop")
    if dups is not None and dups.dropped:
        left_out["duplicates"] = dups.count
    if opt.anonymous_only:
        anony = raw.anony if raw.anony is not None else np.full(n, -1, dtype=np.int8)
        missing = np.flatnonzero(anony < 0)
        if missing.size:
            raise raw.error(
                int(missing[0]),
                "anony",
                "not given; keeping only anonymous battles needs it on every battle",
            )
        named = keep & (anony == 0)
        left_out["not_anonymous"] = int(named.sum())
        keep &= anony == 1
    outcome = raw.outcome
    if opt.bothbad == "drop":
        bad = keep & (outcome == BOTHBAD)
        left_out["bothbad"] = int(bad.sum())
        keep &= outcome != BOTHBAD
    left_out = {k: v for k, v in left_out.items() if v}
    idx = np.flatnonzero(keep)
    if not idx.size:
        why = describe_left_out(left_out)
        raise CsvFormatError(f"{raw.name}: no battles left to count (left out: {why})")
    a, b = raw.a[idx], raw.b[idx]
    out = np.where(outcome[idx] == BOTHBAD, TIE, outcome[idx]).astype(np.int8)
    used = np.unique(np.concatenate([a, b]))
    names = [raw.models[c] for c in used]
    order = np.argsort(names, kind="stable")
    remap = np.full(len(raw.models), -1, dtype=np.int64)
    remap[used[order]] = np.arange(len(used))
    votes = Votes(tuple(names[i] for i in order), remap[a], remap[b], out)
    vote_order, by = None, ""
    if raw.ordered:
        stamps = raw.tstamp[idx] if raw.tstamp is not None else None
        if stamps is not None and not np.isnan(stamps).any():
            vote_order, by = np.argsort(stamps, kind="stable"), "tstamp"
        else:
            vote_order, by = np.arange(len(idx)), "file"
    unvoted = tuple(sorted(set(raw.models) - set(names)))
    return VoteFile(votes, raw.source, raw.records if raw.records >= 0 else n, left_out, dups,
                    vote_order, by, unvoted)
