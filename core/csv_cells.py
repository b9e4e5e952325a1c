"""Spreadsheet-safe CSV cells: formula injection neutralised, reversibly (ADR 153).

A spreadsheet treats a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return as a formula; a sample id, model or rater name scraped from the web can
therefore run ``=HYPERLINK(...)`` or DDE when a curator opens an exported CSV. Every CSV
Winnow writes passes its text cells through :func:`safe_cell`, which puts one ``'`` in
front of such a cell (OWASP's advice). Plain numbers (``-0.5``, ``+3``, ``-inf``) are left
alone. Cells that already start with quotes followed by a trigger get one more quote, so
:func:`plain_cell` undoes :func:`safe_cell` exactly: a round trip through Winnow's own
readers gives back the original text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

#: First characters that make a spreadsheet evaluate a cell.
TRIGGERS = frozenset("=+-@\t\r")
#: What goes in front of a cell that would be evaluated.
ESCAPE = "'"
_NUMBER = re.compile(r"[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)",
                     re.IGNORECASE)
_ESCAPED = re.compile(r"'+[=+\-@\t\r]")


def safe_cell(value: Any) -> Any:
    """``value`` with one ``'`` in front when a spreadsheet would evaluate it (or when it
    already looks escaped); anything that is not text, or is a plain number, unchanged."""
    if not isinstance(value, str) or not value:
        return value
    if (value[0] in TRIGGERS and not _NUMBER.fullmatch(value)) or _ESCAPED.match(value):
        return ESCAPE + value
    return value


def plain_cell(text: str) -> str:
    """The original text of a cell :func:`safe_cell` wrote (the inverse)."""
    return text[1:] if _ESCAPED.match(text) else text


def safe_row(row: Iterable[Any]) -> list[Any]:
    """:func:`safe_cell` over a row."""
    return [safe_cell(v) for v in row]
