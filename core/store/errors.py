"""Errors raised by the project store, each with a message a user can act on.

The app and the CLI catch :class:`ProjectError` and print or show its message; they never
see ``sqlite3`` exceptions: :func:`as_project_error` turns a database error that escapes
later (a damaged page read long after opening, a full disk) into one of these.
"""

from __future__ import annotations

#: how every refusal of a curator package's guard triggers begins (ADR 130)
PACKAGE_REFUSAL = "a curator package cannot"


class ProjectError(Exception):
    """Base class for problems opening or writing a project."""


class NewerProjectError(ProjectError):
    """The file was written by a newer Winnow (its schema version is unknown here)."""


class ProjectLockedError(ProjectError):
    """Another running Winnow holds this project open for writing."""


class NotAProjectError(ProjectError):
    """The file is not a Winnow project (or is damaged)."""


class ReadOnlyProjectError(ProjectError):
    """A write was attempted on a project opened read-only."""


class ReadOnlyLocationError(ProjectError):
    """The project cannot be opened for writing where it is (a read-only medium or
    folder, a file without write permission, a second hard link): it can be opened
    read-only."""


class DamagedProjectError(ProjectError):
    """SQLite found a damaged page while reading or writing an open project."""


class DiskFullError(ProjectError):
    """The disk holding the project is full; the change in progress was not saved."""


def as_project_error(exc: BaseException, name: str = "the project") -> ProjectError | None:
    """The :class:`ProjectError` that a low-level database error stands for, or None.

    Programming errors (constraint violations, misuse, bad SQL) are not translated: those
    are bugs and keep their traceback.
    """
    import sqlite3

    if isinstance(exc, ProjectError):
        return exc
    if isinstance(exc, sqlite3.IntegrityError) and str(exc).startswith(PACKAGE_REFUSAL):
        return ProjectError(f"{name}: {exc}")  # a curator package's guard (ADR 130)
    if not isinstance(exc, sqlite3.DatabaseError) or isinstance(
            exc, sqlite3.IntegrityError | sqlite3.ProgrammingError | sqlite3.InterfaceError):
        return None
    code = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    if code.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in text:
        return DamagedProjectError(
            f"{name} is damaged ({text}); nothing more was written to it. Restore it from "
            "a backup, or salvage what is readable with `sqlite3 FILE .recover`")
    if code.startswith("SQLITE_FULL") or "disk is full" in text:
        return DiskFullError(f"the disk holding {name} is full ({text}); the change in "
                             "progress was not saved. Free some space and try again")
    if code.startswith("SQLITE_READONLY") or "readonly database" in text:
        return ReadOnlyLocationError(f"{name} cannot be written ({text}); open it "
                                     "read-only, or copy it to a folder you can write to")
    if code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
        return ProjectLockedError(f"{name} is busy ({text}): another program is writing "
                                  "to it; try again when it has finished")
    if code.startswith(("SQLITE_CANTOPEN", "SQLITE_IOERR", "SQLITE_PERM")):
        return ProjectError(f"cannot read or write {name} ({text})")
    return None  # e.g. "no such table": a bug, which keeps its traceback
