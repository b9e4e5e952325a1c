"""How a spreadsheet wrote a statistics CSV: its field separator and header names (ADR 159).

Excel in a European locale separates fields with ``;`` (and writes ``4,5`` for 4.5);
tab-separated text comes from "Unicode text" exports and hand-made files; people write
``Model A`` for FastChat's ``model_a``.  The separator is named by an Excel ``sep=`` first
line, else read from the header line — the one of ``,``, ``;`` and tab it holds most
often outside quotes, a comma when none — so a file is never guessed at from its data.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
import unicodedata

#: the separators a header line may use, in the order that breaks a tie
SEPARATORS = (",", ";", "\t")
_HEADER_GAPS = re.compile(r"[\s\-]+")
#: Excel's first line naming the separator (``sep=;``), after an optional BOM
_SEP_LINE = re.compile(rb"(\xef\xbb\xbf)?sep=([^\r\n])[ \t]*(?=\r?\n|$)")
#: a number with a decimal comma and nothing else (``4,5``, ``-0,25``, ``,5``)
_DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+")


def header_name(field: str) -> str:
    """A header field as matched: stripped, lower case, inner blanks and hyphens as
    one ``_`` (``Model A``, ``model-a`` and ``MODEL_A`` are all ``model_a``)."""
    return _HEADER_GAPS.sub("_", field.strip().lower())


def sniff_separator(raw: bytes) -> str:
    """The field separator of a CSV, read from its first non-blank line."""
    body = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    for line in body.splitlines():
        if line.strip():
            unquoted = re.sub(rb'"[^"]*"', b"", line)
            counts = [unquoted.count(s.encode()) for s in SEPARATORS]
            return SEPARATORS[counts.index(max(counts))] if max(counts) else ","
    return ","


def excel_sep_line(raw: bytes) -> tuple[bytes, str | None]:
    """``(raw, separator)``: a first line ``sep=X`` (which Excel reads and some tools
    write) names the separator; it is blanked, not removed, so lines keep their numbers."""
    m = _SEP_LINE.match(raw)
    if m is None:
        return raw, None
    return (m.group(1) or b"") + raw[m.end():], m.group(2).decode("latin-1")


def decimal_comma(text: str) -> float | None:
    """``4,5`` → 4.5 (a file separated by ``;`` writes numbers so); None for anything else."""
    if _DECIMAL_COMMA.fullmatch(text):
        return float(text.replace(",", "."))
    return None


def first_row(raw: bytes) -> list[str]:
    """The header fields of a CSV's start (stripped, as written; empty when unreadable)."""
    raw, named = excel_sep_line(raw)
    text = raw.decode("utf-8-sig", errors="replace")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=named or sniff_separator(raw))
    try:
        return [f.strip() for f in next((r for r in reader if "".join(r).strip()), [])]
    except csv.Error:
        return []


def utf16_as_utf8(raw: bytes) -> bytes:
    """A CSV that starts with a UTF-16 byte-order mark (Excel's "Unicode text") as UTF-8;
    any other bytes unchanged.  Raises :class:`UnicodeDecodeError` for broken UTF-16."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return raw.decode("utf-16").encode("utf-8")
    return raw


#: the end of the message for two names that differ only in their Unicode spelling
TWO_SPELLINGS = ("are one text in two Unicode spellings (composed and decomposed accents); "
                 "write it one way")


def nfc_twins(values: list[str]) -> tuple[int, int] | None:
    """Indices ``(first, second)`` of two different values that are one text in two Unicode
    spellings (``é`` and ``e`` + U+0301), or None."""
    if "".join(values).isascii():
        return None
    seen: dict[str, int] = {}
    for i, v in enumerate(values):
        first = seen.setdefault(unicodedata.normalize("NFC", v), i)
        if values[first] != v:
            return first, i
    return None
