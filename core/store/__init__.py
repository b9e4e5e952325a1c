"""The project store: SQLite file, content-addressed assets, audit log."""

from core.store.assets import AssetStore
from core.store.errors import (
    NewerProjectError,
    NotAProjectError,
    ProjectError,
    ProjectLockedError,
    ReadOnlyProjectError,
)
from core.store.project import Project, now_iso
from core.store.schema import SCHEMA_VERSION

__all__ = [
    "SCHEMA_VERSION",
    "AssetStore",
    "NewerProjectError",
    "NotAProjectError",
    "Project",
    "ProjectError",
    "ProjectLockedError",
    "ReadOnlyProjectError",
    "now_iso",
]
