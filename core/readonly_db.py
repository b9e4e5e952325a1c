"""Read an SQLite file someone sent back (a rater file, a curator package) without
changing a byte of it (ADR 059), also from a read-only folder or medium.

A file without a pending write-ahead log is opened ``immutable`` (no journal, no locks,
no ``-shm``); one whose ``-wal`` holds changes not yet folded in (its window may still
be open, or it crashed) is read through SQLite's WAL, or, where the folder is
read-only, from a private temporary copy of both files, deleted at once.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def open_readonly(path: Path, error: type[Exception] = ValueError,
                  noun: str = "Winnow file") -> Iterator[sqlite3.Connection]:
    """A read-only connection that creates, locks and changes nothing beside the file.

    A folder, a pipe, a device or an unreadable file raises ``error`` naming it (``noun`` says what was
    expected); a missing one raises :class:`FileNotFoundError`.
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
    wal = Path(f"{path}-wal")
    pending = wal.exists() and wal.stat().st_size > 0
    uri = path.resolve().as_uri()
    if not pending:
        conn = sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)
        try:
            yield conn
        finally:
            conn.close()
        return
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError:
        conn.close()
        with tempfile.TemporaryDirectory(prefix="winnow-merge-") as tmp:
            copy = Path(tmp) / "copy.sqlite"
            shutil.copyfile(path, copy)
            shutil.copyfile(wal, Path(f"{copy}-wal"))
            conn = sqlite3.connect(copy)
            try:
                yield conn
            finally:
                conn.close()
        return
    try:
        yield conn
    finally:
        conn.close()
