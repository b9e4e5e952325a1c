"""Undoable edits of photos and regions (QUndoCommand over the core repository calls).

Each command performs one core call (one transaction + audit row) in ``redo`` and
its inverse in ``undo``; the workspace refreshes its view after every change.  A core
call that is refused (read-only project, a region deleted meanwhile, a bad value) is
reported through ``on_error`` and the command leaves the stack: an exception raised in
a QUndoCommand override never reaches the caller of ``push``/``undo``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QUndoCommand

from core.imaging import photos as repo
from core.store.errors import ProjectError

EDIT_ERRORS = (ValueError, KeyError, sqlite3.Error, ProjectError)


class _Base(QUndoCommand):
    def __init__(self, project: Any, text: str, refresh: Callable[[], None]) -> None:
        super().__init__(text)
        self.project, self.refresh = project, refresh
        self.error: Exception | None = None
        self.on_error: Callable[[str, Exception], None] | None = None

    def redo(self) -> None:
        self._guard(self._redo)

    def undo(self) -> None:
        self._guard(self._undo)

    def _guard(self, step: Callable[[], None]) -> None:
        try:
            step()
        except EDIT_ERRORS as exc:
            self.error = exc
            what = self.text()
            self.setObsolete(True)  # the stack drops a command that could not apply
            self.refresh()
            if self.on_error is not None:
                self.on_error(what, exc)

    def _redo(self) -> None:
        raise NotImplementedError

    def _undo(self) -> None:
        raise NotImplementedError


class AddRegion(_Base):
    """Add a region; undo deletes it."""

    def __init__(self, project: Any, photo_id: int, fields: dict[str, Any],
                 refresh: Callable[[], None]) -> None:
        super().__init__(project, f"Add {fields.get('kind', 'face')} region", refresh)
        self.photo_id, self.fields = photo_id, fields
        self.region_id: int | None = None

    def _redo(self) -> None:
        self.region_id = repo.add_region(self.project, self.photo_id, **self.fields)
        self.refresh()

    def _undo(self) -> None:
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

    def _redo(self) -> None:
        self.saved = []
        for rid in self.region_ids:
            region = repo.delete_region(self.project, rid)
            self.saved.append((region.photo_id, region.fields()))
        self.refresh()

    def _undo(self) -> None:
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

    def _redo(self) -> None:
        repo.update_region(self.project, self.region_id, **self.new)
        self.refresh()

    def _undo(self) -> None:
        repo.update_region(self.project, self.region_id, **self.old)
        self.refresh()


class EditPhoto(_Base):
    """Change fields of a photo (method, geometry, metadata)."""

    def __init__(self, project: Any, photo_id: int, old: dict[str, Any],
                 new: dict[str, Any], refresh: Callable[[], None], text: str = "Edit photo"
                 ) -> None:
        super().__init__(project, text, refresh)
        self.photo_id, self.old, self.new = photo_id, old, new

    def _redo(self) -> None:
        repo.update_photo(self.project, self.photo_id, **self.new)
        self.refresh()

    def _undo(self) -> None:
        repo.update_photo(self.project, self.photo_id, **self.old)
        self.refresh()


class SetStatus(_Base):
    """Mark reviewed / back to new."""

    def __init__(self, project: Any, photo_id: int, old: str, new: str,
                 refresh: Callable[[], None]) -> None:
        super().__init__(project, f"Mark {new}", refresh)
        self.photo_id, self.old, self.new = photo_id, old, new

    def _redo(self) -> None:
        repo.set_status(self.project, self.photo_id, self.new)
        self.refresh()

    def _undo(self) -> None:
        repo.set_status(self.project, self.photo_id,
                        self.old if self.old in ("new", "reviewed") else "new")
        self.refresh()
