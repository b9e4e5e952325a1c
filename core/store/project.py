"""Open, create and lock a ``.winnow`` project: one SQLite file plus an asset folder."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from core import __version__
from core.store.assets import AssetStore
from core.store.errors import (
    NewerProjectError,
    NotAProjectError,
    ProjectLockedError,
    ReadOnlyProjectError,
)
from core.store.schema import MIGRATIONS, SCHEMA_VERSION

APPLICATION_ID = 0x57494E4E  # "WINN": marks a file as a Winnow project


def now_iso() -> str:
    """Current UTC time as ISO-8601 text (second precision is not enough for audit)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def assets_dir_for(path: Path) -> Path:
    """The asset folder that belongs to project file ``path``."""
    return path.with_name(path.stem + ".assets")


class Project:
    """An open project.  Use :meth:`create` or :meth:`open`; close with :meth:`close`.

    Writes go through :meth:`transaction`, which holds one SQLite write transaction
    (``BEGIN IMMEDIATE``) and commits or rolls back as a whole.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection, readonly: bool,
                 lock_fh: Any | None) -> None:
        self.path = path
        self.conn = conn
        self.db = sqlite_utils.Database(conn)
        self.readonly = readonly
        self.assets = AssetStore(assets_dir_for(path))
        self._lock_fh = lock_fh
        self._depth = 0
        self.actor = os.environ.get("WINNOW_USER") or _default_actor()

    # -- opening -----------------------------------------------------------------
    @classmethod
    def create(cls, path: str | os.PathLike[str], *, overwrite: bool = False) -> Project:
        """Create a new empty project at ``path`` (refuses to clobber unless asked)."""
        path = Path(path)
        if path.exists():
            if not overwrite:
                raise FileExistsError(f"{path} already exists")
            for suffix in ("", "-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        project = cls.open(path, create=True)
        with project.transaction():
            project.conn.execute(
                "INSERT OR REPLACE INTO project_meta(key, value) VALUES "
                "('created_at', ?), ('created_by_version', ?)",
                (now_iso(), __version__),
            )
        return project

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, readonly: bool = False,
             create: bool = False) -> Project:
        """Open an existing project, migrating it forward if it is older.

        Raises :class:`NewerProjectError` for a file from a newer Winnow,
        :class:`ProjectLockedError` when another process has it open for writing,
        :class:`NotAProjectError` for anything that is not a project.
        """
        path = Path(path)
        if not create and not path.exists():
            raise FileNotFoundError(f"No project at {path}")
        lock_fh = None if readonly else _acquire_lock(path)
        try:
            if readonly:
                uri = f"file:{path.resolve()}?mode=ro"
                conn = sqlite3.connect(uri, uri=True, isolation_level=None,
                                       check_same_thread=False)
            else:
                conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                                       timeout=10)
            try:
                try:
                    _configure(conn, readonly)
                except sqlite3.DatabaseError as exc:
                    raise NotAProjectError(
                        f"{path.name} is not a Winnow project ({exc})") from exc
                version = _check_version(conn, path, readonly, create)
                project = cls(path, conn, readonly, lock_fh)
                if not readonly and version < SCHEMA_VERSION:
                    project._migrate(version)
            except BaseException:
                conn.close()
                raise
        except BaseException:
            _release_lock(lock_fh)
            raise
        return project

    def worker_view(self) -> Project:
        """A second connection to the same file for another thread.

        It shares this process's write lock (closing it does not release the lock);
        SQLite itself serialises the two connections' transactions.
        """
        if self.readonly:
            uri = f"file:{self.path.resolve()}?mode=ro"
            conn = sqlite3.connect(uri, uri=True, isolation_level=None,
                                   check_same_thread=False)
        else:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                   timeout=30)
        _configure(conn, self.readonly)
        view = Project(self.path, conn, self.readonly, None)
        view.actor = self.actor
        return view

    def close(self) -> None:
        """Close the connection and release the write lock."""
        with contextlib.suppress(sqlite3.Error):
            if not self.readonly:
                self.conn.execute("PRAGMA optimize")
        self.conn.close()
        _release_lock(self._lock_fh)
        self._lock_fh = None

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------
    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: everything inside commits together or not at all.

        Nested use joins the outer transaction.
        """
        if self.readonly:
            raise ReadOnlyProjectError(f"{self.path.name} is open read-only")
        if self._depth:
            self._depth += 1
            try:
                yield self.conn
            finally:
                self._depth -= 1
            return
        self.conn.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield self.conn
        except BaseException:
            self._depth = 0
            self.conn.execute("ROLLBACK")
            raise
        self._depth = 0
        self.conn.execute("COMMIT")

    def audit(self, action: str, entity: str, entity_id: str, field: str | None = None,
              old: Any = None, new: Any = None) -> None:
        """Append one row to the audit log (must be called inside a transaction)."""
        self.audit_many([(action, entity, entity_id, field, old, new)])

    def audit_many(self, entries: list[tuple[str, str, str, str | None, Any, Any]]) -> None:
        """Append ``(action, entity, entity_id, field, old, new)`` rows in one statement."""
        stamp = now_iso()
        self.conn.executemany(
            "INSERT INTO audit_log(at, actor, action, entity, entity_id, field, old, new) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(stamp, self.actor, action, entity, entity_id, field,
              None if old is None else json.dumps(old, ensure_ascii=False),
              None if new is None else json.dumps(new, ensure_ascii=False))
             for action, entity, entity_id, field, old, new in entries],
        )

    # -- reading -------------------------------------------------------------------
    @property
    def schema_version(self) -> int:
        """The file's ``PRAGMA user_version``."""
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def counts(self) -> dict[str, int]:
        """Row counts a user cares about (posts, samples, images, ...)."""
        tables = {"posts": "posts", "samples": "samples", "images": "images",
                  "audit_entries": "audit_log"}
        return {key: int(self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
                for key, table in tables.items()}

    def meta(self, key: str) -> str | None:
        """A value from the project's key/value metadata."""
        row = self.conn.execute("SELECT value FROM project_meta WHERE key = ?",
                                (key,)).fetchone()
        return None if row is None else row[0]

    # -- internals -----------------------------------------------------------------
    def _migrate(self, current: int) -> None:
        for version in range(current, SCHEMA_VERSION):
            with self.transaction() as conn:
                MIGRATIONS[version](conn)
                conn.execute(f"PRAGMA user_version = {version + 1}")


def _default_actor() -> str:
    try:
        return os.getlogin()
    except OSError:
        return os.environ.get("USER", "unknown")


def _configure(conn: sqlite3.Connection, readonly: bool) -> None:
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 10000")
    if not readonly:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")


def _check_version(conn: sqlite3.Connection, path: Path, readonly: bool, create: bool) -> int:
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        has_tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise NotAProjectError(f"{path.name} is not a Winnow project ({exc})") from exc
    if has_tables and app_id != APPLICATION_ID:
        raise NotAProjectError(f"{path.name} is an SQLite file but not a Winnow project")
    if not has_tables:
        if not create:
            raise NotAProjectError(f"{path.name} is empty, not a Winnow project")
        if readonly:
            raise ReadOnlyProjectError("cannot create a project read-only")
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        return 0
    if version > SCHEMA_VERSION:
        raise NewerProjectError(
            f"{path.name} was saved by a newer version of Winnow (schema {version}; this "
            f"Winnow {__version__} understands up to {SCHEMA_VERSION}). Update Winnow to "
            "open it; the file was not changed."
        )
    return int(version)


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def _acquire_lock(path: Path) -> Any:
    lock_path = _lock_path(path)
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fh = open(lock_path, "a+")  # noqa: SIM115 - held open for the project's lifetime
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.seek(0)
        holder = fh.read().strip() or "another process"
        fh.close()
        raise ProjectLockedError(
            f"{path.name} is already open for writing by {holder}. Close it there first, "
            "or open it read-only."
        ) from None
    fh.seek(0)
    fh.truncate()
    fh.write(f"Winnow (pid {os.getpid()} on {socket.gethostname()})")
    fh.flush()
    return fh


def _release_lock(fh: Any | None) -> None:
    if fh is None:
        return
    with contextlib.suppress(OSError):
        fh.truncate(0)  # no stale holder name; the file itself stays (see ADR 003)
        fh.flush()
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
    fh.close()
