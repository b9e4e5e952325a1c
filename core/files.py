"""Every file Winnow writes goes through here.

The rules (ADR 004):

- **Atomic**: data goes to a temporary file beside the target, is flushed and fsynced,
  then moved into place, and the folder is fsynced; a crash leaves either the old state
  or the whole new file, never half a file.
- **Never replaces what it did not write**: by default the move fails with
  :class:`FileExistsError` when the target exists (a hard link, or an exclusive rename
  where links are not supported). Callers pass ``replace=True`` only for a file they can
  prove they wrote themselves.
- **Normal permissions**: files get ``0o666 & ~umask`` (``tempfile.mkstemp`` would make
  them 0600), folders ``0o777 & ~umask``, like any file the user creates.
- **Recognisable leftovers**: temporary names carry :data:`TEMP_MARK`, the process id
  and the host, so a later run can remove what a killed run left behind
  (:func:`clean_stale_temps`) and nothing else.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

#: Part of every temporary file or folder name Winnow creates.
TEMP_MARK = ".winnow-tmp-"

_umask_lock = threading.Lock()
_umask_cache: int | None = None


def current_umask() -> int:
    """The process umask (read once; setting it back at once keeps it unchanged)."""
    global _umask_cache
    with _umask_lock:
        if _umask_cache is None:
            mask = os.umask(0o022)
            os.umask(mask)
            _umask_cache = mask
        return _umask_cache


def file_mode() -> int:
    """Permissions for a new file: what ``open(path, 'w')`` would give."""
    return 0o666 & ~current_umask()


def _host_tag() -> str:
    host = socket.gethostname().split(".")[0] or "host"
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in host)[:32]


def temp_name(target_name: str) -> str:
    """A fresh hidden temporary name for ``target_name`` (same folder)."""
    stem = target_name[:80]
    return f".{stem}{TEMP_MARK}{os.getpid()}-{_host_tag()}-{secrets.token_hex(4)}"


def fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (a no-op where folders cannot be opened)."""
    if os.name == "nt":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def _move_into_place(tmp: Path, target: Path, replace: bool) -> None:
    if replace:
        os.replace(tmp, target)
        return
    if os.name == "nt":
        os.rename(tmp, target)  # fails with FileExistsError on Windows
        return
    try:
        os.link(tmp, target)  # fails rather than replace
    except FileExistsError:
        raise FileExistsError(errno.EEXIST, "File exists (not replaced)", str(target)) from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV,
                             errno.EMLINK, errno.ENOSYS):
            raise
        # No hard links here (FAT, some network shares): claim the name exclusively,
        # then move the finished file over our own placeholder.
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, file_mode())
        os.close(fd)
        os.replace(tmp, target)
        return
    tmp.unlink()


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str], mode: str = "wb", *, replace: bool = False,
                  encoding: str | None = None, newline: str | None = None) -> Iterator[IO[Any]]:
    """Write a file atomically: ``with atomic_writer(p, "w") as fh: fh.write(...)``.

    On a clean exit the data is fsynced and moved to ``path``; on an exception the
    temporary file is removed and ``path`` is untouched. ``replace=False`` (the default)
    raises :class:`FileExistsError` instead of replacing an existing file.
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"atomic_writer mode must be 'wb' or 'w', not {mode!r}")
    target = Path(path)
    if not replace and os.path.lexists(target):
        raise FileExistsError(errno.EEXIST, "File exists (not replaced)", str(target))
    tmp = target.with_name(temp_name(target.name))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                 0o600)
    try:
        if mode == "w":
            fh: IO[Any] = open(fd, "w", encoding=encoding or "utf-8",  # noqa: SIM115
                               newline=newline)
        else:
            fh = open(fd, "wb")  # noqa: SIM115
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    try:
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, file_mode())
        _move_into_place(tmp, target, replace)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(target.parent)


def write_bytes(path: str | os.PathLike[str], data: bytes, *, replace: bool = False) -> Path:
    """Atomically write ``data`` to ``path`` (see :func:`atomic_writer`); returns the path."""
    with atomic_writer(path, "wb", replace=replace) as fh:
        fh.write(data)
    return Path(path)


def write_text(path: str | os.PathLike[str], text: str, *, replace: bool = False,
               encoding: str = "utf-8") -> Path:
    """Atomically write ``text`` to ``path`` (see :func:`atomic_writer`); returns the path."""
    with atomic_writer(path, "w", replace=replace, encoding=encoding, newline="") as fh:
        fh.write(text)
    return Path(path)


def new_temp_dir(parent: Path, final_name: str) -> Path:
    """A new empty hidden folder in ``parent`` for building ``final_name`` atomically.

    ``os.mkdir`` honours the umask (``tempfile.mkdtemp`` would make it 0700, and the
    rename would carry that onto the export).
    """
    for _ in range(100):
        path = Path(parent) / temp_name(final_name)
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"cannot create a temporary folder in {parent}")


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if os.name == "nt":  # pragma: no cover - exercised on Windows only
        import ctypes

        handle = ctypes.windll.kernel32.OpenProcess(0x1000, False, pid)
        if not handle:
            return False
        ctypes.windll.kernel32.CloseHandle(handle)
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _temp_owner(name: str) -> tuple[int, str] | None:
    """(pid, host) of a Winnow temporary name, or None if ``name`` is not one."""
    _, sep, tail = name.partition(TEMP_MARK)
    if not sep or not name.startswith("."):
        return None
    parts = tail.split("-")
    if len(parts) < 3 or not parts[0].isdigit():
        return None
    return int(parts[0]), "-".join(parts[1:-1])


def stale_temps(folder: str | os.PathLike[str]) -> list[Path]:
    """Temporary files and folders in ``folder`` left by Winnow runs that have ended.

    Only names this module makes count, and only those of processes on this host that
    no longer run; another host's leftovers (a shared drive) are left alone.
    """
    folder = Path(folder)
    found: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return found
    host = _host_tag()
    for entry in entries:
        owner = _temp_owner(entry.name)
        if owner is None or owner[1] != host or _pid_alive(owner[0]):
            continue
        found.append(Path(entry.path))
    return sorted(found)


def clean_stale_temps(folder: str | os.PathLike[str]) -> list[Path]:
    """Remove :func:`stale_temps` of ``folder``; returns what was removed."""
    import shutil

    removed: list[Path] = []
    for path in stale_temps(folder):
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        except OSError:
            continue
        removed.append(path)
    return removed
