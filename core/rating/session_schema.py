"""The ``*.winnow-session`` file's layout, and the checks before one is opened.

Split from :mod:`core.rating.session_file` (ADR 227), which hands these out under the
names callers use: the format's name and versions, the tables and columns (``SCHEMA``,
``TABLES``, ``COLUMNS``), and :func:`connect`, which refuses a file that is not one
Winnow can rate (a view where a table should be, ADR 177; a missing column; a newer
format) with a :class:`SessionFileError` naming the file.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from core.readonly_db import missing_schema, schema_problem

FORMAT = "winnow-session"
FORMAT_VERSION = 2
#: the format before tamper evidence (no MACs); still opened, rated and merged
LEGACY_FORMAT_VERSION = 1
SUFFIX = ".winnow-session"
APPLICATION_ID = 0x57534553  # "WSES"
#: the judgment columns in the order :class:`~core.rating.session_file.Judgment` and the
#: MAC chain use
JUDGMENT_COLUMNS = ("seq, uid, task_id, answer, flag, reason, supersedes, time_ms, "
                    "penalty_ms, shown_at, submitted_at")
#: the tables Winnow reads from a rater file: plain tables, never views (ADR 177)
TABLES = ("meta", "tasks", "images", "rater", "judgments", "chain", "events")
#: the columns the rater view reads and writes, per table (extra ones are left alone)
COLUMNS: dict[str, tuple[str, ...]] = {
    "meta": ("key", "value"),
    "tasks": ("task_id", "position", "prompt", "criterion", "inputs", "options"),
    "images": ("sha256", "ext", "data"),
    "rater": ("id", "name", "copy_uid", "started_at"),
    "judgments": tuple(c.strip() for c in JUDGMENT_COLUMNS.split(",")),
    "events": ("seq", "at", "kind", "task_id", "detail"),
}
#: what a file with tamper evidence (format 2 on) has besides :data:`COLUMNS`
CHAIN_COLUMNS: dict[str, tuple[str, ...]] = {
    "chain": ("id", "position", "key", "last_mac"), "rater": ("mac",), "judgments": ("mac",)}
#: how a refusal for a missing table or column begins, after the file's name
CANNOT_OPEN = "is not a Winnow session file Winnow can open"

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE tasks (
    task_id TEXT PRIMARY KEY,
    position INTEGER NOT NULL UNIQUE,
    prompt TEXT NOT NULL,
    criterion TEXT,
    inputs TEXT NOT NULL,
    options TEXT NOT NULL
);
CREATE TABLE images (sha256 TEXT PRIMARY KEY, ext TEXT NOT NULL, data BLOB NOT NULL);
CREATE TABLE rater (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    name TEXT NOT NULL,
    copy_uid TEXT NOT NULL,
    started_at TEXT NOT NULL,
    mac TEXT
);
CREATE TABLE judgments (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    uid TEXT NOT NULL UNIQUE,
    task_id TEXT NOT NULL REFERENCES tasks(task_id),
    answer TEXT NOT NULL,
    flag TEXT,
    reason TEXT,
    supersedes TEXT REFERENCES judgments(uid),
    time_ms INTEGER NOT NULL,
    penalty_ms INTEGER NOT NULL DEFAULT 0,
    shown_at TEXT,
    submitted_at TEXT NOT NULL,
    mac TEXT
);
CREATE TABLE chain (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    position INTEGER NOT NULL,
    key TEXT NOT NULL,
    last_mac TEXT NOT NULL
);
CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    task_id TEXT,
    detail TEXT
);
CREATE TRIGGER judgments_no_update BEFORE UPDATE ON judgments
BEGIN SELECT RAISE(ABORT, 'judgments are append-only'); END;
CREATE TRIGGER judgments_no_delete BEFORE DELETE ON judgments
BEGIN SELECT RAISE(ABORT, 'judgments are append-only'); END;
CREATE TRIGGER rater_no_update BEFORE UPDATE ON rater
BEGIN SELECT RAISE(ABORT, 'the rater name is set once'); END;
CREATE TRIGGER tasks_no_update BEFORE UPDATE ON tasks
BEGIN SELECT RAISE(ABORT, 'tasks are fixed'); END;
CREATE TRIGGER images_no_update BEFORE UPDATE ON images
BEGIN SELECT RAISE(ABORT, 'images are fixed'); END;
"""


class SessionFileError(ValueError):
    """A file is not a usable session file (names the file and the reason)."""


def format_version(value: object, name: str) -> int:
    """The file's ``meta.format_version`` as a number (SessionFileError if it is not one)."""
    try:
        return int(str(value))
    except ValueError:
        raise SessionFileError(f"{name}: its format_version {str(value)[:40]!r} is not a "
                               "number (the file was edited or is damaged)") from None


def check_header(conn: sqlite3.Connection, name: str) -> dict[str, str]:
    """The meta table of a session file, after checking it is one Winnow can read."""
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        if app_id != APPLICATION_ID:
            raise SessionFileError(f"{name} is not a Winnow session file")
        problem = schema_problem(conn, TABLES)
        if problem:  # checked before a row is read: a view may never end (ADR 177)
            raise SessionFileError(f"{name}: {problem} (the file was edited outside "
                                   "Winnow); nothing read")
        missing = missing_schema(conn, {"meta": COLUMNS["meta"]})
        if missing:
            raise SessionFileError(f"{name} {CANNOT_OPEN}: {missing}")
        meta = {str(k): v for k, v in conn.execute("SELECT key, value FROM meta")}
    except sqlite3.DatabaseError as exc:
        raise SessionFileError(f"{name} is not a Winnow session file ({exc})") from None
    if meta.get("format") != FORMAT:
        raise SessionFileError(f"{name} is not a Winnow session file")
    if format_version(meta.get("format_version", "0"), name) > FORMAT_VERSION:
        raise SessionFileError(f"{name} was written by a newer Winnow; update Winnow")
    return meta


def check_meta(meta: dict[str, Any], name: str) -> None:
    """Raise :class:`SessionFileError` unless ``meta`` names what the rater view needs."""
    from core.rating.protocols import PROTOCOLS

    for key in ("protocol", "session_name", "slot"):
        if not isinstance(meta.get(key), str):
            raise SessionFileError(f"{name} has no {key!r} in its meta table (the file was "
                                   "edited or is damaged)")
    if meta["protocol"] not in PROTOCOLS:
        raise SessionFileError(f"{name} asks for an unknown protocol "
                               f"{meta['protocol'][:40]!r} (Winnow knows "
                               f"{', '.join(PROTOCOLS)})")
    try:
        settings = json.loads(meta.get("settings", "{}"))
    except (ValueError, TypeError, RecursionError):  # not JSON, bytes not UTF-8, a number
        settings = None
    if not isinstance(settings, dict):
        raise SessionFileError(f"{name}: its settings are not readable (the file was edited "
                               "or is damaged)")


def check_tables(conn: sqlite3.Connection, name: str, meta: dict[str, Any]) -> None:
    """Raise :class:`SessionFileError` naming the first table or column the rater view
    needs that the file lacks (the chain's too from format 2 on, or where it has one)."""
    wanted = {t: list(cols) for t, cols in COLUMNS.items()}
    chained = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                           "name = 'chain'").fetchone() is not None
    if chained or format_version(meta.get("format_version", "0"), name) > LEGACY_FORMAT_VERSION:
        for table, cols in CHAIN_COLUMNS.items():
            wanted.setdefault(table, []).extend(cols)
    missing = missing_schema(conn, wanted)
    if missing:
        raise SessionFileError(f"{name} {CANNOT_OPEN}: {missing}")


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """Open a session file for rating (checking it is one), WAL and ``synchronous=FULL``;
    ``readonly`` leaves the journal settings alone (for looking, not rating)."""
    if not path.exists():
        raise FileNotFoundError(f"no session file at {path}")
    if path.is_dir():
        raise SessionFileError(f"{path} is a folder, not a session file")
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                               timeout=10)
    except sqlite3.Error as exc:
        raise SessionFileError(f"cannot open {path.name} ({exc})") from None
    try:
        check_tables(conn, path.name, check_header(conn, path.name))
        if not readonly:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA secure_delete = ON")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise SessionFileError(f"cannot open {path.name} for rating ({exc}); check that the "
                               "file and its folder are writable") from None
    except BaseException:
        conn.close()
        raise
    return conn
