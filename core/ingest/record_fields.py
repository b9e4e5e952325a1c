"""The typed fields of a JSON Lines record: text, ids, lists, flags and timestamps.

Split from :mod:`core.ingest.records` (ADR 227), which parses posts and samples with these
getters. Each one reads one field of a parsed JSON object and raises
:class:`RecordError` naming the field's path (``replies_below[2].text``) when its type or
value is wrong (numbers are not text; an id is a string or an integer of at most
:data:`MAX_ID` characters with no control characters, ADR 166).
"""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime
from typing import Any

MAX_TEXT = 1_000_000  # characters; longer text is refused, not truncated silently
#: Characters an id may not hold: controls (NUL, newline, escape…) and the line and
#: paragraph separators U+2028/U+2029.
_LINE_BREAKING = ("Cc", "Zl", "Zp")
MAX_ID = 1_000  # characters of a post or sample id (ids name files, rows, cells: ADR 166)


class RecordError(ValueError):
    """A field of a JSONL record has the wrong type or value."""


def type_name(value: Any) -> str:
    """The JSON name of a parsed value's type (``null``, ``list``, ``string``…)."""
    return {dict: "object", list: "list", str: "string", bool: "boolean",
            int: "integer", float: "number", type(None): "null"}.get(type(value),
                                                                        type(value).__name__)


def text_field(obj: dict[str, Any], key: str, path: str, *, required: bool = False,
               default: str | None = None) -> str | None:
    """A text field: a JSON string (numbers are refused, not turned into text)."""
    value = obj.get(key)
    if type(value) is str and len(value) <= MAX_TEXT:  # the common case, first
        return value
    if value is None:
        if required:
            raise RecordError(f"missing field '{path}{key}'")
        return default
    if not isinstance(value, str):
        raise RecordError(f"field '{path}{key}' must be a string, got {type_name(value)}")
    if len(value) > MAX_TEXT:
        raise RecordError(f"field '{path}{key}' is too long ({len(value):,} characters)")
    return value


def id_field(obj: dict[str, Any], key: str, path: str, *, required: bool = False) -> str | None:
    """An id field: a string or an integer (``1`` and ``"1"`` are the same id), at most
    :data:`MAX_ID` characters, no control characters (ADR 166)."""
    value = obj.get(key)
    if type(value) is str and len(value) <= MAX_ID and value.isprintable():
        return value  # the common case, first
    if type(value) is str and len(value) <= MAX_ID:
        bad = next((c for c in value if unicodedata.category(c) in _LINE_BREAKING), None)
        if bad is None:
            return value  # not printable only for format or separator characters: kept
        raise RecordError(f"field '{path}{key}' contains the control character "
                          f"U+{ord(bad):04X} at position {value.index(bad)}, which an id "
                          "may not hold")
    if value is None:
        if required:
            raise RecordError(f"missing field '{path}{key}'")
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise RecordError(f"field '{path}{key}' must be a string or an integer, "
                          f"got {type_name(value)}")
    text = str(value)
    if len(text) > MAX_ID:
        raise RecordError(f"field '{path}{key}' is too long ({len(text):,} characters; an id "
                          f"may have at most {MAX_ID:,})")
    return text


def list_field(obj: dict[str, Any], key: str, path: str) -> list[Any]:
    """A list field (missing or null: an empty list)."""
    value = obj.get(key)
    if type(value) is list:
        return value
    if value is None:
        return []
    if not isinstance(value, list):
        raise RecordError(f"field '{path}{key}' must be a list, got {type_name(value)}")
    return value


def bool_field(obj: dict[str, Any], key: str, path: str) -> bool:
    """A flag: ``true`` or ``false`` (missing or null: false)."""
    value = obj.get(key, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise RecordError(f"field '{path}{key}' must be true or false, got {value!r}")
    return value


def timestamp_field(obj: dict[str, Any], path: str) -> str | None:
    """The ``timestamp`` field: text kept as it is, a number of seconds made ISO-8601 UTC."""
    value = obj.get("timestamp")
    if value is None:
        return None
    if isinstance(value, bool):
        raise RecordError(f"field '{path}timestamp' must be text or a number")
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(value, UTC).isoformat()
        except (OverflowError, OSError, ValueError) as exc:
            raise RecordError(f"field '{path}timestamp' is out of range: {value:.6g}") from exc
    if isinstance(value, str):
        if len(value) > 1000:
            raise RecordError(f"field '{path}timestamp' is too long ({len(value):,} characters)")
        return value
    raise RecordError(f"field '{path}timestamp' must be text or a number, "
                      f"got {type_name(value)}")
