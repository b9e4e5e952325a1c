"""Undoable edits of photos and regions: Qt-free commands for core's ``UndoStack``.

The same command objects and stack as Curate (ADR 031): every ``do`` and ``undo`` is
one transaction with its audit rows (the repository calls of :mod:`core.imaging.photos`
join it); a refused step raises and changes nothing, so the stack neither records a
refused edit nor loses its place on a refused undo. Undo refuses with
:class:`EditConflict` when the data no longer holds what the command wrote.

A deleted region comes back with its own id (:func:`photos.restore_region`), so edits
made to it before the delete still undo and redo. Deleting a detector's region rejects
that detection (:mod:`core.imaging.rejections`, ADR 201): undo of the delete, or
:class:`RestoreRejected`, takes the rejection back with the region.
"""

from __future__ import annotations

from typing import Any

from core.curate.commands import Command, EditConflict, UndoStack
from core.imaging import photos as repo
from core.imaging import rejections
from core.imaging.geometry import Geometry
from core.store.errors import ProjectError
from core.store.project import Project

__all__ = ["AddRegion", "DeleteRegions", "Detect", "EDIT_ERRORS", "EditConflict",
           "EditPhoto", "EditRegion", "PhotoCommand", "RestoreRejected", "SetStatus",
           "UndoStack"]


class PhotoCommand(Command):
    """An edit of one photo (or its regions); ``photo_id`` says which photo to show.

    A database refusal is core's :class:`EditFailed` (a :class:`ProjectError`), raised by
    :class:`Command` itself."""

    def __init__(self, photo_id: int) -> None:
        super().__init__()
        self.photo_id = photo_id

    def refusal(self, project: Project, undo: bool) -> str | None:
        """Why undoing (``undo``) or redoing this edit now would be refused because of
        the photo's status (None when it would not be), read without changing anything:
        the UI disables Undo / Redo with this reason instead of offering a refusal."""
        return None


#: what a refused photo edit raises (the UI reports it; nothing was changed)
EDIT_ERRORS = (EditConflict, KeyError, ValueError, ProjectError)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, Geometry) or isinstance(b, Geometry):
        return Geometry.from_json(_geometry_json(a)) == Geometry.from_json(_geometry_json(b))
    return bool(a == b)


def _geometry_json(value: Any) -> dict[str, Any]:
    return value.to_json() if isinstance(value, Geometry) else dict(value or {})


class AddRegion(PhotoCommand):
    """Add a region; undo deletes it, redo puts the same region (same id) back."""

    def __init__(self, photo_id: int, fields: dict[str, Any]) -> None:
        super().__init__(photo_id)
        self.fields = dict(fields)
        self.label = f"Add {self.fields.get('kind', 'face')} region"
        self.region_id: int | None = None
        self._saved: repo.Region | None = None

    def _do(self, project: Project) -> None:
        if self._saved is None:
            self.region_id = repo.add_region(project, self.photo_id, **self.fields)
            self._saved = repo.get_region(project, self.region_id)
        else:
            try:
                repo.restore_region(project, self._saved)
            except ValueError as exc:
                raise EditConflict(f"{exc}; redo refused") from exc

    def _undo(self, project: Project) -> None:
        assert self.region_id is not None and self._saved is not None
        try:
            current = repo.get_region(project, self.region_id)
        except KeyError as exc:
            raise EditConflict(f"region {self.region_id} is gone already; undo refused"
                               ) from exc
        if current != self._saved:
            raise EditConflict(f"region {self.region_id} was changed elsewhere since "
                               f"'{self.label}'; undo refused to keep that change")
        repo.delete_region(project, self.region_id)


class DeleteRegions(PhotoCommand):
    """Delete regions, rejecting those a detector found (ADR 201); undo puts them back
    with their ids and takes the rejections back."""

    def __init__(self, photo_id: int, region_ids: list[int]) -> None:
        super().__init__(photo_id)
        self.region_ids = list(dict.fromkeys(region_ids))
        n = len(self.region_ids)
        self.label = f"Delete {n} region{'s' if n != 1 else ''}"
        self._saved: list[repo.Region] = []

    @property
    def changed(self) -> bool:
        return bool(self._saved)

    def _do(self, project: Project) -> None:
        self._saved = [repo.delete_region(project, rid) for rid in self.region_ids]
        rejections.reject(project, self._saved)

    def _undo(self, project: Project) -> None:
        _put_back(project, self._saved, "undo")


def _put_back(project: Project, saved: list[repo.Region], what: str) -> None:
    """Restore deleted regions with their ids and forget their rejections."""
    for region in saved:
        try:
            repo.restore_region(project, region)
        except ValueError as exc:
            raise EditConflict(f"{exc}; {what} refused") from exc
    rejections.unreject(project, [r.id for r in saved])


class RestoreRejected(PhotoCommand):
    """Bring back detections the user rejected (deleted), as they were, with their ids;
    Detect may find them again afterwards. Undo rejects them again."""

    def __init__(self, photo_id: int, region_ids: list[int]) -> None:
        super().__init__(photo_id)
        self.region_ids = list(dict.fromkeys(region_ids))
        n = len(self.region_ids)
        self.label = f"Restore {n} rejected detection{'s' if n != 1 else ''}"
        self._saved: list[repo.Region] = []

    @property
    def changed(self) -> bool:
        return bool(self._saved)

    def _do(self, project: Project) -> None:
        held = {r.id: r for r in rejections.rejected(project, self.photo_id)}
        missing = [rid for rid in self.region_ids if rid not in held]
        if missing:
            raise EditConflict(f"region {missing[0]} is no longer a rejected detection of "
                               f"this photo; '{self.label}' refused")
        self._saved = [held[rid] for rid in self.region_ids]
        _put_back(project, self._saved, f"'{self.label}'")

    def _undo(self, project: Project) -> None:
        for region in self._saved:
            try:
                current = repo.get_region(project, region.id)
            except KeyError:
                raise EditConflict(f"region {region.id} is gone already; undo of "
                                   f"'{self.label}' refused") from None
            if current != region:
                raise EditConflict(f"region {region.id} was changed since '{self.label}'; "
                                   "undo refused to keep that change")
            repo.delete_region(project, region.id)
        rejections.reject(project, self._saved)


class _FieldEdit(PhotoCommand):
    """Set some fields; remembers the old values at the first ``do`` (only those that
    change), refuses to undo or redo over a change made elsewhere."""

    what = "the photo"

    def __init__(self, photo_id: int, new: dict[str, Any], label: str) -> None:
        super().__init__(photo_id)
        self.new, self.label = dict(new), label
        self.old: dict[str, Any] = {}

    @property
    def changed(self) -> bool:
        return bool(self.old)

    def _current(self, project: Project) -> dict[str, Any]:
        raise NotImplementedError

    def _write(self, project: Project, values: dict[str, Any]) -> None:
        raise NotImplementedError

    def _do(self, project: Project) -> None:
        current = self._current(project)
        if not self.old:
            self.old = {k: v for k, v in current.items() if not _same(v, self.new[k])}
        elif any(not _same(current[k], v) for k, v in self.old.items()):
            raise EditConflict(f"{self.label}: {self.what} changed since; redo refused")
        if self.old:
            self._write(project, {k: self.new[k] for k in self.old})

    def _undo(self, project: Project) -> None:
        current = self._current(project)
        if any(not _same(current[k], self.new[k]) for k in self.old):
            raise EditConflict(f"{self.what} was changed elsewhere since '{self.label}'; "
                               "undo refused to keep that change")
        self._write_back(project, self.old)

    def _write_back(self, project: Project, values: dict[str, Any]) -> None:
        """Write the old values back (undo)."""
        self._write(project, values)


class EditRegion(_FieldEdit):
    """Change fields of one region (move/resize, kind, shape, method, strength)."""

    def __init__(self, photo_id: int, region_id: int, new: dict[str, Any],
                 label: str = "Edit region") -> None:
        super().__init__(photo_id, new, label)
        self.region_id = region_id
        self.what = f"region {region_id}"
        self.was_edited = False  # the region's own flag before (ADR 189)

    def _do(self, project: Project) -> None:
        if not self.old:  # what will be stored (clipped to the photo, ADR 188)
            self.new = repo.fitted_changes(project, self.region_id, self.new)
        super()._do(project)

    def _current(self, project: Project) -> dict[str, Any]:
        region = repo.get_region(project, self.region_id)
        if not self.old:
            self.was_edited = region.edited
        return {k: getattr(region, k) for k in self.new}

    def _write(self, project: Project, values: dict[str, Any]) -> None:
        repo.update_region(project, self.region_id, **values)

    def _write_back(self, project: Project, values: dict[str, Any]) -> None:
        repo.update_region(project, self.region_id, edited=self.was_edited, exact=True,
                           **values)


class EditPhoto(_FieldEdit):
    """Change photo fields (method, strength, feather, geometry, metadata)."""

    def __init__(self, photo_id: int, new: dict[str, Any], label: str = "") -> None:
        super().__init__(photo_id, new, label or f"Edit {', '.join(new)}")

    def _current(self, project: Project) -> dict[str, Any]:
        photo = repo.get_photo(project, self.photo_id)
        return {k: getattr(photo, k) for k in self.new}

    def _write(self, project: Project, values: dict[str, Any]) -> None:
        repo.update_photo(project, self.photo_id, **values)


class SetStatus(PhotoCommand):
    """Mark a photo reviewed, or back to new."""

    def __init__(self, photo_id: int, status: str) -> None:
        super().__init__(photo_id)
        self.status = status
        self.label = f"Mark {status}"
        self.old: str | None = None
        self.confirmed: list[int] = []  # detector regions that marking reviewed confirmed

    @property
    def changed(self) -> bool:
        return self.old is not None and self.old != self.status

    def refusal(self, project: Project, undo: bool) -> str | None:
        """The photo's status changed since (e.g. it was released): the step is refused."""
        if not undo and self.old is None:
            return None  # never done yet: the first do takes the status as it is
        current = repo.get_photo(project, self.photo_id).status
        if current != (self.status if undo else self.old):
            return f"the photo is {current} now"
        if undo and self.old == "released":
            return "a photo becomes released again only by releasing it (Release…)"
        return None

    def _do(self, project: Project) -> None:
        if self.old is None:
            self.old = repo.get_photo(project, self.photo_id).status
        reason = self.refusal(project, undo=False)
        if reason:
            raise EditConflict(f"{self.label}: {reason}; redo refused")
        self.confirmed = repo.set_status(project, self.photo_id, self.status)

    def _undo(self, project: Project) -> None:
        reason = self.refusal(project, undo=True)
        if reason:
            raise EditConflict(f"{reason}; undo of '{self.label}' refused")
        repo.set_status(project, self.photo_id, self.old or "new")
        repo.mark_edited(project, self.confirmed, False)


class Detect(PhotoCommand):
    """A detection a job already wrote (:func:`photos.replace_detections`), as one undo
    step (ADR 189): undo removes the regions it added and puts back those it replaced,
    with their ids; redo does it again. Either refuses when a region it would take away
    was changed since (the user's change is kept)."""

    def __init__(self, change: repo.Redetection, name: str) -> None:
        super().__init__(change.photo_id)
        self.change = change
        self.label = f"Detect in {name}"

    @property
    def changed(self) -> bool:
        return self.change.changed

    def _do(self, project: Project) -> None:
        self._swap(project, self.change.removed, self.change.made, self.change.after)

    def _undo(self, project: Project) -> None:
        self._swap(project, self.change.made, self.change.removed, self.change.before)

    def _swap(self, project: Project, gone: list[repo.Region], back: list[repo.Region],
              stamp: tuple[str | None, str | None]) -> None:
        """Take ``gone`` away (each as it was written) and put ``back`` back."""
        for region in gone:
            try:
                current = repo.get_region(project, region.id)
            except KeyError:
                raise EditConflict(f"region {region.id} is gone already; "
                                   f"'{self.label}' refused") from None
            if current != region:
                raise EditConflict(f"region {region.id} was changed since '{self.label}'; "
                                   "refused to keep that change")
            repo.delete_region(project, region.id)
        for region in back:
            try:
                repo.restore_region(project, region)
            except ValueError as exc:
                raise EditConflict(f"{exc}; '{self.label}' refused") from exc
        repo.set_detected(project, self.photo_id, *stamp)
