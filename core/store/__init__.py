"""The project store: SQLite file, content-addressed assets, audit log."""

from core.store.assets import AssetStore
from core.store.errors import (
    DamagedProjectError,
    DiskFullError,
    NewerProjectError,
    NotAProjectError,
    ProjectError,
    ProjectLockedError,
    ReadOnlyLocationError,
    ReadOnlyProjectError,
    as_project_error,
)
from core.store.project import Project, now_iso
from core.store.schema import SCHEMA_VERSION

__all__ = [
    "SCHEMA_VERSION",
    "AssetStore",
    "DamagedProjectError",
    "DiskFullError",
    "NewerProjectError",
    "NotAProjectError",
    "Project",
    "ProjectError",
    "ProjectLockedError",
    "ReadOnlyLocationError",
    "ReadOnlyProjectError",
    "as_project_error",
    "now_iso",
]
