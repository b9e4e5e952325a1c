"""Build a fresh rater file (format 2) at a path the caller then moves into place.

:func:`new_file` creates the schema in one open transaction, the caller adds tasks and
images, and :func:`seal` signs what was stored (the tasks MAC, ADR 058), starts the key
chain, commits and switches the file to WAL.  The MAC is computed from the rows as read
back from the file, with the same readers the merge and the audit use
(:func:`task_rows`, :func:`image_digests`), so writer and verifier cannot drift apart.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from core.rating import integrity
from core.rating import session_file as sf


def new_file(path: Path, meta: dict[str, str]) -> sqlite3.Connection:
    """A new session file at ``path`` with its schema and ``meta``, inside a transaction."""
    from core.store.schema import split_statements

    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute(f"PRAGMA application_id = {sf.APPLICATION_ID}")
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("ATTACH DATABASE ? AS staging", (str(_staging_path(path)),))
        conn.execute("PRAGMA staging.journal_mode = OFF")
        conn.execute("PRAGMA staging.synchronous = OFF")
        conn.execute("BEGIN")
        conn.execute("CREATE TABLE staging.images "
                     "(sha256 TEXT PRIMARY KEY, ext TEXT NOT NULL, data BLOB NOT NULL)")
        for statement in split_statements(sf.SCHEMA):
            conn.execute(statement)
        conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", meta.items())
    except BaseException:
        conn.close()
        raise
    return conn


def add_task(conn: sqlite3.Connection, task_id: str, position: int, prompt: str,
             criterion: str | None, inputs: list[str], options: list[list[str]]) -> None:
    """One task row (``inputs`` = image digests; ``options`` = [token, digest] pairs)."""
    conn.execute("INSERT INTO tasks(task_id, position, prompt, criterion, inputs, options) "
                 "VALUES (?,?,?,?,?,?)", (task_id, position, prompt, criterion,
                                          json.dumps(inputs), json.dumps(options)))


def add_image(conn: sqlite3.Connection, digest: str, ext: str, data: bytes) -> None:
    """Stage an image once (a second call with the same digest does nothing).

    Images are staged in a second database beside the file being built and stored by
    :func:`seal` in digest order: the order in which tasks first use them (task and option
    order) leaves no trace in the file's rowids.
    """
    conn.execute("INSERT OR IGNORE INTO staging.images(sha256, ext, data) VALUES (?, ?, ?)",
                 (digest, ext, data))


def _staging_path(path: Path) -> Path:
    return path.with_name(path.name + ".staging")


def seal(conn: sqlite3.Connection, tasks_key: bytes, chain_key: bytes) -> str:
    """Store the staged images, sign the task list, start the key chain, commit, switch
    to WAL; the MAC.  The connection is closed, whether sealing succeeds or not (so that
    the caller can remove a file it failed on, and its staging database, on any system)."""
    try:
        conn.execute("INSERT INTO main.images(sha256, ext, data) "
                     "SELECT sha256, ext, data FROM staging.images ORDER BY sha256")
        meta = {str(k): v for k, v in conn.execute("SELECT key, value FROM meta")}
        document = integrity.tasks_document(meta, task_rows(conn), image_digests(conn))
        tasks_mac = integrity.mac(tasks_key, document)
        conn.execute("INSERT INTO meta(key, value) VALUES ('tasks_mac', ?)", (tasks_mac,))
        conn.execute("INSERT INTO chain(id, position, key, last_mac) VALUES (1, 0, ?, ?)",
                     (chain_key.hex(), tasks_mac))
        conn.execute("COMMIT")
        staging = {name: file for _seq, name, file in conn.execute("PRAGMA database_list")}
        conn.execute("DETACH DATABASE staging")
        conn.execute("PRAGMA journal_mode = WAL")
    finally:
        conn.close()
    Path(staging["staging"]).unlink(missing_ok=True)
    return tasks_mac


def task_rows(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    """Every task row as stored, in position order (what the tasks MAC covers)."""
    return list(conn.execute("SELECT task_id, position, prompt, criterion, inputs, options "
                             "FROM tasks ORDER BY position, task_id"))


def image_digests(conn: sqlite3.Connection) -> list[str]:
    """The digests under which the file stores its images."""
    return [str(r[0]) for r in conn.execute("SELECT sha256 FROM images ORDER BY sha256")]
