"""Errors raised by the project store, each with a message a user can act on."""


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
