"""Read a returned rater file as a hostile input: read-only, without changing a byte, and
with every rule the rater view keeps checked again (ADR 059).

:func:`read_returned` opens the file read-only, also from a read-only folder or medium
(issue #11), reads everything a merge or an audit needs, and lists each way the file
breaks what the rater view would ever write: judgments for tasks not in the file, a
task answered twice without "change my last answer", a supersede aimed at another task,
answers with extra keys or out of range, negative or text times, renumbered rows, a
missing or oversized rater name.  It does not know the project; the merge adds the
checks that need it (identity, MAC chain, earlier merges).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core import readonly_db
from core.rating import file_build, integrity
from core.rating import session_file as sf
from core.rating.protocols import AnswerError, validate_answer

#: longest time on task a merge accepts (ten days, in ms): more is an edited file
MAX_TIME_MS = 10 * 24 * 3600 * 1000
#: longest reason the rater view's field accepts
MAX_REASON = 32767
_HEX32 = re.compile(r"[0-9a-f]{32}")


@dataclass(frozen=True)
class RawJudgment:
    """A judgment row as stored, values unchecked (``answer`` is the stored text)."""

    seq: Any
    uid: Any
    task_id: Any
    answer: Any
    flag: Any
    reason: Any
    supersedes: Any
    time_ms: Any
    penalty_ms: Any
    shown_at: Any
    submitted_at: Any
    mac: Any

    def row(self) -> tuple[Any, ...]:
        """The values the MAC chain covers, in order."""
        return (self.seq, self.uid, self.task_id, self.answer, self.flag, self.reason,
                self.supersedes, self.time_ms, self.penalty_ms, self.shown_at,
                self.submitted_at)


@dataclass
class ReturnedFile:
    """What a returned file holds, and the rules it breaks (``problems``)."""

    path: Path
    meta: dict[str, Any]
    version: int
    task_rows: list[tuple[Any, ...]]
    options: dict[str, tuple[tuple[str, str], ...]]
    image_digests: list[str]
    rater: tuple[Any, Any, Any, Any] | None  # name, copy_uid, started_at, mac
    judgments: list[RawJudgment]
    chain: tuple[Any, Any, Any] | None       # position, key, last_mac (format 2)
    chained: bool                            # the file has a key chain table
    allow_ties: bool = False                 # the rules the answers were checked by
    allow_tie: bool = True
    changed_images: list[str] = field(default_factory=list)  # bytes ≠ their digest
    events: int = 0                          # open/pause/resume… the rater view logged
    answers: dict[int, dict[str, Any]] = field(default_factory=dict)  # seq -> clean answer
    problems: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.path.name

    def document(self) -> bytes:
        """What the tasks MAC covers."""
        return integrity.tasks_document(self.meta, self.task_rows, self.image_digests)

    def entries(self) -> list[integrity.ChainEntry]:
        """The chain entries: the rater's name, then every judgment in order."""
        out = []
        if self.rater is not None:
            out.append(integrity.ChainEntry("the rater's name", integrity.rater_entry(
                *self.rater[:3]), self.rater[3]))
        for j in self.judgments:
            out.append(integrity.ChainEntry(f"judgment {j.seq}", integrity.judgment_entry(
                j.row()), j.mac))
        return out


@contextlib.contextmanager
def open_readonly(path: Path, *, wal: bool = True) -> Iterator[sqlite3.Connection]:
    """A read-only connection to a rater file that creates, locks and changes nothing
    beside it (:func:`core.readonly_db.open_readonly`); ``wal=False``: the file alone."""
    with readonly_db.open_readonly(path, sf.SessionFileError, "session file",
                                   wal=wal) as conn:
        conn.execute("PRAGMA trusted_schema = OFF")  # what the schema runs stays harmless
        yield conn


def check_rateable(path: str | Path) -> None:
    """Raise :class:`SessionFileError` (or FileNotFoundError) naming what stops ``path``
    from being rated, without writing a byte: a folder, another kind of file, a meta
    table without a known protocol, or a file or folder Winnow cannot write to (each
    answer is saved into the file, next to which SQLite keeps its journal)."""
    import os

    path = Path(path)
    with open_readonly(path) as conn:
        try:
            sf.check_meta(sf.check_header(conn, path.name), path.name)
        except sqlite3.DatabaseError as exc:
            raise sf.SessionFileError(f"{path.name} is damaged ({exc})") from None
    for what, target in (("file", path), ("folder", path.resolve().parent)):
        if not os.access(target, os.W_OK):
            raise sf.SessionFileError(
                f"{path.name} cannot be rated where it is: the {what} is read-only "
                f"({target}). Each answer is saved into the file: copy it to a folder you "
                "can write to and open the copy")


def untouched_leftover(path: Path, session_uid: str, file_uid: str, secret: bytes) -> bool:
    """Whether ``path`` is the rater file ``file_uid`` of session ``session_uid`` exactly
    as Winnow wrote it (tasks MAC verified with the session's secret, images intact) and
    never opened by a rater: what a killed writer may leave and may safely replace."""
    try:
        found = read_returned(path)
    except (sf.SessionFileError, OSError):
        return False
    if (found.meta.get("session_uid"), found.meta.get("file_uid")) != (session_uid, file_uid):
        return False
    if (found.rater is not None or found.judgments or found.events or found.changed_images
            or found.problems or Path(f"{path}-wal").exists()):
        return False  # a rater view has had it open
    expected = integrity.mac(integrity.tasks_key(secret, file_uid), found.document())
    return found.meta.get("tasks_mac") == expected


def read_returned(path: str | Path, *, allow_ties: bool | None = None,
                  allow_tie: bool | None = None) -> ReturnedFile:
    """Read ``path`` read-only and check it (SessionFileError if it is not a session file).

    ``allow_ties``/``allow_tie`` default to the file's own settings (a merge passes the
    project's design instead).
    """
    path = Path(path)
    if not readonly_db.pending_wal(path):
        return _read_once(path, allow_ties, allow_tie, wal=False)
    # the file alone first: a rater view still open on it only ever adds to what is read
    # next through the -wal (a pause in between folds answers into the file alone)
    alone: ReturnedFile | None
    try:
        alone = _read_once(path, allow_ties, allow_tie, wal=False)
    except sf.SessionFileError:
        alone = None  # a checkpoint cut short: only the file with its -wal is whole
    try:
        found = _read_once(path, allow_ties, allow_tie, wal=True)
    except sf.SessionFileError as exc:
        if alone is None:
            raise  # damaged with or without its -wal
        raise sf.SessionFileError(_stale_wal(path, str(exc))) from None
    if alone is not None and not _continues(alone, found):
        raise sf.SessionFileError(_stale_wal(path, "it holds fewer or other answers than "
                                                   "the file alone"))
    return found


def _read_once(path: Path, allow_ties: bool | None, allow_tie: bool | None, *,
               wal: bool) -> ReturnedFile:
    with open_readonly(path, wal=wal) as conn:
        try:
            meta = sf.check_header(conn, path.name)
            return _read(conn, path, meta, allow_ties, allow_tie)
        except sqlite3.DatabaseError as exc:
            raise sf.SessionFileError(f"{path.name}: its tables were changed or damaged "
                                      f"({exc}); nothing read") from None


def _continues(alone: ReturnedFile, found: ReturnedFile) -> bool:
    """Whether the file read with its -wal (``found``) holds everything the file alone
    holds, unchanged: a -wal only ever adds to its own file."""
    if (alone.meta, alone.task_rows) != (found.meta, found.task_rows):
        return False
    if alone.rater is not None and alone.rater != found.rater:
        return False
    return set(alone.judgments) <= set(found.judgments)


def _stale_wal(path: Path, why: str) -> str:
    return (f"{path.name}: the {path.name}-wal beside it is not this file's ({why[:200]}); "
            "it was left by another copy of the file: move it elsewhere (keep it) and try "
            "again; nothing read")


def _read(conn: sqlite3.Connection, path: Path, meta: dict[str, Any],
          allow_ties: bool | None, allow_tie: bool | None) -> ReturnedFile:
    version = sf.format_version(meta.get("format_version", "0"), path.name)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    columns = {r[1] for r in conn.execute("PRAGMA table_info(judgments)")}
    mac = "mac" if "mac" in columns else "NULL"
    rater_cols = {r[1] for r in conn.execute("PRAGMA table_info(rater)")}
    rater_mac = "mac" if "mac" in rater_cols else "NULL"
    task_rows = file_build.task_rows(conn)
    raters = conn.execute(f"SELECT name, copy_uid, started_at, {rater_mac} FROM rater"
                          ).fetchall()
    judgments = [RawJudgment(*r) for r in conn.execute(
        f"SELECT {sf.JUDGMENT_COLUMNS}, {mac} FROM judgments ORDER BY seq")]
    chain = (conn.execute("SELECT position, key, last_mac FROM chain").fetchone()
             if "chain" in tables else None)
    settings = _settings(meta.get("settings"))
    ties = bool(settings.get("allow_ties")) if allow_ties is None else allow_ties
    tie = bool(settings.get("allow_tie", True)) if allow_tie is None else allow_tie
    found = ReturnedFile(path, meta, version, task_rows, {}, file_build.image_digests(conn),
                         tuple(raters[0]) if raters else None, judgments, chain,
                         "chain" in tables, ties, tie)
    if "events" in tables:
        found.events = int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
    for sha, data in conn.execute("SELECT sha256, data FROM images"):
        if not isinstance(data, bytes) or hashlib.sha256(data).hexdigest() != sha:
            found.changed_images.append(str(sha))
    _check_tasks(found)
    _check_rater(found, len(raters))
    _check_judgments(found, str(meta.get("protocol")), ties, tie)
    return found


def parse_json(text: Any) -> Any:
    """``text`` parsed as JSON, or None when it is not text or not JSON (a hostile file
    may hold anything, nested a hundred thousand levels deep included)."""
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _settings(text: Any) -> dict[str, Any]:
    value = parse_json(text)
    return value if isinstance(value, dict) else {}


def _check_tasks(found: ReturnedFile) -> None:
    for task_id, _pos, _prompt, _crit, _inputs, options in found.task_rows:
        try:
            opts = tuple((str(tok), str(sha)) for tok, sha in parse_json(options))
        except (TypeError, ValueError):
            found.problems.append(f"task {str(task_id)[:40]}: its options are not readable")
            continue
        found.options[str(task_id)] = opts


def _check_rater(found: ReturnedFile, rows: int) -> None:
    if rows > 1:
        found.problems.append(f"it names {rows} raters (the rater view writes one)")
    if found.rater is None:
        if found.judgments:
            found.problems.append("it holds answers but no rater (the rater row was removed "
                                  "outside the rater view)")
        return
    name, copy_uid = found.rater[0], found.rater[1]
    if not isinstance(name, str) or not name.strip():
        found.problems.append("its rater name is empty or not text")
    elif len(name) > sf.MAX_NAME:
        found.problems.append(f"its rater name is {len(name):,} characters long (the rater "
                              f"view allows {sf.MAX_NAME})")
    elif " ".join(name.split()) != name:
        found.problems.append("its rater name has whitespace the rater view removes")
    if not isinstance(copy_uid, str) or not _HEX32.fullmatch(copy_uid):
        found.problems.append("its copy id is not one the rater view makes")


def _check_judgments(found: ReturnedFile, protocol: str, ties: bool, tie: bool) -> None:
    problems: list[str] = []
    current: dict[str, str] = {}   # task -> uid of the answer that counts
    task_of: dict[str, str] = {}   # uid -> task
    for k, j in enumerate(found.judgments, start=1):
        label = f"judgment {str(j.seq)[:24]}"
        if not _is_int(j.seq) or j.seq != k:
            problems.append(f"{label}: judgments are numbered 1, 2, 3 … by the rater view; "
                            f"this one should be {k} (rows were added or removed outside it)")
        if not isinstance(j.uid, str) or not _HEX32.fullmatch(j.uid):
            problems.append(f"{label}: its id is not one the rater view makes")
            continue
        if j.uid in task_of:
            problems.append(f"{label}: its id {j.uid[:8]} is used twice")
            continue
        if not isinstance(j.task_id, str) or j.task_id not in found.options:
            problems.append(f"{label}: it answers task {str(j.task_id)[:40]!r}, which is not "
                            "in this file")
            continue
        problems.extend(f"{label}: {p}" for p in _check_values(j))
        answer = _check_answer(found, j, protocol, ties, tie, problems, label)
        if answer is not None:
            found.answers[j.seq] = answer
        task_of[j.uid] = j.task_id
        if j.supersedes is None:
            if j.task_id in current:
                problems.append(f"{label}: task {j.task_id} is answered again without "
                                "\"change my last answer\" (a duplicate judgment)")
        elif task_of.get(j.supersedes) not in (None, j.task_id):
            problems.append(f"{label}: it replaces an answer to another task "
                            f"({task_of[j.supersedes]}), which would lose that answer")
        elif current.get(j.task_id) != j.supersedes:
            problems.append(f"{label}: it replaces an answer that is not the current answer "
                            f"to task {j.task_id}")
        current[j.task_id] = j.uid
    if len(problems) > 12:
        problems = [*problems[:10], f"and {len(problems) - 10} more problems like these"]
    found.problems.extend(problems)


def _check_values(j: RawJudgment) -> list[str]:
    out = []
    for name, value in (("time_ms", j.time_ms), ("penalty_ms", j.penalty_ms)):
        if not _is_int(value):
            out.append(f"its {name} {str(value)[:20]!r} is not a whole number")
        elif not 0 <= value <= MAX_TIME_MS:
            out.append(f"its {name} {value} is outside 0 … {MAX_TIME_MS} (ten days)")
    if j.flag is not None and not isinstance(j.flag, str):
        out.append("its flag is not text")
    if j.reason is not None and (not isinstance(j.reason, str) or len(j.reason) > MAX_REASON):
        out.append("its reason is not text or longer than the rater view allows")
    for name, value in (("shown_at", j.shown_at), ("submitted_at", j.submitted_at)):
        if not (value is None and name == "shown_at") and (
                not isinstance(value, str) or len(value) > 64):
            out.append(f"its {name} is not a time stamp")
    if j.supersedes is not None and not isinstance(j.supersedes, str):
        out.append("its supersedes is not an id")
    return out


def _check_answer(found: ReturnedFile, j: RawJudgment, protocol: str, ties: bool, tie: bool,
                  problems: list[str], label: str) -> dict[str, Any] | None:
    answer = parse_json(j.answer)
    if not isinstance(answer, dict):
        problems.append(f"{label}: its answer is not a JSON object")
        return None
    flag = j.flag if isinstance(j.flag, str) or j.flag is None else "?"
    reason = j.reason if isinstance(j.reason, str) else ""
    try:
        clean = validate_answer(protocol, found.options[j.task_id], answer, flag=flag,
                                reason=reason, allow_ties=ties, allow_tie=tie)
    except AnswerError as exc:
        problems.append(f"{label} on task {j.task_id}: {exc}")
        return None
    if clean != answer:
        extra = sorted(set(answer) - set(clean))
        problems.append(f"{label} on task {j.task_id}: its answer is not what the rater view "
                        "writes" + (f" (extra keys {', '.join(map(str, extra))[:80]})"
                                    if extra else ""))
        return None
    return clean


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
