"""Every file Winnow writes goes through here.

The rules (ADR 004, ADR 005):

- **Atomic**: data goes to a temporary file beside the target, is flushed and fsynced,
  then moved into place, and the folder is fsynced; a crash leaves either the old state
  or the whole new file, never half a file.
- **Never replaces what it did not write**: by default the move fails with
  :class:`FileExistsError` when the target exists (a hard link, or an exclusive rename
  where links are not supported). Callers pass ``replace=True`` only for a file they can
  prove they wrote themselves. User-visible exports prove it with the ownership
  marker of :mod:`core.export_files` (built on this module): ``export_writer`` for one
  file, ``ExportFolder`` for a whole folder published at once.
- **Normal permissions**: files get ``0o666 & ~umask`` (``tempfile.mkstemp`` would make
  them 0600), folders ``0o777 & ~umask``, like any file the user creates.
- **Recognisable leftovers**: temporary names carry :data:`TEMP_MARK`, the process id
  and the host, so a later run can remove what a killed run left behind
  (:func:`clean_stale_temps`) and nothing else.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

#: Part of every temporary file or folder name Winnow creates.
TEMP_MARK = ".winnow-tmp-"

#: Error numbers that only writing produces (disk full, quota, file too big).
WRITE_ERRNOS = frozenset(e for e in (getattr(errno, n, None) for n in
                                     ("ENOSPC", "EDQUOT", "EFBIG")) if e is not None)

_umask_lock = threading.Lock()
_umask_cache: int | None = None


class WriteError(OSError):
    """A file could not be written (disk full, no permission...); the message names it.

    ``errno`` is the underlying error number (``errno.ENOSPC`` for a full disk), so
    callers can tell "cannot write" apart from "cannot decode".
    """

    def __init__(self, path: str | os.PathLike[str], cause: OSError, note: str = "") -> None:
        reason = cause.strerror or str(cause)
        super().__init__(cause.errno, reason, str(path))
        self.message = f"cannot write {path}: {reason}" + (f"; {note}" if note else "")

    def __str__(self) -> str:
        return self.message


def kept_message(path: str | os.PathLike[str], why: str = "already exists",
                 advice: str = "choose another name, or move it away yourself") -> str:
    """The one sentence for every refusal to write where something already is (ADR 216):
    it names ``path``, says ``why`` it is in the way, that it was left as it is, and
    ``advice`` on how to go on."""
    return f"{path} {why}; Winnow left it as it is: {advice}"


def named_once(path: str | os.PathLike[str], text: str) -> str:
    """``text`` about ``path``, led by the path unless it already names it first (a
    refusal's sentence does: "P already exists; …", never "P: P already exists; …")."""
    return text if text.startswith(str(path)) else f"{path}: {text}"


class KeptError(FileExistsError):
    """Winnow refused to write over ``path`` and left it as it is; the message is
    :func:`kept_message` (``strerror`` is ``why``, ``filename`` the path)."""

    def __init__(self, path: str | os.PathLike[str], why: str = "already exists",
                 advice: str = "choose another name, or move it away yourself") -> None:
        super().__init__(errno.EEXIST, why, str(path))
        self.message = kept_message(path, why, advice)

    def __str__(self) -> str:
        return self.message


#: ``why`` of a :class:`KeptError` for a name taken between Winnow's check and its write
MADE_MEANWHILE = "was made by another process meanwhile (it was free when Winnow began)"


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


def move_into_place(tmp: Path, target: Path, replace: bool = False) -> None:
    """Move the finished file ``tmp`` to ``target`` (same folder).

    Without ``replace`` this fails with :class:`FileExistsError` when ``target`` exists,
    whatever the file system: a hard link where there are links, an exclusive rename on
    Windows, else the name is first claimed with ``O_EXCL``.
    """
    if replace:
        os.replace(tmp, target)
        return
    if os.name == "nt":
        try:
            os.rename(tmp, target)  # fails with FileExistsError on Windows
        except FileExistsError:
            raise KeptError(target, MADE_MEANWHILE) from None
        return
    try:
        os.link(tmp, target)  # fails rather than replace
    except FileExistsError:
        raise KeptError(target, MADE_MEANWHILE) from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV,
                             errno.EMLINK, errno.ENOSYS):
            raise
        # No hard links here (FAT, some network shares): claim the name exclusively,
        # then move the finished file over our own placeholder.
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, file_mode())
        except FileExistsError:
            raise KeptError(target, MADE_MEANWHILE) from None
        os.close(fd)
        os.replace(tmp, target)
        return
    tmp.unlink()


def open_new(path: Path, mode: str, encoding: str | None, newline: str | None,
             perms: int) -> IO[Any]:
    """``path`` created exclusively (never follows or replaces anything) and opened."""
    if mode not in ("wb", "w"):
        raise ValueError(f"write mode must be 'wb' or 'w', not {mode!r}")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                 perms)
    try:
        if mode == "w":
            return open(fd, "w", encoding=encoding or "utf-8", newline=newline)  # noqa: SIM115
        return open(fd, "wb")  # noqa: SIM115
    except BaseException:
        os.close(fd)
        path.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def finished_temp(target: Path, mode: str = "wb", *, encoding: str | None = None,
                  newline: str | None = None) -> Iterator[tuple[IO[Any], Path]]:
    """``(file, temp path)``: write to the file; on a clean exit it is fsynced, closed and
    given normal permissions, and the caller moves it (:func:`move_into_place`).

    The temporary file is removed if the block (or the caller's move) raises.
    """
    tmp = target.with_name(temp_name(target.name))
    try:
        fh = open_new(tmp, mode, encoding, newline, 0o600)
    except OSError as exc:
        raise WriteError(target, exc) from exc
    try:
        with fh:
            try:
                yield fh, tmp
            except OSError as exc:  # the caller's own errors pass, unless writing failed
                if exc.errno in WRITE_ERRNOS and not isinstance(exc, WriteError):
                    raise WriteError(target, exc) from exc
                raise
            try:
                fh.flush()
                os.fsync(fh.fileno())
            except OSError as exc:
                raise WriteError(target, exc) from exc
        os.chmod(tmp, file_mode())
    except OSError as exc:  # closing flushes the last buffer: a full disk shows here too
        tmp.unlink(missing_ok=True)
        if exc.errno in WRITE_ERRNOS and not isinstance(exc, WriteError):
            raise WriteError(target, exc) from exc
        raise
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str], mode: str = "wb", *, replace: bool = False,
                  encoding: str | None = None, newline: str | None = None) -> Iterator[IO[Any]]:
    """Write a file atomically: ``with atomic_writer(p, "w") as fh: fh.write(...)``.

    On a clean exit the data is fsynced and moved to ``path``; on an exception the
    temporary file is removed and ``path`` is untouched. ``replace=False`` (the default)
    raises :class:`FileExistsError` instead of replacing an existing file.
    """
    target = Path(path)
    if not replace and os.path.lexists(target):
        raise KeptError(target)
    with finished_temp(target, mode, encoding=encoding, newline=newline) as (fh, tmp):
        yield fh
    try:
        move_into_place(tmp, target, replace)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError) and not isinstance(exc, FileExistsError):
            raise WriteError(target, exc) from exc
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


def digest(path: str | os.PathLike[str]) -> tuple[int, str]:
    """``(size, SHA-256 hex)`` of a file's bytes."""
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
            size += len(chunk)
    return size, h.hexdigest()


def sync_tree(folder: Path) -> None:
    """Make everything written under ``folder`` durable before it is renamed into place.

    One ``syncfs`` of its file system on Linux (a folder export of thousands of files
    would otherwise wait for thousands of fsyncs), ``os.sync`` on other POSIX systems,
    else (Windows) an fsync of every file.
    """
    if sys.platform.startswith("linux"):
        import ctypes

        fd = os.open(folder, os.O_RDONLY)
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.syncfs(fd) == 0:
                return
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err), str(folder))
        except AttributeError:  # a C library without syncfs
            pass
        finally:
            os.close(fd)
    if hasattr(os, "sync"):
        os.sync()
        return
    for top, _dirs, names in os.walk(folder):  # pragma: no cover - Windows
        for name in names:
            fd = os.open(Path(top) / name, os.O_RDWR | getattr(os, "O_BINARY", 0))
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


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
    if sys.platform == "win32":  # pragma: no cover - Windows only (mypy skips it here)
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


def process_tag() -> str:
    """This process as ``<pid>-<host>``, the way temporary names carry it."""
    return f"{os.getpid()}-{_host_tag()}"


def process_gone(tag: str) -> bool:
    """Whether the :func:`process_tag` ``tag`` names a process of this host that no
    longer runs (another host's, or a malformed tag, is never taken for gone)."""
    pid, sep, host = tag.partition("-")
    return bool(sep) and pid.isdigit() and host == _host_tag() and not _pid_alive(int(pid))


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

