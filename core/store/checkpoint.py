"""Checkpoint a project's write-ahead log off the thread that wrote it (ADR 025).

A project's connections run with ``wal_autocheckpoint = 0``: SQLite no longer copies the
log into the database file inside the ``COMMIT`` of whichever connection crossed 1,000
pages (for a 30,000-sample edit ~120 ms of the edit's wall time, or the GUI thread's
next small edit). After each commit :meth:`Checkpointer.after_commit` looks at the size
of the ``-wal`` file: past :data:`WAL_THRESHOLD` it wakes a thread that runs
``PRAGMA wal_checkpoint(PASSIVE)`` on a connection of its own; past :data:`WAL_LIMIT`
(the thread could not keep up, or has been closed) the committing connection runs it
itself, so the log stays bounded as it was.

Durability is unchanged: a transaction is durable when its ``COMMIT`` has written it to
the log (``synchronous = NORMAL``, ADR 003); a checkpoint only copies committed pages
from the log into the database file, syncing the log first, and SQLite's recovery
makes a checkpoint killed half-way harmless. A checkpoint that fails (a full disk) or
cannot finish (a reader still on an older snapshot) leaves everything in the log; the
next one, or closing the project, finishes it. ``PASSIVE`` never waits for a lock, so
the thread never holds up a writer or a reader.

A curator package (ADR 131) keeps a forward-secure key that every audited commit
replaces; the log holds each page as it was, earlier keys with them. Its checkpointer
is made with ``truncate_each``: every commit then truncates the log on the committing
connection (:func:`truncate`), so no earlier key outlives its commit in the file.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from pathlib import Path

#: log size (bytes) past which a commit asks for a checkpoint: SQLite's own default
#: automatic checkpoint point (1,000 pages of 4 KiB). It is also the connections'
#: ``journal_size_limit``: when a writer restarts a fully checkpointed log, SQLite cuts
#: the file back to this size, so the file's size is what the log holds
WAL_THRESHOLD = 4_096_000
#: log size past which the thread checkpoints at once, without waiting for a pause
#: (a long import: the checkpoint then runs beside it, on the other core)
WAL_BUSY = 64 * 1024 * 1024
#: log size past which the committing connection checkpoints itself
WAL_LIMIT = 256 * 1024 * 1024
#: the pause in commits (seconds) the thread waits for before it checkpoints
DELAY_S = 1.0
#: how long a truncating checkpoint waits for readers on an older snapshot (ms)
TRUNCATE_WAIT_MS = 500


def wal_size(path: Path) -> int:
    """Size in bytes of the ``-wal`` file beside database ``path`` (0 when none)."""
    try:
        return os.stat(f"{path}-wal").st_size
    except OSError:
        return 0


def checkpoint(conn: sqlite3.Connection) -> tuple[int, int, int]:
    """Run a passive checkpoint on ``conn``: ``(busy, log frames, frames copied)``."""
    row = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(row[0]), int(row[1]), int(row[2])


def truncate(conn: sqlite3.Connection) -> bool:
    """Copy the whole log into the file and cut the log to nothing; waits at most
    :data:`TRUNCATE_WAIT_MS` for readers (a busy log is truncated by a later commit or
    at close). True when the log is empty; never raises."""
    row = _truncate(conn)
    return row is not None and row[0] == 0


def fold(conn: sqlite3.Connection) -> bool:
    """:func:`truncate`; True when the database file alone holds every commit, whether or
    not the log could be cut (a reader on the newest state keeps the log, not the pages).
    False while a reader inside a transaction (another program) keeps SQLite from copying
    what was committed after it began: that stays in the log only (ADR 210)."""
    row = _truncate(conn)
    return row is not None and row[1] == row[2]


def _truncate(conn: sqlite3.Connection) -> tuple[int, int, int] | None:
    """``PRAGMA wal_checkpoint(TRUNCATE)``: (busy, log frames, frames copied), or None
    where it failed."""
    try:
        (wait,) = conn.execute("PRAGMA busy_timeout").fetchone()
        conn.execute(f"PRAGMA busy_timeout = {TRUNCATE_WAIT_MS}")
        try:
            row = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(wait)}")
        return int(row[0]), int(row[1]), int(row[2])
    except sqlite3.Error:
        return None


class Checkpointer:
    """The background checkpoint of one project file, shared by its connections."""

    def __init__(self, path: Path, truncate_each: bool = False) -> None:
        self.path = path
        #: truncate the log after every commit (a curator package's keys, ADR 131)
        self.truncate_each = truncate_each
        self.runs = 0  #: checkpoints the thread has run (for tests and benchmarks)
        self.last_error: sqlite3.Error | None = None
        self._cv = threading.Condition()
        self._pending = False  # a checkpoint was asked for and has not started
        self._running = False
        self._requests = 0
        self._urgent = False
        self._closed = False
        self._thread: threading.Thread | None = None

    def after_commit(self, conn: sqlite3.Connection) -> None:
        """Called after each commit on ``conn``: ask for a checkpoint when the log is big.

        Never raises: the commit has succeeded whatever happens here.
        """
        if self.truncate_each:
            truncate(conn)
            return
        size = wal_size(self.path)
        if size <= WAL_THRESHOLD:
            return
        with self._cv:
            inline = size >= WAL_LIMIT or self._closed
            if not inline:
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, daemon=True, name=f"checkpoint {self.path.name}"
                    )
                    self._thread.start()
                self._pending = True
                self._urgent = self._urgent or size >= WAL_BUSY
                self._requests += 1
                self._cv.notify_all()
        if inline:
            with contextlib.suppress(sqlite3.Error):
                checkpoint(conn)

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no checkpoint is asked for or running; False on timeout."""
        with self._cv:
            return self._cv.wait_for(lambda: not (self._pending or self._running), timeout)

    def close(self) -> None:
        """Stop the thread, after the checkpoint it is running, if any; a checkpoint only
        asked for is left to closing the project's connection, which checkpoints all."""
        with self._cv:
            self._closed = True
            self._cv.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            while True:
                with self._cv:
                    self._cv.wait_for(lambda: self._pending or self._closed)
                    # wait for a pause in the writing: a burst of commits makes one
                    # checkpoint, and it does not compete with the next edit
                    seen = -1
                    while seen != self._requests and not self._closed and not self._urgent:
                        seen = self._requests
                        self._cv.wait_for(lambda: self._closed or self._urgent, DELAY_S)
                    if self._closed:
                        self._pending = False
                        self._cv.notify_all()
                        return
                    self._pending = self._urgent = False
                    self._running = True
                try:
                    if conn is None:
                        # mode=rw: never creates a file (the project moved away meanwhile)
                        uri = self.path.as_uri() + "?mode=rw"
                        conn = sqlite3.connect(uri, uri=True, isolation_level=None)
                        conn.execute("PRAGMA synchronous = NORMAL")
                    checkpoint(conn)
                    self.runs += 1
                except sqlite3.Error as exc:  # the log keeps it all; the next one retries
                    self.last_error = exc
                finally:
                    with self._cv:
                        self._running = False
                        self._cv.notify_all()
        finally:
            if conn is not None:
                conn.close()
