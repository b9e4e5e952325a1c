"""Exports Winnow can prove it wrote: the ownership marker, single files, whole folders.

Winnow replaces or deletes only what it can prove it wrote itself (SPEC §8, ADR 005).
The proof is a marker file in the folder, :data:`MARKER_NAME`: JSON Lines, a header line
and then one line per file Winnow wrote there (relative path, size, SHA-256). A file is
Winnow's when the marker lists it with its current size and hash; a file the user
changed, a symbolic link, or anything unlisted is not.

- :func:`export_writer` / :func:`export_text` / :func:`export_bytes`: one export file
  (a CSV, a JSON report), written atomically through :mod:`core.files`; an existing file
  is replaced only when it is Winnow's.
- :class:`core.export_folder.ExportFolder` (built on this module): a folder export
  published whole, with its marker inside.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from core.files import (
    KeptError,
    WriteError,
    clean_stale_temps,
    digest,
    finished_temp,
    fsync_dir,
    kept_message,
    move_into_place,
    write_bytes,
)

#: The ownership marker: JSON Lines in a folder, one line per file Winnow wrote there.
MARKER_NAME = ".winnow-files.jsonl"
#: The first line of every marker (how Winnow recognises its own).
MARKER_HEAD = {"winnow_files": 1, "about": "files Winnow wrote in this folder, with their "
                "size and SHA-256; Winnow replaces or deletes only files listed here, "
                "unchanged (docs/adr/005)"}


class NotOwnedError(FileExistsError):
    """Winnow will not replace or delete something it cannot prove it wrote.

    ``paths`` are the offending entries (the message names the first few).
    """

    def __init__(self, message: str, paths: list[str] | None = None) -> None:
        super().__init__(errno.EEXIST, message)
        self.message = message
        self.paths = list(paths or [])

    def __str__(self) -> str:
        return self.message


class Marker:
    """The parsed ownership marker of one folder (empty when there is none)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.files: dict[str, set[tuple[int, str]]] = {}
        self.records: dict[str, list[dict[str, Any]]] = {}  # every line of a file, in order
        self.dirs: set[str] = set()
        self.export: dict[str, Any] | None = None  # set for a folder Winnow created whole
        self.exists = False
        path = self.folder / MARKER_NAME
        if not os.path.lexists(path):
            return
        _check_marker_head(path)
        with open(path, "rb") as fh:
            lines = fh.read().splitlines()
        self.exists = True
        for raw in lines[1:]:
            rec = _json_line(raw)  # a torn last line (a killed run) reads as {}
            if isinstance(rec.get("file"), str) and isinstance(rec.get("sha256"), str) \
                    and isinstance(rec.get("size"), int):
                self.files.setdefault(rec["file"], set()).add((rec["size"], rec["sha256"]))
                self.records.setdefault(rec["file"], []).append(rec)
            elif isinstance(rec.get("dir"), str):
                self.dirs.add(rec["dir"])
            elif isinstance(rec.get("export"), str):
                self.export = rec

    def lists(self, rel: str, path: Path) -> bool:
        """Whether the regular file ``path`` is listed as ``rel`` with its current bytes."""
        known = self.files.get(rel)
        if not known or path.is_symlink() or not path.is_file():
            return False
        size = path.stat().st_size
        if not any(s == size for s, _ in known):
            return False
        return (size, digest(path)[1]) in known


def _json_line(raw: bytes) -> dict[str, Any]:
    import json

    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def marker_line(record: dict[str, Any]) -> bytes:
    """One line of the marker (JSON, sorted keys, newline-terminated, UTF-8).

    A file name that is not valid UTF-8 (``caf\\xe9.jpg`` from an old camera or a zip)
    reaches Python with surrogate escapes (``os.fsdecode``): such a line is written with
    ASCII escapes (``"caf\\udce9.jpg"``), valid JSON that Python's ``json`` (every reader
    of the marker, older versions included) reads back as the very same name."""
    import json

    text = json.dumps(record, ensure_ascii=False, sort_keys=True)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = json.dumps(record, ensure_ascii=True, sort_keys=True).encode("ascii")
    return data + b"\n"


def file_record(rel: str, size: int, sha256: str, **extra: Any) -> dict[str, Any]:
    """A marker line for one written file (``extra``: what it was made from, say)."""
    from datetime import UTC, datetime

    return {**extra, "file": rel, "size": size, "sha256": sha256,
            "at": datetime.now(UTC).isoformat(timespec="seconds")}


def append_to_marker(folder: Path, records: list[dict[str, Any]]) -> None:
    """Add ``records`` to ``folder``'s marker (created with its header line if needed).

    The marker only grows: each line is appended and fsynced, and a line torn by a kill
    is skipped when read, so a crash can only make Winnow refuse more, never less.
    """
    path = Path(folder) / MARKER_NAME
    _check_marker_head(path)  # refuses a foreign file that happens to carry the name
    data = b"".join(marker_line(r) for r in records)
    if not os.path.lexists(path):
        try:
            write_bytes(path, marker_line(MARKER_HEAD) + data)
            return
        except FileExistsError:
            pass  # another run created it a moment ago: append below
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_BINARY", 0))
        try:
            if os.fstat(fd).st_size and _last_byte(path) != b"\n":
                data = b"\n" + data  # a killed run left a torn line: start a fresh one
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise WriteError(path, exc) from exc


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data``: on a full disk ``write`` may take part of it and say so
    without an error; the next write then raises (ENOSPC), so a record is never taken as
    written when only its start is (the torn line is skipped when read)."""
    view = memoryview(data)
    while view:
        done = os.write(fd, view)
        if done <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[done:]


def _check_marker_head(path: Path) -> None:
    if not os.path.lexists(path):
        return
    if path.is_symlink() or not path.is_file():
        raise NotOwnedError(f"{path} is not Winnow's marker file", [str(path)])
    with open(path, "rb") as fh:
        head = fh.readline()
    if _json_line(head).get("winnow_files") != 1:
        raise NotOwnedError(f"{path} was not written by Winnow", [str(path)])


def _last_byte(path: Path) -> bytes:
    with open(path, "rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1)


def owned(path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None) -> bool:
    """Whether Winnow can prove it wrote the file ``path``: the marker of ``root`` (its
    folder by default) lists it with its current size and SHA-256."""
    path = Path(path)
    root = Path(root) if root is not None else path.parent
    try:
        marker = Marker(root)
    except NotOwnedError:
        return False
    return marker.lists(path.relative_to(root).as_posix(), path)


def not_owned_message(target: Path) -> str:
    """Why an existing file at ``target`` is not replaced."""
    return kept_message(target, f"already exists and Winnow cannot prove it wrote it (it is "
                        f"not in {MARKER_NAME}, or it was changed since)")


def check_file_target(target: Path, root: Path | None = None) -> bool:
    """Whether an export file may go to ``target``: False where nothing is there, True
    where Winnow's own earlier export is (it will be replaced); raises where a folder or
    a file Winnow cannot prove it wrote is in the way (call it before any work)."""
    if not os.path.lexists(target):
        return False
    if target.is_dir() and not target.is_symlink():
        raise KeptError(target, "is a folder", "give a file name for the export")
    if not owned(target, root):
        raise NotOwnedError(not_owned_message(target), [str(target)])
    return True


@contextlib.contextmanager
def export_writer(path: str | os.PathLike[str], mode: str = "w", *,
                  root: str | os.PathLike[str] | None = None, encoding: str | None = None,
                  newline: str | None = None,
                  record: dict[str, Any] | None = None) -> Iterator[IO[Any]]:
    """Write a user-visible export file atomically and record it in the marker.

    An existing file is replaced only if :func:`owned` proves Winnow wrote it (an earlier
    export, unchanged); anything else raises :class:`NotOwnedError` before a byte is
    written. ``root`` is the folder whose marker records the file (default: its folder);
    ``record`` adds fields to its marker line. Stale temporary files of killed runs in
    the folder are removed first.
    """
    target = Path(path)
    root = Path(root) if root is not None else target.parent
    rel = target.relative_to(root).as_posix()
    replace = check_file_target(target, root)
    if not target.parent.is_dir():
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WriteError(target, exc) from exc
    clean_stale_temps(target.parent)
    with finished_temp(target, mode, encoding=encoding, newline=newline) as (fh, tmp):
        yield fh
    try:
        size, sha = digest(tmp)
        append_to_marker(root, [file_record(rel, size, sha, **(record or {}))])  # first
        move_into_place(tmp, target, replace)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError) and not isinstance(exc, FileExistsError | WriteError):
            raise WriteError(target, exc) from exc
        raise
    fsync_dir(target.parent)


def export_bytes(path: str | os.PathLike[str], data: bytes, *,
                 root: str | os.PathLike[str] | None = None,
                 record: dict[str, Any] | None = None) -> Path:
    """:func:`export_writer` for bytes; returns the path."""
    with export_writer(path, "wb", root=root, record=record) as fh:
        fh.write(data)
    return Path(path)


def export_text(path: str | os.PathLike[str], text: str, *,
                root: str | os.PathLike[str] | None = None) -> Path:
    """:func:`export_writer` for text (UTF-8, newlines as given); returns the path."""
    with export_writer(path, "w", root=root, newline="") as fh:
        fh.write(text)
    return Path(path)
