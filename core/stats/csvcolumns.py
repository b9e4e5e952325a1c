"""Reading one statistics CSV into columns, with errors that name row and column (ADR 018).

Every file has a header row (names matched case-insensitively, extra columns ignored),
UTF-8 (a BOM is fine), blank lines skipped; values are stripped.  Spreadsheet dialects —
``;`` or tab separators, decimal commas, UTF-16 with a BOM, ``Model A`` — are read as
ADR 159 says (:mod:`core.stats.csvdialect`).  Each wanted column
is held *encoded*: its distinct values and one integer code per record, so that
validation and the statistics' own indexing work on small arrays of distinct values
and numpy codes instead of millions of Python strings.

Three parsers fill it, with one meaning, tried in this order:

* large unquoted files whose every line has the header's number of fields (checked on
  the bytes: the file's commas and newlines, all else deleted, must be the header's
  pattern repeated) are split with ``str.split``, only their distinct lines into fields,
  without per-row Python (a 2,000,000-vote file in a third of a second; ADR 026);
* other large files without any double quote go through ``pyarrow``'s CSV reader when
  the ``[parquet]`` extra is installed (blank lines inside, say);
* everything else — small files, quoted fields, and any file the others decline
  (ragged rows, bad UTF-8, blank lines) — through the stdlib :mod:`csv` module, which
  also words every error message.

Stripping, number parsing and every check run on the distinct values with the same
Python code whichever parser read the file, so all give the same results and the
same messages.  Only when a value is wrong is the file re-scanned to turn a record
index into its line number.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
import stat
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import islice
from operator import itemgetter
from pathlib import Path

import numpy as np

from core.csv_cells import plain_cell
from core.file_kinds import UTF32_BOMS, binary_kind, first_hole, line_at
from core.gc_pause import paused_gc
from core.stats.csvdialect import (
    TWO_SPELLINGS,
    decimal_comma,
    excel_sep_line,
    header_name,
    sniff_separator,
    utf16_as_utf8,
)

#: Largest CSV file read (memory is a few times the file's size): 2 GB, ~80M votes.
MAX_FILE_BYTES = 2 * 2**30
#: Files at least this large (and free of quotes) are parsed by pyarrow.
FAST_MIN_BYTES = 256 * 1024
#: Files at least this large (and free of quotes) may be split without the csv module.
SPLIT_MIN_BYTES = 256 * 1024
#: bytes of a file's start looked at before it is read whole
_HEAD_BYTES = 65536
#: lines looked at to choose between numbering distinct lines and splitting them all
_PROBE = 10_000
#: a line whose first field is blank (str.strip's whitespace is exactly ``\s``)
_BLANK_FIRST = re.compile(r"^\s*,", re.MULTILINE)
#: every byte but the comma and the newline (deleted to see the file's shape)
_NOT_SEPARATORS = bytes(b for b in range(256) if b not in b",\n")


class CsvFormatError(ValueError):
    """A statistics CSV file is malformed; the message names the file, row and column."""


Encoded = tuple[list[str], np.ndarray]  # (distinct stripped values, int64 code per record)


def _encode_raw(values: Sequence[str]) -> Encoded:
    """Distinct raw values and each value's code (dict.fromkeys and map run in C)."""
    index = {v: k for k, v in enumerate(dict.fromkeys(values))}
    codes = np.fromiter(map(index.__getitem__, values), dtype=np.int64, count=len(values))
    return list(index), codes


def _encode_strings(values: Sequence[str]) -> Encoded:
    # distinct raw values first, then strip only those
    return _restrip(*_encode_raw(values))


def _restrip(uniques: list[str], codes: np.ndarray) -> Encoded:
    """Strip distinct raw values (two raw values may strip to one), undo the spreadsheet
    escape Winnow's own CSV exports put on cells like ``=m`` (ADR 153), and remap the
    codes."""
    index: dict[str, int] = {}
    remap = np.fromiter((index.setdefault(plain_cell(u.strip()), len(index)) for u in uniques),
                        dtype=np.int64, count=len(uniques))
    return list(index), remap[codes] if len(uniques) else codes


class _Columns(Mapping[str, list[str]]):
    """``columns[name]`` as a list of stripped strings, built when first asked for."""

    def __init__(self, encoded: dict[str, Encoded]) -> None:
        self._encoded = encoded
        self._lists: dict[str, list[str]] = {}

    def __getitem__(self, name: str) -> list[str]:
        if name not in self._lists:
            uniques, codes = self._encoded[name]
            self._lists[name] = np.asarray(uniques, dtype=object)[codes].tolist()
        return self._lists[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._encoded)

    def __len__(self) -> int:
        return len(self._encoded)


class CsvColumns:
    """The wanted columns of a CSV file, encoded, plus validators that name the row."""

    def __init__(
        self, path: str | Path, required: Sequence[str], optional: Sequence[str] = ()
    ) -> None:
        self.path = Path(path)
        self.name = self.path.name
        st = self.path.stat()
        if not stat.S_ISREG(st.st_mode):  # a pipe waits for a writer, /dev/zero never ends
            raise CsvFormatError(f"{self.name}: not a regular file (a folder, pipe or device)")
        size = st.st_size
        if size > MAX_FILE_BYTES:
            raise CsvFormatError(f"{self.name}: {size / 2**30:.1f} GB is more than the "
                                 f"{MAX_FILE_BYTES // 2**30} GB a statistics file may have; "
                                 "split it")
        self._refuse_before_reading(size)
        try:
            self._raw = utf16_as_utf8(self.path.read_bytes())
        except UnicodeDecodeError as exc:
            raise CsvFormatError(f"{self.name}: broken UTF-16 text ({exc.reason} at byte "
                                 f"{exc.start}); save it as UTF-8") from None
        if (nul := self._raw.find(b"\x00")) >= 0:
            raise self._nul_error(self._raw.count(b"\n", 0, nul) + 1)
        self._text_cache: str | None = None
        #: ',' or, from a spreadsheet, ';', tab or a 'sep=' line's (ADR 159); the fast
        #: parsers read commas only
        self._raw, named = excel_sep_line(self._raw)
        self.separator = named or sniff_separator(self._raw[:65536])
        comma = self.separator == ","
        wanted = (*required, *optional)
        # the split first: as fast as pyarrow on a vote file and no import (ADR 026)
        parsed: tuple[list[str] | None, int, dict[str, Encoded]] | None = (
            self._parse_split(wanted) if comma and len(self._raw) >= SPLIT_MIN_BYTES else None)
        if parsed is None and comma and self._fast_ok():
            parsed = self._parse_fast(wanted)
        if parsed is None:
            with paused_gc():  # millions of row lists, no cycles: see core.gc_pause
                parsed = self._parse_slow(wanted)
        header, self.n, encoded = parsed
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
        self.header = header
        self._encoded = encoded
        self.columns: Mapping[str, list[str]] = _Columns(encoded)

    def _refuse_before_reading(self, size: int) -> None:
        """What the file's start, or a sparse file's first hole, already shows — UTF-32,
        an archive or image, NUL bytes — said before gigabytes are read (ADR 212)."""
        with open(self.path, "rb") as fh:
            head = fh.read(_HEAD_BYTES)
            if head.startswith(UTF32_BOMS):
                raise CsvFormatError(f"{self.name}: UTF-32 text; save it as UTF-8")
            if kind := binary_kind(head, by_nul=False):
                raise CsvFormatError(f"{self.name}: {kind}"
                                     + ("" if "; " in kind else ", not a CSV file"))
            utf16 = head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
            nul = -1 if utf16 else head.find(b"\x00")  # UTF-16 holds NULs: read whole
            if nul < 0 and (hole := first_hole(fh.fileno(), size)) is not None:
                nul = hole
            if nul >= 0:
                raise self._nul_error(line_at(fh, nul))

    def _unreadable(self, line: int, exc: csv.Error) -> CsvFormatError:
        if "field limit" not in str(exc):
            return CsvFormatError(f"{self.name} row {line}: unreadable CSV: {exc}")
        reader = csv.reader(io.StringIO(self._text, newline=""), delimiter=self.separator)
        start = 0  # the line after the last record read whole: where the field began
        try:
            for _ in reader:
                start = reader.line_num
        except csv.Error:
            pass
        span = (f" (it runs on to row {line}: a quote that is never closed?)"
                if line > start + 1 else "")
        return CsvFormatError(f"{self.name} row {start + 1}: a field of more than "
                              f"{csv.field_size_limit():,} characters{span}")

    def _nul_error(self, line: int) -> CsvFormatError:
        return CsvFormatError(f"{self.name} row {line}: a NUL byte (binary data, or UTF-16 "
                              "text without a byte-order mark); save it as UTF-8 text")

    # -- parsing ------------------------------------------------------------------
    @property
    def _text(self) -> str:
        if self._text_cache is None:
            try:
                self._text_cache = self._raw.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                line = self._raw.count(b"\n", 0, exc.start) + 1
                raise CsvFormatError(
                    f"{self.name} row {line}: not UTF-8 text (byte {exc.start} cannot be "
                    "decoded); save it as UTF-8 text (in Excel: \"CSV UTF-8\")"
                ) from None
        return self._text_cache

    def _fast_ok(self) -> bool:
        """Large, unquoted and no bare CR: then pyarrow reads what :mod:`csv` would (lines
        of only blanks and commas, which the stdlib reader skips, are looked for after
        parsing, in :meth:`_parse_fast`)."""
        raw = self._raw
        if len(raw) < FAST_MIN_BYTES or b'"' in raw:
            return False
        return b"\r" not in raw or raw.count(b"\r") == raw.count(b"\r\n")

    def _parse_fast(self, wanted: Sequence[str]) -> tuple[list[str], int, dict[str, Encoded]] | None:
        """pyarrow's reader; None whenever it objects (the stdlib path then decides)."""
        try:
            import pyarrow as pa
            import pyarrow.csv as pacsv
        except ImportError:  # pragma: no cover - pyarrow is a dependency
            return None
        body = self._raw[3:] if self._raw.startswith(b"\xef\xbb\xbf") else self._raw
        start = 0
        while start < len(body) and body[start] in b"\r\n":
            start += 1
        end = body.find(b"\n", start)
        width = body.count(b",", start, end if end >= 0 else len(body)) + 1
        try:
            table = pacsv.read_csv(
                pa.BufferReader(body),
                read_options=pacsv.ReadOptions(autogenerate_column_names=True,
                                               block_size=8 * 2**20),
                parse_options=pacsv.ParseOptions(quote_char=False, ignore_empty_lines=True),
                convert_options=pacsv.ConvertOptions(
                    column_types={f"f{i}": pa.string() for i in range(width)},
                    strings_can_be_null=False, check_utf8=True))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            return None
        if table.num_columns != width or any(t != pa.string() for t in table.schema.types):
            return None
        if table.num_rows == 0:
            return None

        def encode(i: int) -> Encoded:  # a column's data records (the header row left out)
            dic = table.column(i).slice(1).combine_chunks().dictionary_encode()
            codes = dic.indices.to_numpy(zero_copy_only=False).astype(np.int64)
            return _restrip(dic.dictionary.to_pylist(), codes)

        header = [header_name(str(table.column(i)[0].as_py()))
                  for i in range(table.num_columns)]
        # a line of only blanks and commas has a blank first field: the stdlib reader
        # skips such lines, so a file with any blank first field is left to it
        first = encode(0)
        if not header[0] or "" in first[0]:
            return None
        encoded: dict[str, Encoded] = {}
        for col in wanted:
            if col in header and col not in encoded:
                i = header.index(col)
                encoded[col] = first if i == 0 else encode(i)
        return header, table.num_rows - 1, encoded

    def _parse_split(self, wanted: Sequence[str]) -> tuple[list[str], int,
                                                           dict[str, Encoded]] | None:
        """An unquoted file whose every line has the header's number of fields, split on
        its commas and newlines at once; None for any other file (the :mod:`csv` path
        then reads it and words any error).  What it accepts, :mod:`csv` reads the same:
        no quote or bare CR (a NUL is refused before parsing); blank lines only at the
        ends; no blank first field (a line the csv path would skip); no field over
        :func:`csv.field_size_limit`."""
        raw = self._raw
        if b'"' in raw:  # (a NUL byte was refused on reading)
            return None
        body = (raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw).strip(b"\r\n")
        if b"\r" in body and body.count(b"\r") != body.count(b"\r\n"):
            return None  # a bare CR (csv ends a line there)
        end = body.find(b"\n")
        commas = b"," * body.count(b",", 0, end if end >= 0 else len(body))
        lines = body.count(b"\n") + 1
        if lines < 2 or (body.translate(None, _NOT_SEPARATORS)
                         != (commas + b"\n") * (lines - 1) + commas):
            return None  # only a header; or a line has another number of fields, or is blank
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return None
        width = len(commas) + 1
        rows = text.split("\n")
        header = [header_name(f) for f in rows[0].split(",")]
        limit = csv.field_size_limit()
        if width == 1 or not header[0] or max(map(len, rows[0].split(","))) > limit:
            return None
        if header[0] not in wanted and _BLANK_FIRST.search(text):
            return None  # maybe a line of blanks and commas, which csv skips
        # distinct lines first: a vote file has a few hundred among millions of lines, so
        # only those are split into fields (a CR before an LF ends a field: stripped);
        # unless the first lines show most of them distinct (an id column)
        line_codes: np.ndarray | None = None
        if len(set(rows[1:_PROBE + 1])) * 2 <= min(_PROBE, lines - 1):
            distinct = {v: k for k, v in enumerate(dict.fromkeys(islice(rows, 1, None)))}
            line_codes = np.fromiter(map(distinct.__getitem__, islice(rows, 1, None)),
                                     dtype=np.int64, count=lines - 1)
            data = list(distinct)
        else:
            data = rows[1:]
        del rows
        fields = ",".join(data).split(",")
        if max(map(len, data)) > limit and max(map(len, fields)) > limit:
            return None
        encoded: dict[str, Encoded] = {}
        for i, col in enumerate(header):
            if col in wanted and col not in encoded:
                uniques, codes = _restrip(*_encode_raw(fields[i::width]))
                if i == 0 and "" in uniques:
                    return None  # maybe a line of blanks and commas, which csv skips
                encoded[col] = uniques, codes if line_codes is None else codes[line_codes]
        return header, lines - 1, encoded

    def _parse_slow(self, wanted: Sequence[str]) -> tuple[list[str] | None, int,
                                                          dict[str, Encoded]]:
        reader = csv.reader(io.StringIO(self._text, newline=""), delimiter=self.separator)
        try:
            rows = list(filter(None, reader))  # drops empty lines
        except csv.Error as exc:
            raise self._unreadable(reader.line_num, exc) from None
        if "" in set(map(str.strip, map(itemgetter(0), rows))):  # maybe all-blank rows
            rows = [r for r in rows if "".join(r).strip()]
        if not rows:
            return None, 0, {}
        header = [header_name(f) for f in rows[0]]
        rows = rows[1:]
        width = len(header)
        lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        for k in np.flatnonzero(lengths != width):
            if lengths[k] < width or any(f.strip() for f in rows[k][width:]):
                raise self.error(int(k), None, f"expected {width} fields, found {lengths[k]}")
        encoded: dict[str, Encoded] = {}
        for col in wanted:
            if col in header and col not in encoded:
                encoded[col] = _encode_strings(list(map(itemgetter(header.index(col)), rows)))
        return header, len(rows), encoded

    def _records(self) -> Iterator[tuple[int, list[str]]]:
        reader = csv.reader(io.StringIO(self._text, newline=""), delimiter=self.separator)
        try:
            for fields in reader:
                if fields and "".join(fields).strip():
                    yield reader.line_num, fields
        except csv.Error as exc:
            raise self._unreadable(reader.line_num, exc) from None

    # -- errors ---------------------------------------------------------------------
    def line(self, k: int) -> int:
        """File line number of data record ``k`` (0-based)."""
        for i, (line, _) in enumerate(self._records()):
            if i == k + 1:  # record 0 is the header
                return line
        return -1

    def error(self, k: int, column: str | None, message: str) -> CsvFormatError:
        """A :class:`CsvFormatError` naming record ``k``'s line and ``column``."""
        where = f"{self.name} row {self.line(k)}" + (f", column '{column}'" if column else "")
        return CsvFormatError(f"{where}: {message}")

    def _first(self, column: str, bad_codes: np.ndarray) -> int:
        """Index of the first record whose code is one of ``bad_codes``."""
        _, codes = self._encoded[column]
        return int(np.flatnonzero(np.isin(codes, bad_codes))[0])

    def has(self, column: str) -> bool:
        return column in self._encoded

    # -- column validators -------------------------------------------------------
    def categories(self, column: str) -> tuple[list[str], np.ndarray]:
        """Non-empty values as (distinct values, code per record)."""
        uniques, codes = self._encoded[column]
        if "" in uniques:
            raise self.error(self._first(column, np.array([uniques.index("")])), column,
                             "empty value")
        self.one_spelling((column,))
        return uniques, codes

    def one_spelling(self, columns: Sequence[str]) -> None:
        """Refuse two values of ``columns`` that are one text in two Unicode spellings
        (``é`` and ``e`` + U+0301 look the same; counted apart they would split a model)."""
        if all("".join(self._encoded[c][0]).isascii() for c in columns):
            return  # one C pass per column: the usual case
        seen: dict[str, tuple[str, str, int]] = {}  # NFC -> (value, column, index)
        for col in columns:
            for i, u in enumerate(self._encoded[col][0]):
                first = seen.setdefault(unicodedata.normalize("NFC", u), (u, col, i))
                if first[0] != u:
                    row = self.line(self._first(first[1], np.array([first[2]])))
                    raise self.error(
                        self._first(col, np.array([i])), col,
                        f"{u!r} and {first[0]!r} (row {row}, column '{first[1]}') "
                        f"{TWO_SPELLINGS}")

    def text(self, column: str) -> list[str]:
        self.categories(column)
        return self.columns[column]

    def numbers(
        self, column: str, positive: bool = False, non_negative: bool = False
    ) -> np.ndarray:
        uniques, codes = self._encoded[column]
        parsed = [self._number(v) for v in uniques]
        bad = np.array([j for j, x in enumerate(parsed) if x is None], dtype=np.int64)
        if len(bad):
            k = self._first(column, bad)
            got = uniques[int(codes[k])]
            hint = (" (write numbers with a decimal point; decimal commas are read only in "
                    "a file whose fields are separated by ';')"
                    if "," in got and self.separator != ";" else "")
            raise self.error(k, column, f"expected a number, got {got!r}{hint}")
        values = np.array(parsed, dtype=float)
        for ok, words in ((np.isfinite(values), "a finite number"),
                          (values > 0 if positive else None, "a positive number"),
                          (values >= 0 if non_negative else None, "a number >= 0")):
            if ok is not None and not ok.all():
                k = self._first(column, np.flatnonzero(~ok))
                raise self.error(k, column, f"expected {words}, got {uniques[int(codes[k])]!r}")
        return values[codes]

    def _number(self, text: str) -> float | None:
        try:
            return float(text)
        except ValueError:
            return decimal_comma(text) if self.separator == ";" else None

    def codes(self, column: str, mapping: dict[str, float], expected: str) -> np.ndarray:
        """Map case-insensitive values through ``mapping``; anything else is an error."""
        uniques, codes = self._encoded[column]
        lowered = [u.lower() for u in uniques]
        unknown = [i for i, u in enumerate(lowered) if u not in mapping]
        if unknown:
            k = self._first(column, np.array(unknown))
            raise self.error(k, column, f"expected {expected}, got {uniques[int(codes[k])]!r}")
        table = np.array([mapping[u] for u in lowered], dtype=float)
        return table[codes]

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
