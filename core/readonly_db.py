"""Read an SQLite file someone sent back (a rater file, a curator package) without
changing a byte of it (ADR 059), also from a read-only folder or medium.

A file without a pending write-ahead log is opened ``immutable`` (no journal, no locks,
no ``-shm``); one whose ``-wal`` holds changes not yet folded in (its window may still
be open, or it crashed) is read through SQLite's WAL, or, where the folder is
read-only, from a private temporary copy of both files, deleted at once.

:func:`schema_problem` says whether a table the caller will read was replaced by
something that computes its rows (ADR 177): a view, a virtual table, a generated column;
:func:`missing_schema` whether a table or column the caller reads is not there at all.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

_VIRTUAL = re.compile(r"\s*CREATE\s+VIRTUAL\s+TABLE\b", re.IGNORECASE)


@contextlib.contextmanager
def open_readonly(path: Path, error: type[Exception] = ValueError,
                  noun: str = "Winnow file", *, wal: bool = True) -> Iterator[sqlite3.Connection]:
    """A read-only connection that creates, locks and changes nothing beside the file.

    A folder, a pipe, a device or an unreadable file raises ``error`` naming it (``noun`` says what was
    expected); a missing one raises :class:`FileNotFoundError`.  ``wal=False`` reads the
    file alone, without what its ``-wal`` holds; a ``-wal`` SQLite finds damaged raises
    ``error`` naming it.
    """
    if not path.exists():
        raise FileNotFoundError(f"no {noun} at {path}")
    if path.is_dir():
        raise error(f"{path.name} is a folder, not a {noun}")
    if not path.is_file():  # opening a pipe to read waited for a writer, for ever
        raise error(f"{path.name} is not a regular file (a pipe, a device or a socket), "
                    f"not a {noun}")
    try:
        with open(path, "rb") as fh:
            fh.read(1)
    except OSError as exc:
        raise error(f"cannot read {path.name} ({exc.strerror or exc})") from None
    uri = path.resolve().as_uri()
    if not wal or not pending_wal(path):
        conn = sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)
        try:
            yield conn
        finally:
            conn.close()
        return
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError:  # a read-only folder: SQLite cannot make the -shm
        conn.close()
        with tempfile.TemporaryDirectory(prefix="winnow-merge-") as tmp:
            copy = Path(tmp) / "copy.sqlite"
            shutil.copyfile(path, copy)
            shutil.copyfile(f"{path}-wal", Path(f"{copy}-wal"))
            conn = sqlite3.connect(copy)
            try:
                yield conn
            finally:
                conn.close()
        return
    except sqlite3.DatabaseError as exc:  # "malformed": a -wal of another copy of the file
        conn.close()
        raise error(f"{path.name} cannot be read with the {path.name}-wal beside it "
                    f"({exc})") from None
    try:
        yield conn
    finally:
        conn.close()


def pending_wal(path: Path) -> bool:
    """Whether a ``-wal`` beside ``path`` holds changes not yet folded into it."""
    wal = Path(f"{path}-wal")
    return wal.exists() and wal.stat().st_size > 0


def schema_problem(conn: sqlite3.Connection, tables: Iterable[str]) -> str | None:
    """Why reading ``tables`` from a file someone sent back could hang or lie, or None.

    Winnow writes plain tables; a view (a recursive one never ends), a virtual table or a
    generated column (``zeroblob(999999999)`` per row) computes what a read returns, so
    a name the caller reads must be a plain table without one.  Reads only the schema.
    """
    wanted = {t.lower(): t for t in tables}  # SQLite's names ignore case
    for kind, found, sql in conn.execute("SELECT type, name, sql FROM sqlite_master "
                                         "WHERE type IN ('table', 'view')"):
        name = wanted.get(str(found).lower())
        if name is None:
            continue
        if kind == "view":
            return f"its {name!r} is a view, not a table"
        if isinstance(sql, str) and _VIRTUAL.match(sql):
            return f"its {name!r} is a virtual table, not a table"
        if any(row[6] in (2, 3) for row in conn.execute(
                "SELECT * FROM pragma_table_xinfo(?)", (found,))):
            return f"its {name!r} has a generated column"
    return None


def missing_schema(conn: sqlite3.Connection,
                   columns: Mapping[str, Iterable[str]]) -> str | None:
    """The first table or column of ``columns`` (table → its columns) that ``conn``'s file
    lacks, in words ("its table 'judgments' is missing"), or None.  Extra tables and
    columns are fine; names ignore case, as SQLite's do.  Reads only the schema."""
    for table, wanted in columns.items():
        found = {str(row[1]).lower() for row in conn.execute(
            "SELECT * FROM pragma_table_info(?)", (table,))}
        if not found:
            return f"its table {table!r} is missing"
        for column in wanted:
            if column.lower() not in found:
                return f"its table {table!r} has no column {column!r}"
    return None
