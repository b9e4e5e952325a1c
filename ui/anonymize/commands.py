"""Undoable edits of photos and regions (QUndoCommand over the core repository calls).

Each command performs one core call (one transaction + audit row) in ``redo`` and
its inverse in ``undo``; the workspace refreshes its view after every change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QUndoCommand

from core.imaging import photos as repo


class _Base(QUndoCommand):
    def __init__(self, project: Any, text: str, refresh: Callable[[], None]) -> None:
        super().__init__(text)
        self.project, self.refresh = project, refresh


class AddRegion(_Base):
    """Add a region; undo deletes it."""

    def __init__(self, project: Any, photo_id: int, fields: dict[str, Any],
                 refresh: Callable[[], None]) -> None:
        super().__init__(project, f"Add {fields.get('kind', 'face')} region", refresh)
        self.photo_id, self.fields = photo_id, fields
        self.region_id: int | None = None

    def redo(self) -> None:
        self.region_id = repo.add_region(self.project, self.photo_id, **self.fields)
        self.refresh()

    def undo(self) -> None:
        if self.region_id is not None:
            repo.delete_region(self.project, self.region_id)
        self.refresh()


class DeleteRegions(_Base):
    """Delete regions; undo re-creates them (with new ids)."""

    def __init__(self, project: Any, region_ids: list[int],
                 refresh: Callable[[], None]) -> None:
        n = len(region_ids)
        super().__init__(project, f"Delete {n} region{'s' if n != 1 else ''}", refresh)
        self.region_ids = list(region_ids)
        self.saved: list[tuple[int, dict[str, Any]]] = []

    def redo(self) -> None:
        self.saved = []
        for rid in self.region_ids:
            region = repo.delete_region(self.project, rid)
            self.saved.append((region.photo_id, region.fields()))
        self.refresh()

    def undo(self) -> None:
        self.region_ids = [repo.add_region(self.project, pid, **fields)
                           for pid, fields in self.saved]
        self.refresh()


class EditRegion(_Base):
    """Change fields of one region (move/resize, kind, shape, method)."""

    def __init__(self, project: Any, region_id: int, old: dict[str, Any],
                 new: dict[str, Any], refresh: Callable[[], None], text: str = "Edit region"
                 ) -> None:
        super().__init__(project, text, refresh)
        self.region_id, self.old, self.new = region_id, old, new

    def redo(self) -> None:
        repo.update_region(self.project, self.region_id, **self.new)
        self.refresh()

    def undo(self) -> None:
        repo.update_region(self.project, self.region_id, **self.old)
        self.refresh()


class EditPhoto(_Base):
    """Change fields of a photo (method, geometry, metadata)."""

    def __init__(self, project: Any, photo_id: int, old: dict[str, Any],
                 new: dict[str, Any], refresh: Callable[[], None], text: str = "Edit photo"
                 ) -> None:
        super().__init__(project, text, refresh)
        self.photo_id, self.old, self.new = photo_id, old, new

    def redo(self) -> None:
        repo.update_photo(self.project, self.photo_id, **self.new)
        self.refresh()

    def undo(self) -> None:
        repo.update_photo(self.project, self.photo_id, **self.old)
        self.refresh()


class SetStatus(_Base):
    """Mark reviewed / back to new."""

    def __init__(self, project: Any, photo_id: int, old: str, new: str,
                 refresh: Callable[[], None]) -> None:
        super().__init__(project, f"Mark {new}", refresh)
        self.photo_id, self.old, self.new = photo_id, old, new

    def redo(self) -> None:
        repo.set_status(self.project, self.photo_id, self.new)
        self.refresh()

    def undo(self) -> None:
        repo.set_status(self.project, self.photo_id,
                        self.old if self.old in ("new", "reviewed") else "new")
        self.refresh()
