"""Open, create and lock a ``.winnow`` project: one SQLite file plus an asset folder.

Opening probes the file read-only first, so a failed or refused open creates and
changes nothing (ADR 006); the write lock is per file identity (ADR 003).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core import __version__
from core.files import clean_stale_temps, fsync_dir, move_into_place, new_temp_dir
from core.mac_chain import register_sql_functions
from core.store.assets import AssetStore
from core.store.checkpoint import WAL_THRESHOLD, Checkpointer
from core.store.commit import commit_or_roll_back
from core.store.errors import (
    NewerProjectError,
    NotAProjectError,
    ProjectError,
    ProjectLockedError,
    ReadOnlyLocationError,
    ReadOnlyProjectError,
    as_project_error,
)
from core.store.lock import LockBusy, ProjectLock
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
                 lock: ProjectLock | None) -> None:
        self.path = path  # resolved: a symbolic link opens (and locks) the real file
        self.conn = conn
        self.readonly = readonly
        self.assets = AssetStore(assets_dir_for(path))
        self._lock = lock
        #: how a read-only project reads: "query_only", "ro" or "immutable" (read-only
        #: media, without SQLite's shared-memory file); see _read_only_connection
        self.read_only_mode = "query_only"
        self._depth = 0
        #: checkpoints the write-ahead log off the committing thread (ADR 025); shared
        #: with worker views, stopped by the project that owns the lock
        self.checkpointer: Checkpointer | None = None
        self.actor = os.environ.get("WINNOW_USER") or _default_actor()

    # -- opening -----------------------------------------------------------------
    @classmethod
    def create(cls, path: str | os.PathLike[str]) -> Project:
        """Create a new empty project at ``path`` and open it; never replaces anything.

        The database is built in a hidden temporary folder beside ``path`` and linked into
        place only when complete, so a crash leaves no half-made project, and an existing
        file (or a leftover ``-wal``/``-shm``) at ``path``, or something other than a
        folder where its asset folder goes, raises :class:`FileExistsError`.
        """
        path = Path(path)
        parent = path.parent.resolve()
        target = parent / path.name
        for name in project_files(target):
            if os.path.lexists(name):
                raise FileExistsError(f"{name} already exists; Winnow never replaces a "
                                      "project (choose another name)")
        assets = assets_dir_for(target)
        if os.path.lexists(assets) and not assets.is_dir():  # a user's file: never ours
            raise FileExistsError(f"{assets} already exists and is not a folder; the "
                                  "project's images would go there (choose another name)")
        parent.mkdir(parents=True, exist_ok=True)
        clean_stale_temps(parent)
        build = new_temp_dir(parent, target.name)
        try:
            _build_new(build / target.name)
            move_into_place(build / target.name, target)
        except sqlite3.Error as exc:
            raise as_project_error(exc, target.name) or exc from exc
        finally:
            shutil.rmtree(build, ignore_errors=True)
        fsync_dir(parent)
        return cls.open(target)

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, readonly: bool = False) -> Project:
        """Open an existing project, migrating it forward if it is older.

        The file is first probed without creating or changing anything: a file that is
        not a project, a newer project or one that cannot be written is refused and left
        exactly as it was. Raises :class:`NotAProjectError`, :class:`NewerProjectError`,
        :class:`ProjectLockedError` (another process has it open for writing),
        :class:`ReadOnlyLocationError` (it can only be opened read-only there), or
        :class:`FileNotFoundError`.
        """
        given = Path(path)
        real = given.resolve()
        if not real.exists():  # nothing there, or a symbolic link to nothing
            raise FileNotFoundError(errno.ENOENT, "No project at this path", str(given))
        _probe(real, given.name)
        if readonly:
            try:
                conn, how = _connect_read_only(real, given.name)
            except sqlite3.Error as exc:
                raise as_project_error(exc, given.name) or exc from exc
            try:
                _check_version(conn, given.name)
            except BaseException:
                conn.close()
                raise
            project = cls(real, conn, True, None)
            project.read_only_mode = how
            return project
        lock = _lock_for_writing(real, given.name)
        try:
            conn = sqlite3.connect(real, isolation_level=None, check_same_thread=False,
                                   timeout=10)
            checkpointer = Checkpointer(real)
            try:
                _configure(conn, False)
                version = _check_version(conn, given.name)
                project = cls(real, conn, False, lock)
                checkpointer.truncate_each = _is_package(conn)
                project.checkpointer = checkpointer
                if version < SCHEMA_VERSION:
                    project._migrate(version)
            except BaseException:
                checkpointer.close()  # a migration's commits may have started its thread
                conn.close()
                raise
        except sqlite3.Error as exc:
            lock.release()
            raise as_project_error(exc, given.name) or exc from exc
        except BaseException:
            lock.release()
            raise
        return project

    def worker_view(self) -> Project:
        """A second connection to the same file for another thread.

        It shares this process's write lock (closing it does not release the lock);
        SQLite itself serialises the two connections' transactions.
        """
        if self.readonly:
            conn = _read_only_connection(self.path, self.read_only_mode)
        else:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                   timeout=30)
            _configure(conn, False)
        view = Project(self.path, conn, self.readonly, None)
        view.checkpointer = self.checkpointer
        view.actor = self.actor
        view.read_only_mode = self.read_only_mode
        return view

    def close(self) -> None:
        """Close the connection and release the write lock.

        The owner first stops the background checkpoint; closing the last connection
        then checkpoints the whole log into the file (and removes it).
        """
        if self._lock is not None and self.checkpointer is not None:
            self.checkpointer.close()
        with contextlib.suppress(sqlite3.Error):
            if not self.readonly:
                self.conn.execute("PRAGMA optimize")
        self.conn.close()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

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
        commit_or_roll_back(self.conn)
        if self.checkpointer is not None:
            self.checkpointer.after_commit(self.conn)

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
        # the log is checkpointed off the committing thread (core/store/checkpoint.py)
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        conn.execute(f"PRAGMA journal_size_limit = {WAL_THRESHOLD}")
        # a curator package MACs every audit row in a trigger (ADR 131); the key it
        # replaces is overwritten, not left in a free page
        register_sql_functions(conn)
        if _is_package(conn):
            conn.execute("PRAGMA secure_delete = ON")


def _is_package(conn: sqlite3.Connection) -> bool:
    """Whether the file is a curator package (its chain key must not outlive a commit)."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'team_chain'"
                        ).fetchone() is not None


def project_files(path: Path) -> list[Path]:
    """The project file and the SQLite journal files that belong to it."""
    return [path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))]


def _build_new(db: Path) -> None:
    """A complete empty project at ``db`` (a fresh file), closed again."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        _configure(conn, False)
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        for version in range(SCHEMA_VERSION):
            conn.execute("BEGIN IMMEDIATE")
            MIGRATIONS[version](conn)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        conn.execute("INSERT OR REPLACE INTO project_meta(key, value) VALUES "
                     "('created_at', ?), ('created_by_version', ?)", (now_iso(), __version__))
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def _uri(path: Path, *, immutable: bool = False) -> str:
    """A read-only SQLite URI for ``path`` (percent-encoded, so ``#``/``?`` are safe)."""
    return path.as_uri() + "?mode=ro" + ("&immutable=1" if immutable else "")


def _probe(real: Path, name: str) -> int:
    """Check, creating and changing nothing, that ``real`` is a project this Winnow can
    open; returns its schema version.

    The header is read as bytes first (a 1-byte file or a text file never reaches
    SQLite). SQLite then reads it through a read-only URI, ``immutable`` when there is
    no ``-wal`` file: a plain read-only connection to a WAL database would leave new
    ``-wal``/``-shm`` files behind.
    """
    if real.is_dir():
        raise NotAProjectError(f"{name} is a folder, not a Winnow project file (*.winnow)")
    if not real.is_file():
        raise NotAProjectError(f"{name} is not a regular file, not a Winnow project")
    try:
        with open(real, "rb") as fh:
            head = fh.read(100)
    except OSError as exc:
        raise ProjectError(f"cannot read {name} ({exc.strerror or exc})") from exc
    if not head:
        raise NotAProjectError(f"{name} is empty, not a Winnow project")
    if not head.startswith(b"SQLite format 3\x00"):
        raise NotAProjectError(f"{name} is not a Winnow project (not an SQLite database)")
    wal = real.with_name(real.name + "-wal")
    attempts = [False, True] if wal.exists() else [True]
    for immutable in attempts:
        try:
            conn = sqlite3.connect(_uri(real, immutable=immutable), uri=True,
                                   isolation_level=None)
        except sqlite3.Error as exc:
            raise ProjectError(f"cannot open {name} ({exc})") from exc
        try:
            return _check_version(conn, name)
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorname", "") != "SQLITE_CANTOPEN" or immutable:
                raise ProjectError(f"cannot read {name} ({exc})") from exc
        finally:
            conn.close()
    raise AssertionError("unreachable")  # pragma: no cover


def _check_version(conn: sqlite3.Connection, name: str) -> int:
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        has_tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.OperationalError as exc:
        if getattr(exc, "sqlite_errorname", "") == "SQLITE_CANTOPEN":
            raise
        raise NotAProjectError(f"{name} is not a Winnow project ({exc})") from exc
    except sqlite3.DatabaseError as exc:
        raise NotAProjectError(f"{name} is not a Winnow project ({exc})") from exc
    if not has_tables:
        raise NotAProjectError(f"{name} is an empty SQLite database, not a Winnow project")
    if app_id != APPLICATION_ID:
        raise NotAProjectError(f"{name} is an SQLite file but not a Winnow project")
    if version > SCHEMA_VERSION:
        raise NewerProjectError(
            f"{name} was saved by a newer version of Winnow (schema {version}; this "
            f"Winnow {__version__} understands up to {SCHEMA_VERSION}). Update Winnow to "
            "open it; the file was not changed."
        )
    return int(version)


def _read_only_medium(path: Path) -> bool:
    statvfs = getattr(os, "statvfs", None)
    if statvfs is None:  # pragma: no cover - Windows
        return False
    try:
        return bool(statvfs(path).f_flag & getattr(os, "ST_RDONLY", 1))
    except OSError:
        return False


def _not_writable(real: Path, name: str, why: str) -> ReadOnlyLocationError:
    where = ("is on a read-only medium" if _read_only_medium(real.parent) else why)
    return ReadOnlyLocationError(
        f"{name} {where}, so Winnow cannot open it for writing; open it read-only to look "
        "at it, or copy it to a folder you can write to")


def _lock_for_writing(real: Path, name: str) -> ProjectLock:
    """The project's write lock, after checking that it can be written at all."""
    st = real.stat()
    if st.st_nlink > 1:
        raise ReadOnlyLocationError(
            f"{name} has {st.st_nlink} hard links (the same file under other names). "
            "Winnow opens a project for writing under one name only: each name would get "
            "its own lock and journal, and two writers would damage it. Open it "
            "read-only, or copy it and work on the copy")
    if not os.access(real, os.W_OK):
        raise _not_writable(real, name, "is a file you may not write to")
    if not os.access(real.parent, os.W_OK):
        raise _not_writable(real, name, f"is in a folder you may not write to "
                                        f"({real.parent})")
    lock = ProjectLock(real, (st.st_dev, st.st_ino))
    try:
        lock.acquire()
    except LockBusy as exc:
        raise ProjectLockedError(
            f"{name} is already open for writing by {exc.holder}. Close it there first, "
            "or open it read-only.") from None
    except OSError as exc:
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise _not_writable(real, name, "is in a folder Winnow cannot write its lock "
                                            f"file to ({exc.strerror})") from exc
        raise ProjectError(f"cannot lock {name} for writing ({exc.strerror or exc})") from exc
    return lock


def _connect_read_only(real: Path, name: str) -> tuple[sqlite3.Connection, str]:
    """A read-only connection and how it was made (see :func:`_read_only_connection`)."""
    if os.access(real, os.W_OK) and os.access(real.parent, os.W_OK):
        return _read_only_connection(real, "query_only"), "query_only"
    try:
        conn = _read_only_connection(real, "ro")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn, "ro"
    except sqlite3.OperationalError as exc:
        conn.close()
        if getattr(exc, "sqlite_errorname", "") != "SQLITE_CANTOPEN":
            raise NotAProjectError(f"{name} is not a Winnow project ({exc})") from exc
    wal = real.with_name(real.name + "-wal")
    if wal.exists() and wal.stat().st_size:
        raise ReadOnlyLocationError(
            f"{name} is on read-only media and its last changes are still in "
            f"{wal.name}, which cannot be read there; copy both files to a folder you "
            "can write to and open the copy")
    return _read_only_connection(real, "immutable"), "immutable"


def _read_only_connection(real: Path, how: str) -> sqlite3.Connection:
    """A connection that cannot write the project.

    ``query_only``: an ordinary connection with ``PRAGMA query_only`` (SQLite refuses
    every write); where the folder is writable it is the better choice, because closing
    it removes the ``-wal``/``-shm`` files it needed, so reading leaves no trace.
    ``ro``: a read-only URI (a folder Winnow cannot write to). ``immutable``: read-only
    media, where SQLite cannot create the shared-memory file a WAL database needs.
    """
    if how == "query_only":
        conn = sqlite3.connect(real, isolation_level=None, check_same_thread=False,
                               timeout=10)
        conn.execute("PRAGMA query_only = ON")
    else:
        conn = sqlite3.connect(_uri(real, immutable=how == "immutable"), uri=True,
                               isolation_level=None, check_same_thread=False)
    _configure(conn, True)
    return conn
