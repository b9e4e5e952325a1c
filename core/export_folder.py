"""Folder exports published whole, replacing only a folder Winnow wrote (ADR 005).

:class:`ExportFolder` builds an export under a hidden temporary name and renames it into
place with its ownership marker (:mod:`core.export_files`) inside. An existing non-empty
folder is replaced only when asked *and* everything in it is Winnow's: a project, a lock
or a single foreign or edited file in it refuses the whole replacement, naming them.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from core import files
from core.export_files import (
    MARKER_HEAD,
    MARKER_NAME,
    Marker,
    NotOwnedError,
    file_record,
    marker_line,
)
from core.files import (
    KeptError,
    WriteError,
    clean_stale_temps,
    digest,
    fsync_dir,
    kept_message,
    new_temp_dir,
    stale_temps,
    temp_name,
)

#: how to go on when another process (or the user) took the target during an export
_AGAIN = "nothing was exported there; choose another folder"

#: how to go on when a folder holds what Winnow did not write
_ELSEWHERE = "choose another folder, or empty it yourself"

_PROJECT_SUFFIXES = (".winnow", ".winnow-wal", ".winnow-shm", ".winnow-journal")


def foreign_entries(folder: Path, *, hashes: bool = True) -> list[str]:
    """Entries under ``folder`` Winnow cannot prove it wrote (relative paths, sorted).

    Its own listed files (unchanged; ``hashes=False`` checks names and sizes only),
    listed folders and parents of listed files, the marker, and temporary files of
    Winnow runs that have ended are Winnow's; everything else is foreign, symbolic links
    included (Winnow never writes one).
    """
    marker = Marker(folder)
    parents = {p for rel in marker.files for p in _parents(rel)} | marker.dirs
    stale = {str(p) for p in stale_temps(folder)}
    foreign: list[str] = []
    for top, dirs, names in os.walk(folder):
        base = Path(top)
        for name in sorted(dirs + names):
            path = base / name
            rel = path.relative_to(folder).as_posix()
            if rel == MARKER_NAME or str(path) in stale:
                if name in dirs:
                    dirs.remove(name)  # a dead run's temp folder: Winnow's as a whole
                continue
            if path.is_symlink():
                foreign.append(rel)
            elif name in dirs:
                if rel not in parents:
                    foreign.append(rel)
                    dirs.remove(name)  # not ours: no need to look inside
            elif rel not in marker.files or not _listed(marker, rel, path, hashes):
                foreign.append(rel)
    return sorted(foreign)


def _parents(rel: str) -> list[str]:
    parts = rel.split("/")[:-1]
    return ["/".join(parts[:k]) for k in range(1, len(parts) + 1)]


def _listed(marker: Marker, rel: str, path: Path, hashes: bool) -> bool:
    if hashes:
        return marker.lists(rel, path)
    size = path.stat().st_size
    return any(s == size for s, _ in marker.files.get(rel, ()))


def folder_problem(folder: Path, *, hashes: bool = True, kind: str = "export") -> str | None:
    """Why ``folder`` may not be replaced, or None when Winnow wrote all of it."""
    try:
        marker = Marker(folder)
    except NotOwnedError as exc:
        return kept_message(folder, f"is not a folder Winnow wrote: {exc}", _ELSEWHERE)
    if marker.export is None:
        what = describe_entries(foreign_entries(folder, hashes=False))
        return kept_message(folder, f"is not a Winnow {kind} folder (there is no "
                            f"{MARKER_NAME} listing it): it holds {what}", _ELSEWHERE)
    foreign = foreign_entries(folder, hashes=hashes)
    if not foreign:
        return None
    return kept_message(folder, f"holds {describe_entries(foreign)}", _ELSEWHERE)


def describe_entries(rels: list[str], limit: int = 4) -> str:
    """Name foreign entries by kind: projects, locks, then everything else."""
    def kind(rel: str) -> str:
        name = rel.rsplit("/", 1)[-1].lower()
        if name.endswith(_PROJECT_SUFFIXES) or ".assets" in rel.lower().split("/")[0]:
            return "project"
        return "lock" if name.endswith(".lock") else "other"

    groups: dict[str, list[str]] = {"project": [], "lock": [], "other": []}
    for rel in rels:
        groups[kind(rel)].append(rel)
    titles = {"project": "a Winnow project", "lock": "a lock file",
              "other": "files Winnow did not write (or that changed since)"}
    parts = []
    for key, items in groups.items():
        if items:
            more = f" and {len(items) - limit} more" if len(items) > limit else ""
            parts.append(f"{titles[key]}: {', '.join(items[:limit])}{more}")
    return "; ".join(parts) + "; Winnow replaces only a folder it wrote itself"


def check_folder_target(target: Path, overwrite: bool, kind: str = "export", *,
                        overwritable: bool = True) -> None:
    """Refuse a target folder before any work: raises, or returns when it may be used.

    ``overwritable``: whether the command offers to overwrite an earlier export (the
    refusal of a non-empty folder suggests it only then)."""
    if target.is_symlink():
        raise NotOwnedError(kept_message(target, "is a symbolic link",
                                         "choose a real folder"), [str(target)])
    if not target.exists():
        return
    if not target.is_dir():
        raise KeptError(target, "already exists and is not a folder",
                        "choose another folder name, or move the file away yourself")
    if not any(os.scandir(target)):
        return
    if not overwrite:
        raise KeptError(target, "already exists and is not empty",
                        "choose another folder, or overwrite an earlier export"
                        if overwritable else "choose another (or an empty) folder")
    problem = folder_problem(target, kind=kind)
    if problem:
        raise NotOwnedError(problem, [str(target)])


class ExportFolder:
    """A folder export built under a hidden temporary name, then published whole.

    ``target`` is checked first (:func:`check_folder_target`): nothing is created for a
    refused target. Files are written with :meth:`write_bytes`, :meth:`write_text` or
    :meth:`open`; :meth:`publish` adds the marker, fsyncs everything and renames the
    folder into place (replacing an earlier export of Winnow's when ``overwrite``).
    Leaving the ``with`` block without publishing removes everything it made. A write
    that fails raises :class:`WriteError` naming the file; the target is left as it was.
    """

    def __init__(self, target: str | os.PathLike[str], kind: str, *,
                 overwrite: bool = False, overwritable: bool = True) -> None:
        self.target = Path(target)
        self.kind = kind
        self.overwrite = overwrite
        self.kept: Path | None = None  # an old folder that gained foreign files meanwhile
        self.records: list[dict[str, Any]] = []
        self._dirs: set[str] = set()
        self._published = False
        check_folder_target(self.target, overwrite, kind, overwritable=overwritable)
        self._made = _make_parents(self.target.parent, self.target)
        try:
            clean_stale_temps(self.target.parent)
            self.tmp = new_temp_dir(self.target.parent, self.target.name)
        except OSError as exc:
            self._remove_made()
            raise WriteError(self.target, exc, self._note) from exc

    @property
    def _note(self) -> str:
        return f"nothing was written to {self.target}"

    def __enter__(self) -> ExportFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._published:
            self.discard()

    def path(self, rel: str) -> Path:
        """Where ``rel`` (a relative POSIX path) is built; its folders are made."""
        parts = [p for p in rel.split("/") if p]
        if not parts or any(p in (".", "..") for p in parts):
            raise ValueError(f"not a relative path inside the export: {rel!r}")
        for k in range(1, len(parts)):
            sub = "/".join(parts[:k])
            if sub not in self._dirs:
                try:
                    (self.tmp / sub).mkdir(exist_ok=True)
                except OSError as exc:
                    raise WriteError(self.target / sub, exc, self._note) from exc
                self._dirs.add(sub)
        return self.tmp.joinpath(*parts)

    def mkdir(self, rel: str) -> None:
        """An (empty) folder in the export."""
        self.path(f"{rel}/x")
        self._dirs.add(rel.strip("/"))

    @contextlib.contextmanager
    def open(self, rel: str, mode: str = "w", *, encoding: str | None = None,
             newline: str | None = None) -> Iterator[IO[Any]]:
        """Write one file of the export (recorded in the marker).

        Written straight into the private temporary folder; :meth:`publish` makes every
        file durable at once before the folder is renamed into place.
        """
        path = self.path(rel)
        try:
            fh = files.open_new(path, mode, encoding, newline, files.file_mode())
        except FileExistsError:
            raise ValueError(f"{rel} was written twice in one export") from None
        except OSError as exc:
            raise WriteError(self.target / rel, exc, self._note) from exc
        try:
            with fh:
                yield fh
            size, sha = digest(path)
        except OSError as exc:  # the caller's own errors pass, unless writing failed
            if isinstance(exc, WriteError) or exc.errno not in files.WRITE_ERRNOS:
                raise
            raise WriteError(self.target / rel, exc, self._note) from exc
        self.records.append(file_record(rel, size, sha))

    def adopt(self, rel: str) -> None:
        """Record a file a writer of its own already made at :meth:`path` ``(rel)`` (for
        writers that need a real path, e.g. parquet shards renamed once complete)."""
        path = self.path(rel)
        try:
            size, sha = digest(path)
        except OSError as exc:
            raise WriteError(self.target / rel, exc, self._note) from exc
        self.records.append(file_record(rel, size, sha))

    def write_bytes(self, rel: str, data: bytes) -> Path:
        """Write ``data`` as ``rel``; returns where it will be after publishing."""
        with self.open(rel, "wb") as fh:
            fh.write(data)
        return self.target / rel

    def write_text(self, rel: str, text: str) -> Path:
        """Write ``text`` (UTF-8) as ``rel``; returns where it will be after publishing."""
        with self.open(rel, "w", newline="") as fh:
            fh.write(text)
        return self.target / rel

    def publish(self, summary: dict[str, Any] | None = None) -> Path:
        """Add the marker and move the folder into place; returns the target."""
        from datetime import UTC, datetime

        from core import __version__

        head = {"export": self.kind, "winnow": __version__,
                "at": datetime.now(UTC).isoformat(timespec="seconds"), **(summary or {})}
        lines = [MARKER_HEAD, head, *({"dir": d} for d in sorted(self._dirs)), *self.records]
        try:
            with files.open_new(self.tmp / MARKER_NAME, "wb", None, None,
                                files.file_mode()) as fh:
                fh.write(b"".join(marker_line(r) for r in lines))
            files.sync_tree(self.tmp)
        except OSError as exc:
            raise WriteError(self.target / MARKER_NAME, exc, self._note) from exc
        self._swap()
        self._published = True
        fsync_dir(self.target.parent)
        return self.target

    def _swap(self) -> None:
        target = self.target
        if not os.path.lexists(target):
            _rename_dir(self.tmp, target)
            return
        if target.is_symlink() or not target.is_dir():
            raise KeptError(target, "appeared while exporting", _AGAIN)
        if not any(os.scandir(target)):
            if os.name == "nt":
                os.rmdir(target)
            _rename_dir(self.tmp, target)  # POSIX renames over an empty folder
            return
        if not self.overwrite:
            raise KeptError(target, "was filled while exporting", _AGAIN)
        problem = folder_problem(target, kind=self.kind)  # again: the user may have added files meanwhile
        if problem:
            raise NotOwnedError(problem, [str(target)])
        aside = target.with_name(temp_name(target.name))
        os.rename(target, aside)
        try:
            os.rename(self.tmp, target)
        except BaseException:
            os.rename(aside, target)
            raise
        if folder_problem(aside, hashes=False) is None:
            shutil.rmtree(aside, ignore_errors=True)
        else:  # something arrived in the instant between the check and the rename
            from datetime import datetime

            self.kept = target.with_name(f"{target.name}.kept-"
                                         f"{datetime.now():%Y%m%d-%H%M%S}")
            os.rename(aside, self.kept)

    def discard(self) -> None:
        """Remove the unfinished folder (and any parent folders this export made)."""
        if getattr(self, "tmp", None) is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
        self._remove_made()

    def _remove_made(self) -> None:
        for folder in reversed(self._made):
            with contextlib.suppress(OSError):
                folder.rmdir()  # only while empty
        self._made = []


def _rename_dir(src: Path, dst: Path) -> None:
    try:
        os.rename(src, dst)
    except OSError as exc:
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR):
            raise KeptError(dst, "appeared while exporting", _AGAIN) from exc
        raise


def _make_parents(parent: Path, target: Path) -> list[Path]:
    """Create ``parent`` and its missing ancestors; returns those created (outermost first)."""
    missing: list[Path] = []
    folder = parent
    while not folder.exists():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    made: list[Path] = []
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        except OSError as exc:
            for done in reversed(made):
                with contextlib.suppress(OSError):
                    done.rmdir()
            raise WriteError(target, exc, f"nothing was written to {target}") from exc
        made.append(folder)
    return made
