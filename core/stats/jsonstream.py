"""Stream the records of a JSON array or a JSON Lines file with bounded memory (ADR 022).

A FastChat ``clean_battle*.json`` is one JSON array that can be hundreds of megabytes;
``json.load`` would hold the whole text and every object at once.  :func:`json_array`
reads the file in chunks and decodes one element at a time with the C decoder
(``JSONDecoder.raw_decode``), so memory is one chunk plus one record, whatever the
file's size.  :func:`json_lines` reads JSON Lines through
:class:`core.ingest.lines.BoundedLines`, which never holds more than one bounded line.

Both yield ``(record number, line number, value)`` (1-based) and raise
:class:`JsonStreamError` naming the file, the record and its line for anything wrong:
bad UTF-8, malformed JSON, ``NaN``/``Infinity`` (not JSON), integers too long for
Python, nesting too deep, a record larger than :data:`MAX_RECORD_BYTES`, text after
the array's closing bracket.  Objects that repeat a key keep the names in
:data:`DUPLICATE_KEYS` so the caller can refuse them where they matter.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, cast

from core.ingest.lines import BoundedLines
from core.stats.csvcolumns import CsvFormatError

#: Largest single record (one battle object, or one line of JSON Lines).
MAX_RECORD_BYTES = 64 * 2**20
CHUNK = 1 << 20
#: Key under which an object lists the keys it repeats (JSON keeps only the last value).
DUPLICATE_KEYS = "\x00duplicate keys"
#: An error this close to the end of the text read so far may only mean "read more".
_NEAR_END = 32
_WS = re.compile(r"[ \t\n\r]*")

Progress = Callable[[int], None]  # bytes read so far


class JsonStreamError(CsvFormatError):
    """A JSON or JSON Lines statistics file is malformed; the message names the record."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        repeated: set[str] = set()
        for key, _value in pairs:
            (repeated if key in seen else seen).add(key)
        obj[DUPLICATE_KEYS] = sorted(repeated)
    return obj


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant)


def _problem(exc: BaseException) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON: {exc.msg}"
    if isinstance(exc, RecursionError):
        return "values nested too deeply"
    text = str(exc)
    if "digits" in text:
        return "a number with too many digits"
    return text


def json_lines(
    fh: BinaryIO, name: str, progress: Progress | None = None
) -> Iterator[tuple[int, int, Any]]:
    """``(record, line, value)`` for each non-blank line of a JSON Lines file."""
    lines = BoundedLines(fh, MAX_RECORD_BYTES)
    record = reported = 0
    for lineno, raw in lines:
        if isinstance(raw, int):
            raise JsonStreamError(
                f"{name} line {lineno}: {raw / 2**20:,.0f} MB on one line is "
                f"more than the {MAX_RECORD_BYTES // 2**20} MB a record may have"
            )
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonStreamError(
                f"{name} line {lineno}: not UTF-8 text (byte {exc.start} of "
                "the line cannot be decoded)"
            ) from None
        if lineno == 1:
            text = text.removeprefix("\ufeff")
        if not text.strip():
            continue
        record += 1
        try:
            value = _DECODER.decode(text)
        except (ValueError, RecursionError) as exc:
            hint = (
                " (JSON Lines holds one whole record per line; a JSON array starts with '[')"
                if record == 1 and isinstance(exc, json.JSONDecodeError)
                else ""
            )
            if isinstance(exc, json.JSONDecodeError) and exc.msg == "Extra data":
                raise JsonStreamError(
                    f"{name} line {lineno}: more than one JSON value on the line{hint}"
                ) from None
            raise JsonStreamError(f"{name} line {lineno}: {_problem(exc)}{hint}") from None
        if progress is not None and lines.offset - reported >= CHUNK:
            reported = lines.offset
            progress(reported)
        yield record, lineno, value


class _Text:
    """The decoded text of a binary file, read chunk by chunk; ``buf[pos:]`` is unread."""

    def __init__(self, fh: BinaryIO, name: str, progress: Progress | None) -> None:
        self.fh = fh
        self.name = name
        self.progress = progress
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.buf = ""
        self.pos = 0
        self.line = 1  # line number at buf[pos]
        self.eof = False
        self.read_bytes = 0
        self.first = True

    def more(self, at_least: int = 0) -> bool:
        """Append at least ``at_least`` more bytes' worth of text; False at end of file."""
        if self.eof:
            return False
        if self.pos > CHUNK:
            self.buf = self.buf[self.pos :]
            self.pos = 0
        data = self.fh.read(max(CHUNK, at_least))
        self.read_bytes += len(data)
        try:
            text = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            line = self.line + self.buf.count("\n", self.pos) + data.count(b"\n", 0, exc.start)
            byte = self.read_bytes - len(data) + exc.start
            raise JsonStreamError(
                f"{self.name} line {line}: not UTF-8 text (byte {byte} cannot be decoded)"
            ) from None
        if self.first:
            text = text.removeprefix("\ufeff")
            self.first = False
        if not data:
            self.eof = True
        self.buf += text
        if self.progress is not None:
            self.progress(self.read_bytes)
        return bool(data) or bool(text)

    def skip_ws(self) -> str:
        """Skip whitespace; the next character, or "" at end of file."""
        while True:
            # the pattern matches the empty string too, so there is always a match
            end = cast("re.Match[str]", _WS.match(self.buf, self.pos)).end()
            self.line += self.buf.count("\n", self.pos, end)
            self.pos = end
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""

    def where(self, record: int | None = None, line: int | None = None) -> str:
        at = f" record {record}" if record is not None else ""
        return f"{self.name}{at} (line {self.line if line is None else line})"

    def value(self, record: int) -> Any:
        """Decode the value at ``pos``, reading more text while it may be incomplete."""
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                incomplete = exc.pos >= len(self.buf) - _NEAR_END or exc.msg.startswith(
                    "Unterminated string"
                )
                if incomplete and not self.eof:
                    size = len(self.buf) - self.pos
                    if size > MAX_RECORD_BYTES:
                        raise JsonStreamError(
                            f"{self.where(record)}: the record is longer than "
                            f"{MAX_RECORD_BYTES // 2**20} MB (or is not valid JSON)"
                        ) from None
                    self.more(size)  # doubles what is held: linear, not quadratic
                    continue
                line = self.line + self.buf.count("\n", self.pos, exc.pos)
                raise JsonStreamError(f"{self.where(record, line)}: {_problem(exc)}") from None
            except (ValueError, RecursionError) as exc:
                raise JsonStreamError(f"{self.where(record)}: {_problem(exc)}") from None
            if end == len(self.buf) and not self.eof:  # a bare number may go on: read more
                self.more()
                continue
            self.line += self.buf.count("\n", self.pos, end)
            self.pos = end
            return value


def json_array(
    fh: BinaryIO, name: str, progress: Progress | None = None
) -> Iterator[tuple[int, int, Any]]:
    """``(record, line, value)`` for each element of the JSON array that is the whole file."""
    text = _Text(fh, name, progress)
    first = text.skip_ws()
    if first != "[":
        got = "an empty file" if not first else f"{first!r}"
        raise JsonStreamError(
            f"{text.where()}: expected a JSON array of records starting with '[', found {got}"
        )
    text.pos += 1
    record = 0
    if text.skip_ws() == "]":
        text.pos += 1
    else:
        while True:
            record += 1
            if text.skip_ws() in ("", "]", ","):
                raise JsonStreamError(
                    f"{text.where(record)}: expected a value"
                    + (
                        " (the file ends inside the array)"
                        if text.eof and text.pos >= len(text.buf)
                        else ""
                    )
                )
            line = text.line
            yield record, line, text.value(record)
            sep = text.skip_ws()
            text.pos += 1
            if sep == "]":
                break
            if sep != ",":
                found = f"{sep!r}" if sep else "the end of the file"
                raise JsonStreamError(
                    f"{text.where(record)}: expected ',' or ']' after the record, found {found}"
                )
    if text.skip_ws():
        raise JsonStreamError(f"{text.where()}: text after the closing ']' of the array")
