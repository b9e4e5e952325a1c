"""Import a JSON Lines file of posts and samples into a project.

The file is streamed through a bounded line reader (:mod:`core.ingest.lines`); each
line is parsed strictly (:mod:`core.ingest.records`) and either staged or reported with
its line number.  Staged lines are written in batches, one transaction each
(:mod:`core.ingest.writer`), in line order, each line checked whole before anything of
it is staged (a sample whose post comes later in the file waits for the end; ADR 182).
If the database refuses a batch, it is rolled back and retried line by line, so one odd
value costs its own line and nothing else.  Finally every image the touched rows reference is fetched or
read and stored (:mod:`core.ingest.attach`).

Parsing runs in a read-ahead thread (:mod:`core.ingest.readahead`, ADR 029) while the
caller's thread writes the previous batch; everything that touches the project stays on
the caller's thread, and the rows are those of the sequential import
(``read_ahead=False``).

A bad line never stops the import; the report names it and says why.
"""

from __future__ import annotations

import json
import sqlite3
import stat
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.file_kinds import binary_kind
from core.http_pools import shown_url
from core.ingest.attach import LocalRoot, attach_images, boxes_off_images
from core.ingest.fetch import FetchSettings
from core.ingest.fields import Misspellings
from core.ingest.lines import BoundedLines
from core.ingest.readahead import ReadAhead
from core.ingest.records import (
    RecordError,
    SampleRecord,
    is_sample,
    loads,
    parse_post,
    parse_sample,
    shown_id,
    type_name,
    unicode_form,
)
from core.ingest.writer import BatchLog, PostLine, SampleLine, Writer
from core.jobs import JobState
from core.store.bulk import deferred_search_index
from core.store.project import Project

MAX_LINE_BYTES = 16 * 2**20
#: A batch is also cut once its lines hold this many bytes: with batches parsed ahead
#: (ADR 029), 2,000 lines near :data:`MAX_LINE_BYTES` each must not sit in memory twice.
MAX_BATCH_BYTES = 32 * 2**20
MAX_REPORTED_ERRORS = 10_000
_BOM = b"\xef\xbb\xbf"
#: What the database or the driver may raise for one odd row (defence in depth: the
#: parser refuses these values first).
_ROW_ERRORS = (sqlite3.Error, OverflowError, UnicodeError, ValueError, RecursionError)


class ImportFileError(ValueError):
    """The file to import cannot be read as a JSON Lines file at all."""


class ImportStoppedError(ValueError):
    """The project cannot be written (disk full, I/O error…): the import stopped.

    Every batch committed before is kept; the message says from which line on nothing
    was imported.
    """


@dataclass
class ImportReport:
    """What an import did; ``to_json()`` is the CLI's ``--json`` output."""

    source: str = ""
    imported: int = 0
    updated: int = 0
    unchanged: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)
    images_fetched: int = 0
    images_failed: int = 0
    image_errors: list[dict[str, Any]] = field(default_factory=list)
    suppressed_errors: int = 0

    def error(self, line: int, message: str) -> None:
        """Record a failing line (the list is capped; the count is not)."""
        if len(self.errors) < MAX_REPORTED_ERRORS:
            self.errors.append({"line": line, "error": message})
        else:
            self.suppressed_errors += 1

    @property
    def failed(self) -> int:
        """Lines and images that could not be imported."""
        return len(self.errors) + self.suppressed_errors + self.images_failed

    def to_json(self) -> dict[str, Any]:
        """The machine-readable report (keys fixed by the CLI contract)."""
        data: dict[str, Any] = {
            "imported": self.imported,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "errors": self.errors,
            "images": {"fetched": self.images_fetched, "failed": self.images_failed,
                       "errors": self.image_errors},
        }
        if self.notes:
            data["notes"] = self.notes
        if self.suppressed_errors:
            data["errors_not_listed"] = self.suppressed_errors
        return data

    def summary(self) -> str:
        """One human line."""
        n_err = len(self.errors) + self.suppressed_errors
        return (f"{self.imported} imported, {self.updated} updated, {self.unchanged} unchanged, "
                f"{n_err} line(s) with errors; images: {self.images_fetched} stored, "
                f"{self.images_failed} failed")


def check_source(path: str | Path) -> Path:
    """``path`` if it is a regular file that can be imported; else a clear error.

    Call it before creating anything (a missing file must not leave a new project).
    """
    path = Path(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        raise FileNotFoundError(f"{path} does not exist") from None
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(f"{path} is a folder, not a JSON Lines file")
    if not stat.S_ISREG(st.st_mode):
        raise ImportFileError(f"{path} is not a regular file (a device, a pipe or a socket "
                              "cannot be imported)")
    with open(path, "rb") as fh:
        head = fh.read(4096)
    wide = _wide_encoding(head[:4])
    if wide:
        raise ImportFileError(f"{path} is {wide} text; JSON Lines files are UTF-8: save it "
                              "again as UTF-8 (nothing was imported)")
    what = binary_kind(head, by_nul=False)  # a line with NULs is that line's error
    if what is not None:
        hint = " (import it with `winnow import hf`)" if what == "a Parquet file" else ""
        what = what if "; " in what else f"{what}, not JSON Lines{hint}"
        raise ImportFileError(f"{path} is {what}; nothing was imported")
    return path


def _wide_encoding(head: bytes) -> str | None:
    """``UTF-16``/``UTF-32`` when a file starts like one: a byte-order mark, or zero bytes
    alternating with others as no UTF-8 text does (a UTF-8 file whose first line is merely
    bad is left to the per-line errors); else None."""
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16"
    if len(head) == 4 and ((head[0] and head[1:] == b"\x00\x00\x00")
                           or (head[3] and head[:3] == b"\x00\x00\x00")):
        return "UTF-32"
    if len(head) == 4 and any(all((b == 0) == (k % 2 == odd) for k, b in enumerate(head))
                              for odd in (0, 1)):
        return "UTF-16"  # "{\0"\0" (little end first) or "\0{\0"" (big end first)
    return None


def import_jsonl(project: Project, path: str | Path, *, fetch_settings: Any = None,
                 state: JobState | None = None, fetch_images: bool = True,
                 batch_size: int = 2000, image_root: str | Path | None = None,
                 read_ahead: bool = True) -> ImportReport:
    """Import ``path`` into ``project``; see the module docstring.

    Local image paths must lie inside the JSONL file's folder, or inside ``image_root``
    when given.  ``read_ahead=False`` parses and writes in turn on the calling thread
    (the same rows; slower on two cores or more).
    """
    path = check_source(path)
    state = state or JobState(title=f"Import {path.name}")
    local = LocalRoot(path.parent, Path(image_root) if image_root is not None else None)
    importer = _Importer(project, path, state, batch_size, fetch_images)
    importer.run(read_ahead)
    if fetch_images:
        project.assets.clean_stale()
        attach_images(project, state, local, fetch_settings, importer.record_image)
        importer.note_boxes_off_images()
    if importer.parser is not None:
        importer.report.notes += [{"line": n, "note": note}
                                  for n, note in importer.parser.misspelt.notes()]
    return importer.report


@dataclass
class _Batch:
    """Parsed lines ready to be written, and the lines refused on the way."""

    posts: list[PostLine]
    samples: list[SampleLine]
    errors: list[tuple[int, str]]  # (line, message), in line order
    offset: int  # bytes of the file read so far


class _LineParser:
    """Reads and checks the file's lines; touches no database (it may run in a thread)."""

    def __init__(self, path: Path, batch_size: int) -> None:
        self.path = path
        self.batch_size = batch_size
        self.first_line: dict[tuple[str, str], tuple[int, str]] = {}  # (kind, NFC id) -> line, id
        self.errors: list[tuple[int, str]] = []
        self.misspelt = Misspellings()

    def batches(self, stopping: Callable[[], bool]) -> Iterator[_Batch]:
        """Batches of ``batch_size`` good lines (posts + samples, or fewer once they hold
        :data:`MAX_BATCH_BYTES`), the same whether read ahead or not; lines without
        anything to write (bad, blank) are handed on at least every ``batch_size``
        lines, with no rows, so progress, Cancel and the error list keep moving through
        a file of bad lines."""
        posts: list[PostLine] = []
        samples: list[SampleLine] = []
        seen = 0  # lines since the last batch handed on
        size = 0  # bytes of the lines in ``posts`` and ``samples``
        with open(self.path, "rb") as fh:
            reader = BoundedLines(fh, MAX_LINE_BYTES)
            for lineno, raw in reader:
                if lineno % 16 == 0 and stopping():
                    return
                parsed = self._parse_line(lineno, raw)
                if isinstance(parsed, SampleRecord):
                    samples.append((lineno, parsed))  # with its embedded posts (ADR 182)
                elif parsed is not None:
                    posts.append((lineno, parsed))
                if parsed is not None:
                    size += len(raw)  # type: ignore[arg-type]  # parsed: raw is bytes
                seen += 1
                if len(posts) + len(samples) >= self.batch_size or size > MAX_BATCH_BYTES:
                    yield _Batch(posts, samples, self._take_errors(), reader.offset)
                    posts, samples, seen, size = [], [], 0, 0
                elif seen >= self.batch_size:
                    yield _Batch([], [], self._take_errors(), reader.offset)
                    seen = 0
            yield _Batch(posts, samples, self._take_errors(), reader.offset)

    def _take_errors(self) -> list[tuple[int, str]]:
        errors, self.errors = self.errors, []
        return errors

    def _parse_line(self, lineno: int, raw: bytes | int) -> SampleRecord | list[Any] | None:
        if isinstance(raw, int):
            self.errors.append((lineno, f"line is too long ({raw:,} bytes; the limit is "
                                        f"{MAX_LINE_BYTES:,})"))
            return None
        if lineno == 1 and raw.startswith(_BOM):
            raw = raw[len(_BOM):]
        if not raw.strip():
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.errors.append((lineno, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at "
                                        f"position {exc.start})"))
            return None
        try:
            obj = loads(text)
            if not isinstance(obj, dict):
                raise RecordError(f"expected a JSON object, got {type_name(obj)}")
            parsed = parse_sample(obj) if is_sample(obj) else parse_post(obj)
            self.misspelt.check(lineno, obj.keys())
        except json.JSONDecodeError as exc:
            self.errors.append((lineno, _json_error(text, exc)))
            return None
        except RecordError as exc:
            self.errors.append((lineno, str(exc)))
            return None
        except RecursionError:
            self.errors.append((lineno, "nested too deeply"))
            return None
        except (ValueError, OverflowError) as exc:  # odd values the checks above missed
            self.errors.append((lineno, f"invalid value: {exc}"))
            return None
        return self._unique(lineno, parsed)

    def _unique(self, lineno: int, parsed: SampleRecord | list[Any]) -> SampleRecord | list[Any] | None:
        """Refuse a second line with the same post or sample id (``1`` and ``"1"`` too)."""
        kind, ident = ("sample", parsed.id) if isinstance(parsed, SampleRecord) else (
            "post", parsed[0].id)
        key = ident if ident.isascii() else unicodedata.normalize("NFC", ident)
        first, first_id = self.first_line.setdefault((kind, key), (lineno, ident))
        if first == lineno:
            return parsed
        if first_id == ident:
            self.errors.append((lineno, f"{kind} id '{shown_id(ident)}' is already on line "
                                        f"{first} (ids must be unique in a file; this line "
                                        "was not imported)"))
        else:  # NFC and NFD: two texts a reader cannot tell apart (ADR 166)
            self.errors.append((lineno, f"{kind} id '{shown_id(ident)}' ({unicode_form(ident)}) is "
                                        f"the id on line {first} written in another Unicode "
                                        f"form ({unicode_form(first_id)}): composed and decomposed "
                                        "accents look the same; this line was not imported"))
        return None


def _json_error(text: str, exc: json.JSONDecodeError) -> str:
    """The message for a line that is not JSON, naming the invisible causes: a
    byte-order mark where only a file's start may have one, and CR-only line endings
    (a raw CR cannot be inside a JSON string, but it is whitespace between values, so
    it is not taken as a line break)."""
    message = f"invalid JSON: {exc.msg} (column {exc.colno})"
    if text[exc.pos:exc.pos + 1] == "\ufeff":
        return (f"{message}: a byte-order mark (U+FEFF, invisible) stands there; only the "
                "start of a file may have one (were two files joined?): remove it")
    breaks = text.rstrip("\r").count("\r")
    if breaks:
        return (f"{message}: the line holds {breaks:,} carriage return(s) (CR) with no line "
                "feed; the file seems to have old Mac line endings (CR only), which are "
                "not line breaks in JSON Lines: save it with LF or CRLF line endings")
    return message


class _Importer:
    def __init__(self, project: Project, path: Path, state: JobState, batch_size: int,
                 fetch_images: bool) -> None:
        self.project = project
        self.path = path
        self.state = state
        self.batch_size = max(1, batch_size)
        self.report = ImportReport(source=str(path))
        self.created: set[str] = set()
        self.writer = Writer(project, path.name, self.created, track_sources=fetch_images)
        self.source_lines: dict[str, list[int]] = {}
        self._gate: ReadAhead[_Batch] | None = None
        self.parser: _LineParser | None = None
        conn = project.conn
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS touched_posts(id TEXT PRIMARY KEY)")
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS touched_samples(id TEXT PRIMARY KEY)")
        conn.execute("DELETE FROM touched_posts")
        conn.execute("DELETE FROM touched_samples")

    # -- driver ------------------------------------------------------------------------
    def run(self, read_ahead: bool) -> None:
        waiting: list[SampleLine] = []
        self.state.set_status(f"Reading {self.path.name}")
        self.state.set_total(max(1, self.path.stat().st_size))
        parser = self.parser = _LineParser(self.path, self.batch_size)
        if read_ahead:  # parse batch N+1 in a thread while batch N is written (ADR 029)
            with ReadAhead(parser.batches, name="winnow-import-parse") as batches:
                self._gate = batches
                try:
                    for batch in batches:
                        waiting += self._write(batch)
                finally:
                    self._gate = None
        else:
            for batch in parser.batches(lambda: False):
                waiting += self._write(batch)
        self.state.set_status("Writing samples")
        for start in range(0, len(waiting), self.batch_size):
            self.state.check()
            self._flush([], waiting[start:start + self.batch_size], final=True)

    def _write(self, batch: _Batch) -> list[SampleLine]:
        """Report a parsed batch's bad lines, then write its good ones."""
        self.state.check()
        self.state.set_progress(batch.offset)
        for lineno, message in batch.errors:
            self.report.error(lineno, message)
        return self._flush(batch.posts, batch.samples, final=False)

    # -- batches -------------------------------------------------------------------------
    def _flush(self, posts: list[PostLine], samples: list[SampleLine],
               final: bool) -> list[SampleLine]:
        """Write one batch in one transaction; on a refusal, retry it line by line."""
        if not posts and not samples:
            return []
        log = BatchLog()
        try:
            if self._gate is not None:
                self._gate.pause()
            with self.project.transaction() as conn, deferred_search_index(conn):
                waiting = self.writer.write(conn, posts, samples, log, final)
                if self._gate is not None:
                    self._gate.resume()  # the bulk index inserts and the commit
        except sqlite3.OperationalError as exc:  # the disk or the file, not a row
            first = min([p[0] for p in posts] + [s[0] for s in samples])
            raise ImportStoppedError(
                f"{self.project.path.name} cannot be written ({exc}); the import stopped at "
                f"line {first} — everything before it is saved, import the file again "
                "once the problem is fixed") from exc
        except _ROW_ERRORS as exc:
            lines = {p[0] for p in posts} | {s[0] for s in samples}
            if len(lines) == 1:  # one line: it alone is refused, named
                lineno = lines.pop()
                self.report.error(lineno, f"could not be stored: {exc}")
                return []
            return self._one_by_one(posts, samples, final)
        self._apply(log)
        return waiting

    def _one_by_one(self, posts: list[PostLine], samples: list[SampleLine],
                    final: bool) -> list[SampleLine]:
        """Each line in its own transaction, in line order (a sample with its embedded
        posts: refused together, ADR 166)."""
        waiting: list[SampleLine] = []
        lines: list[PostLine | SampleLine] = sorted([*posts, *samples], key=lambda x: x[0])
        for line in lines:
            if isinstance(line[1], SampleRecord):
                waiting += self._flush([], [(line[0], line[1])], final)
            else:
                self._flush([(line[0], line[1])], [], final)
        return waiting

    def _apply(self, log: BatchLog) -> None:
        for key, n in log.counts.items():
            setattr(self.report, key, getattr(self.report, key) + n)
        for lineno, message in log.errors:
            self.report.error(lineno, message)
        self.report.notes += [{"line": n, "note": note} for n, note in log.notes]
        self.created |= log.created
        self.writer.given.update(log.given)
        for source, lineno in log.sources:
            lines = self.source_lines.setdefault(source, [])
            if not lines or lines[-1] != lineno:
                lines.append(lineno)

    # -- images ----------------------------------------------------------------------------
    def note_boxes_off_images(self) -> None:
        """A note on each imported sample's box that lies wholly outside its image."""
        first = self.parser.first_line if self.parser is not None else {}
        for sample, role, ref, box, width, height in boxes_off_images(self.project.conn):
            key = sample if sample.isascii() else unicodedata.normalize("NFC", sample)
            line = first.get(("sample", key), (0, ""))[0]
            self.report.notes.append({"line": line, "note": (
                f"sample '{shown_id(sample)}': its {role} box {box} lies outside "
                f"{shown_id(ref)} ({width}×{height}); the export leaves the sample out "
                "until the box is redrawn in Curate")})

    def record_image(self, source: str, error: str | None) -> None:
        """Count one image source's outcome in the report."""
        if error is None:
            self.report.images_fetched += 1
            return
        self.report.images_failed += 1
        self.report.image_errors.append(
            {"url": _shown_source(source), "lines": sorted(set(self.source_lines.get(source, ()))),
             "error": error})


def _shown_source(source: str) -> str:
    """An image source as the report shows it: an http(s) URL without its user name,
    password or signed-query secrets (ADRs 198, 214); a local path as it is."""
    return shown_url(source) if source.lower().startswith(("http://", "https://")) else source


__all__ = ["FetchSettings", "ImportFileError", "ImportReport", "ImportStoppedError",
           "check_source", "import_jsonl"]
