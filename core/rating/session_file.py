"""The per-rater ``*.winnow-session`` file: tasks, images, and append-only judgments.

A self-contained SQLite file.  It holds the tasks (prompt, criterion, input images,
blinded option tokens in display order), the cleaned images they need, the rater's
name, and everything the rater did: judgments and events (open, pause, resume).
It never holds model names or gold answers; those stay in the project.  Its tables and
the checks before a file is opened are in :mod:`core.rating.session_schema` (ADR 227).

Durability: the file is in WAL mode with ``synchronous=FULL``; every judgment and
event is one ``BEGIN IMMEDIATE … COMMIT``, so a submitted answer is on disk before
:meth:`RatingSession.submit` returns.  Judgments are never updated or deleted
(triggers refuse it); "change my last answer" appends a judgment that supersedes.

Tamper evidence (format 2, ADR 058): the rater's name and every judgment are entries of
a forward-secure MAC chain (:mod:`core.rating.integrity`); the file holds only the
chain's current key, replaced in the same transaction as each entry (with
``secure_delete`` on, so the old key is overwritten).  Files of format 1 (before
ADR 058) have no chain and are rated as they are.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import unicodedata
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.rating import integrity
from core.rating.protocols import TaskView, task_shape_problem, validate_answer
from core.rating.session_schema import (
    APPLICATION_ID,
    FORMAT,
    FORMAT_VERSION,
    JUDGMENT_COLUMNS,
    LEGACY_FORMAT_VERSION,
    SCHEMA,
    SUFFIX,
    TABLES,
    SessionFileError,
    check_header,
    check_meta,
    connect,
    format_version,
)
from core.store.checkpoint import fold
from core.store.commit import commit_or_roll_back
from core.store.project import now_iso

#: what it hands out from :mod:`core.rating.session_schema` (the file's layout and the
#: checks before it is opened, ADR 227): callers keep using them from here (``sf.FORMAT``)
__all__ = ["APPLICATION_ID", "FORMAT", "FORMAT_VERSION", "LEGACY_FORMAT_VERSION", "SCHEMA",
           "SUFFIX", "TABLES", "check_header", "format_version"]

#: longest rater name the rater view accepts (and a merge tolerates)
MAX_NAME = 200
#: bidirectional embeddings, overrides and isolates, and the implicit marks
_DIRECTION = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                       "\u2066\u2067\u2068\u2069")


def hidden_char(ch: str) -> bool:
    """A control character (escape sequences in a terminal) or a direction override
    (text that reads as another name): never part of a rater name."""
    return unicodedata.category(ch) == "Cc" or ch in _DIRECTION


def clean_name(name: str) -> str:
    """A rater name as the rater view stores it: without :func:`hidden_char` characters,
    spaces normalised."""
    return " ".join("".join(ch for ch in name if not hidden_char(ch)).split())


@dataclass(frozen=True)
class Judgment:
    """One committed judgment as stored in the file."""

    seq: int
    uid: str
    task_id: str
    answer: dict[str, Any]
    flag: str | None
    reason: str
    supersedes: str | None
    time_ms: int
    penalty_ms: int
    shown_at: str | None
    submitted_at: str


def _same(judgment: Judgment, answer: dict[str, Any], flag: str | None, reason: str) -> bool:
    """Whether ``answer``/``flag``/``reason`` are what ``judgment`` already says."""
    return (json.dumps(answer, sort_keys=True) == json.dumps(judgment.answer, sort_keys=True)
            and flag == judgment.flag and reason.strip() == (judgment.reason or "").strip())


class RatingSession:
    """A rater's open session file.  Not thread-safe: use it from one thread."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self.conn = conn
        self.meta: dict[str, str] = dict(conn.execute("SELECT key, value FROM meta"))
        check_meta(self.meta, path.name)
        self.settings: dict[str, Any] = json.loads(self.meta.get("settings", "{}"))
        self.tasks: list[TaskView] = [
            TaskView(tid, pos, self.protocol, prompt, crit, tuple(json.loads(inputs)),
                     tuple(tuple(o) for o in json.loads(options)))
            for tid, pos, prompt, crit, inputs, options in conn.execute(
                "SELECT task_id, position, prompt, criterion, inputs, options FROM tasks "
                "ORDER BY position")]
        for task in self.tasks:
            problem = task_shape_problem(task)
            if problem:  # an edited file: the view would fail on it
                raise ValueError(problem)
        self._by_id = {t.task_id: t for t in self.tasks}
        self.chained = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                    "name = 'chain'").fetchone() is not None
        self._effective: dict[str, Judgment] = {}
        self._superseded: set[str] = set()
        self._last: Judgment | None = None
        self._closed = False
        for row in conn.execute(f"SELECT {JUDGMENT_COLUMNS} FROM judgments ORDER BY seq"):
            self._remember(_judgment(row))

    @classmethod
    def open(cls, path: str | Path) -> RatingSession:
        """Open a session file for rating; raises :class:`SessionFileError` if it is not one.
        A rater's file is opened through :func:`core.rating.rater_open.open_for_rating`,
        which first refuses another copy's -wal or -journal beside it."""
        path = Path(path)
        conn = connect(path)
        try:
            session = cls(path, conn)
            session.log_event("open")
        except SessionFileError:
            conn.close()
            raise
        except (sqlite3.DatabaseError, ValueError, TypeError) as exc:  # rows edited by hand
            conn.close()
            raise SessionFileError(f"{path.name}: its tables were changed or damaged "
                                   f"({str(exc)[:200]}); it cannot be rated") from None
        except BaseException:
            conn.close()
            raise
        return session

    # -- metadata ----------------------------------------------------------------
    @property
    def protocol(self) -> str:
        return self.meta["protocol"]

    @property
    def name(self) -> str:
        return self.meta["session_name"]

    @property
    def slot(self) -> str:
        return self.meta["slot"]

    @property
    def min_time_s(self) -> float:
        return float(self.settings.get("min_time_s", 0.0))

    @property
    def penalty_s(self) -> float:
        return float(self.settings.get("penalty_s", 0.0))

    @property
    def rater(self) -> str | None:
        row = self.conn.execute("SELECT name FROM rater").fetchone()
        return None if row is None else row[0]

    def set_rater(self, name: str) -> None:
        """Record the rater's name (once; the file then belongs to this rater)."""
        name = clean_name(name)
        if not name:
            raise ValueError("please type your name")
        if self.rater is not None:
            raise ValueError(f"this file already belongs to {self.rater}")
        row = (name[:MAX_NAME], uuid.uuid4().hex, now_iso())
        with self._write():
            tag = self._chain(integrity.rater_entry(*row))
            if self.chained:
                self.conn.execute("INSERT INTO rater(id, name, copy_uid, started_at, mac) "
                                  "VALUES (1, ?, ?, ?, ?)", (*row, tag))
            else:
                self.conn.execute("INSERT INTO rater(id, name, copy_uid, started_at) "
                                  "VALUES (1, ?, ?, ?)", row)

    # -- tasks --------------------------------------------------------------------
    def task(self, task_id: str) -> TaskView:
        """The task with this id."""
        return self._by_id[task_id]

    def image(self, sha256: str) -> bytes:
        """The bytes of one image stored in the file."""
        row = self.conn.execute("SELECT data FROM images WHERE sha256 = ?",
                                (sha256,)).fetchone()
        if row is None:
            raise SessionFileError(f"{self.path.name}: image {sha256[:12]} is missing")
        return bytes(row[0])

    def next_task(self) -> TaskView | None:
        """The first task (in order) without an answer, or None when all are done."""
        for t in self.tasks:
            if t.task_id not in self._effective:
                return t
        return None

    def following(self, task: TaskView) -> TaskView | None:
        """The unanswered task after ``task`` (what to prefetch)."""
        for t in self.tasks[task.position + 1:]:
            if t.task_id not in self._effective:
                return t
        return None

    def progress(self) -> tuple[int, int]:
        """(answered, total)."""
        return len(self._effective), len(self.tasks)

    def answer_for(self, task_id: str) -> Judgment | None:
        """The judgment that currently counts for a task."""
        return self._effective.get(task_id)

    def last_judgment(self) -> Judgment | None:
        """The most recent judgment that still counts ("change my last answer")."""
        return self._last

    def judgments(self) -> list[Judgment]:
        """Every judgment ever submitted, superseded ones included, in order."""
        return [_judgment(r) for r in self.conn.execute(
            f"SELECT {JUDGMENT_COLUMNS} FROM judgments ORDER BY seq")]

    # -- writing ------------------------------------------------------------------
    def submit(self, task_id: str, answer: dict[str, Any], *, time_ms: int,
               penalty_ms: int = 0, flag: str | None = None, reason: str = "",
               shown_at: str | None = None, supersedes: str | None = None) -> Judgment:
        """Validate and durably commit one judgment (its own transaction)."""
        if self.rater is None:
            raise ValueError("type your name before rating")
        task = self._by_id.get(task_id)
        if task is None:
            raise ValueError(f"no task {task_id!r} in {self.path.name}")
        current = self._effective.get(task_id)
        if current is not None and supersedes != current.uid:
            raise ValueError("this task is already answered; go back to it to change its answer")
        if current is None and supersedes is not None:
            raise ValueError("nothing to supersede for this task")
        clean = validate_answer(self.protocol, task.options, answer, flag=flag, reason=reason,
                                allow_ties=bool(self.settings.get("allow_ties")),
                                allow_tie=bool(self.settings.get("allow_tie", True)))
        if current is not None and _same(current, clean, flag, reason):
            return current  # given again unchanged: nothing to record (ADR 229)
        with self._write():
            latest = self.conn.execute("SELECT uid FROM judgments WHERE task_id = ? ORDER BY "
                                       "seq DESC LIMIT 1", (task_id,)).fetchone()
            if (latest[0] if latest else None) != supersedes:
                raise ValueError("this task was answered in another window on the same file "
                                 "meanwhile; close this window and open the file again")
            seq = self.conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM judgments"
                                    ).fetchone()[0]
            row = (seq, uuid.uuid4().hex, task_id, json.dumps(clean, sort_keys=True), flag,
                   reason.strip() or None, supersedes, max(0, int(time_ms)),
                   max(0, int(penalty_ms)), shown_at, now_iso())
            tag = self._chain(integrity.judgment_entry(row))
            if self.chained:
                self.conn.execute(f"INSERT INTO judgments({JUDGMENT_COLUMNS}, mac) "
                                  "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", (*row, tag))
            else:
                self.conn.execute(f"INSERT INTO judgments({JUDGMENT_COLUMNS}) "
                                  "VALUES (?,?,?,?,?,?,?,?,?,?,?)", row)
        judgment = _judgment(row)
        self._remember(judgment)
        return judgment

    def log_event(self, kind: str, task_id: str | None = None, detail: str = "") -> None:
        """Append an event (open, pause, resume, penalty, ...) in its own transaction."""
        with self._write():
            self.conn.execute("INSERT INTO events(at, kind, task_id, detail) VALUES (?,?,?,?)",
                              (now_iso(), kind, task_id, detail or None))

    def events(self) -> list[tuple[str, str, str | None, str | None]]:
        """All events as (at, kind, task_id, detail)."""
        return list(self.conn.execute("SELECT at, kind, task_id, detail FROM events "
                                      "ORDER BY seq"))

    def checkpoint(self) -> bool:
        """Fold the WAL into the file and empty it (no earlier chain key stays in it);
        waits briefly for a reader. False while another program's read transaction keeps
        commits in the -wal only (:func:`core.rating.rater_open.answers_left_in_wal`)."""
        return fold(self.conn)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Checkpoint and close (again: no-op)."""
        if self._closed:
            return
        self.checkpoint()
        self.conn.close()
        self._closed = True

    @contextlib.contextmanager
    def _write(self) -> Iterator[None]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        commit_or_roll_back(self.conn)
        if self.chained:
            # the WAL keeps each page as it was, earlier chain keys with them: truncated
            # now, not at the next pause, so no K_i outlives its entry (ADR 058)
            self.checkpoint()

    def _chain(self, entry: bytes) -> str | None:
        """MAC ``entry`` and move the key chain on (inside the caller's transaction);
        None for a file from before tamper evidence."""
        if not self.chained:
            return None
        position, key, last = self.conn.execute(
            "SELECT position, key, last_mac FROM chain WHERE id = 1").fetchone()
        tag, (position, key, last) = integrity.append((position, bytes.fromhex(key), last),
                                                      entry)
        self.conn.execute("UPDATE chain SET position = ?, key = ?, last_mac = ? WHERE id = 1",
                          (position, key.hex(), last))
        return tag

    def _remember(self, j: Judgment) -> None:
        if j.supersedes:
            self._superseded.add(j.supersedes)
        if j.uid not in self._superseded:
            self._effective[j.task_id] = j
            self._last = j


def _judgment(row: tuple) -> Judgment:
    seq, uid, task_id, answer, flag, reason, supersedes, time_ms, penalty, shown, submitted = row
    return Judgment(seq, uid, task_id, json.loads(answer), flag, reason or "", supersedes,
                    time_ms, penalty, shown, submitted)


def effective_judgments(rows: list[Judgment]) -> dict[str, Judgment]:
    """task_id -> the judgment that counts (latest in its supersede chain)."""
    superseded = {j.supersedes for j in rows if j.supersedes}
    out: dict[str, Judgment] = {}
    for j in sorted(rows, key=lambda j: j.seq):
        if j.uid not in superseded:
            out[j.task_id] = j
    return out
