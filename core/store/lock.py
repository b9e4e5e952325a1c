"""One writer per project file: an OS lock on ``<real path>.lock``, portable (ADR 003).

The lock is an advisory lock on one byte of the lock file (POSIX ``lockf`` record
locks through :func:`os.lockf`, Windows ``msvcrt.locking``): no ``fcntl`` import, and
the kernel drops it when the process dies, even on SIGKILL or a power cut. The lock file
names its holder. It is keyed by the project's *identity*:

- the project path is resolved first, so a symbolic link locks the real file;
- a project file with more than one hard link is refused for writing (each name would
  get its own lock and its own ``-wal`` file: SQLite's documented way to corrupt it);
- within one process, a registry keyed by (device, inode) refuses a second writer
  (POSIX record locks do not conflict inside a process).

The lock file is removed when the project is closed; a process that locked it just
before must then find that the name still points to the file it locked, else it
retries, so removing it can never let two writers in.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import sys
import threading
from pathlib import Path

from core.files import file_mode

#: Offset of the locked byte: past the holder's name, so on Windows (where locks are
#: mandatory) others can still read who holds it.
LOCK_OFFSET = 1 << 16

_registry_lock = threading.Lock()
_held: dict[tuple[int, int], Path] = {}


class LockBusy(Exception):  # noqa: N818 - an outcome, re-raised by the store with context
    """Another writer holds the lock; ``holder`` names it."""

    def __init__(self, holder: str) -> None:
        super().__init__(holder)
        self.holder = holder


def lock_path(real: Path) -> Path:
    """The lock file of the project at (resolved) path ``real``."""
    return real.with_name(real.name + ".lock")


def _try_lock(fd: int) -> bool:
    os.lseek(fd, LOCK_OFFSET, os.SEEK_SET)
    if sys.platform == "win32":  # pragma: no cover - Windows only (mypy skips it here)
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        os.lockf(fd, os.F_TLOCK, 1)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EAGAIN):
            return False
        raise
    return True


def _unlock(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.lseek(fd, LOCK_OFFSET, os.SEEK_SET)
        if sys.platform == "win32":  # pragma: no cover
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        else:
            os.lockf(fd, os.F_ULOCK, 1)


def _read_holder(path: Path) -> str:
    try:
        with open(path, "rb") as fh:
            text = fh.read(512).decode("utf-8", "replace").strip("\x00 \n")
    except OSError:
        text = ""
    return text or "another process"


class ProjectLock:
    """The write lock of one project; :meth:`acquire` it, :meth:`release` it on close."""

    def __init__(self, real: Path, identity: tuple[int, int]) -> None:
        self.path = lock_path(real)
        self.identity = identity
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock or raise :class:`LockBusy` (or OSError if it cannot be written)."""
        with _registry_lock:
            if self.identity in _held:
                raise LockBusy(f"this Winnow (pid {os.getpid()}), as {_held[self.identity]}")
            _held[self.identity] = self.path
        try:
            self._fd = self._open_locked()
        except BaseException:
            with _registry_lock:
                _held.pop(self.identity, None)
            raise

    def _open_locked(self) -> int:
        for _ in range(20):
            created = False
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL
                             | getattr(os, "O_BINARY", 0), file_mode())
                created = True
            except FileExistsError:
                fd = os.open(self.path, os.O_RDWR | getattr(os, "O_BINARY", 0))
            try:
                if not _try_lock(fd):
                    raise LockBusy(_read_holder(self.path))
                if not _same_file(fd, self.path):  # its holder removed it meanwhile
                    _unlock(fd)
                    os.close(fd)
                    continue
                holder = f"Winnow (pid {os.getpid()} on {socket.gethostname()})"
                os.ftruncate(fd, 0)
                os.lseek(fd, 0, os.SEEK_SET)
                os.write(fd, holder.encode("utf-8"))
                return fd
            except BaseException:
                with contextlib.suppress(OSError):
                    os.close(fd)
                if created:
                    with contextlib.suppress(OSError):
                        self.path.unlink()
                raise
        raise LockBusy("another process (the lock file keeps changing)")

    def release(self) -> None:
        """Remove the lock file and drop the lock (safe to call twice)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                if _same_file(fd, self.path):
                    self.path.unlink()  # while still locked: see the module docstring
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            _unlock(fd)
            with contextlib.suppress(OSError):
                os.close(fd)
        with _registry_lock:
            if _held.get(self.identity) == self.path:
                del _held[self.identity]


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)
