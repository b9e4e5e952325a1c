"""Reading a whole project for an export: one state of it, and an older file unchanged.

:func:`read_snapshot` holds one read transaction, so everything an export reads comes from
the same committed state however long it runs and whatever another process commits
meanwhile (a team merge, a curator in the app). :func:`open_read_only` opens a project the
way ``winnow info`` does; an older schema is migrated in a private copy in memory, never
in the file, so an older Winnow still opens it and a file on read-only media can be
exported (ADR 006, ADR 187).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator

from core.mac_chain import register_sql_functions
from core.store.errors import as_project_error
from core.store.project import Project
from core.store.schema import MIGRATIONS, SCHEMA_VERSION


@contextlib.contextmanager
def read_snapshot(project: Project) -> Iterator[None]:
    """Reads inside see one committed state of ``project`` (a deferred read transaction;
    SQLite's write-ahead log keeps that state for it while other connections commit).
    Inside a transaction already open on the connection it joins that one."""
    conn = project.conn
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # fixes the state
        yield
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")  # it wrote nothing: ending it releases the state


def open_read_only(path: str | os.PathLike[str]) -> Project:
    """``path`` opened read-only; an older project is read through a migrated copy in
    memory (the file is neither migrated nor written). Raises what ``Project.open``
    raises."""
    project = Project.open(path, readonly=True)
    if project.schema_version >= SCHEMA_VERSION:
        return project
    try:
        conn = _migrated_copy(project)
    finally:
        project.close()
    copy = Project(project.path, conn, True, None)
    copy.read_only_mode = project.read_only_mode
    return copy


def _migrated_copy(project: Project) -> sqlite3.Connection:
    """An in-memory copy of ``project``'s database at the current schema, read-only."""
    memory = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    try:
        register_sql_functions(memory)  # a curator package's triggers call them
        project.conn.backup(memory)
        for version in range(project.schema_version, SCHEMA_VERSION):
            memory.execute("BEGIN")
            MIGRATIONS[version](memory)
            memory.execute(f"PRAGMA user_version = {version + 1}")
            memory.execute("COMMIT")
        memory.execute("PRAGMA foreign_keys = ON")
        memory.execute("PRAGMA query_only = ON")
    except sqlite3.Error as exc:
        memory.close()
        raise as_project_error(exc, project.path.name) or exc from exc
    except BaseException:
        memory.close()
        raise
    return memory
