"""Edits of the photo on screen, through core's undo stack (ADR 031).

Every gesture becomes a Qt-free command of :mod:`core.imaging.photo_edits`. An edit
core refuses (read-only project, a region deleted meanwhile, a bad value) is reported
and dropped, never kept for undo; undo and redo first bring back the photo they change,
so nothing is changed out of sight.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QRectF, Signal

from core.imaging.geometry import Geometry
from core.imaging.photo_edits import (
    EDIT_ERRORS,
    AddRegion,
    DeleteRegions,
    EditPhoto,
    EditRegion,
    PhotoCommand,
    RestoreRejected,
    SetStatus,
    UndoStack,
)
from core.imaging.photo_values import onto_photo
from core.store.project import Project
from ui.anonymize.viewer import PhotoViewer
from ui.context import AppContext


def writable(context: AppContext, what: str) -> bool:
    """False (and a message naming the project) while it is open read-only."""
    project: Project | None = context.project
    if project is not None and project.readonly:
        context.refuse("Project is read-only",
                       f"{what}: {project.path.name} is open read-only, so nothing in it "
                       "can change. Reopen it for writing (File → Open) once no other "
                       "Winnow holds it.")
        return False
    return True


class PhotoEditor(QObject):
    """Turns the workspace's intents into undoable commands on the photo shown."""

    #: the photo (id) whose data an edit, undo or redo changed: show it and refresh
    changed = Signal(int)
    #: what Undo / Redo would do changed (labels, enabled state)
    history_changed = Signal()

    def __init__(self, context: AppContext, viewer: PhotoViewer,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.context, self.viewer = context, viewer
        self.stack: UndoStack | None = None

    def reset(self) -> None:
        """A new history for the open project (none without one)."""
        project: Project | None = self.context.project
        self.stack = UndoStack(project) if project is not None else None
        self.history_changed.emit()

    def record(self, command: PhotoCommand) -> bool:
        """Book an edit already written on another connection (a detection job's) as one
        undo step; the rest of the history stays (ADR 189)."""
        if self.stack is None or not self.stack.record(command, "do"):
            return False
        self.history_changed.emit()
        return True

    # -- running commands --------------------------------------------------------------
    def run(self, command: PhotoCommand) -> bool:
        """Do ``command``; a refusal is reported (and the view re-read), never kept."""
        if self.stack is None:
            return False
        if not writable(self.context, command.label):
            self.viewer.refresh()
            return False
        try:
            done = self.stack.push(command)
        except EDIT_ERRORS as exc:
            self.context.message("Edit not saved", f"{command.label}: {_text(exc)}")
            self.viewer.refresh()
            return False
        self.history_changed.emit()
        self.changed.emit(command.photo_id)
        return done

    def undo(self) -> None:
        """Undo the last edit (showing the photo it changes)."""
        self._step(undo=True)

    def redo(self) -> None:
        """Redo the last undone edit (showing the photo it changes)."""
        self._step(undo=False)

    def step_state(self, undo: bool) -> tuple[str, bool]:
        """What Undo (``undo``) or Redo would do now, and whether it would work: a step
        core would refuse (the photo it changes was released since) is named with the
        reason, so the action is disabled instead of answering with a refusal."""
        verb = "Undo" if undo else "Redo"
        command = None if self.stack is None else (
            self.stack.next_undo() if undo else self.stack.next_redo())
        if command is None or self.stack is None:
            return f"Nothing to {verb.lower()}", False
        if isinstance(command, PhotoCommand):
            try:
                reason = command.refusal(self.stack.project, undo)
            except EDIT_ERRORS:
                reason = None  # e.g. the photo is gone: the step itself says so
            if reason:
                return f"Cannot {verb.lower()} '{command.label}': {reason}", False
        return f"{verb}: {command.label}", True

    def _step(self, undo: bool) -> None:
        if self.stack is None:
            return
        verb = "undo" if undo else "redo"
        if not (self.stack.can_undo() if undo else self.stack.can_redo()):
            return
        if not writable(self.context, verb.capitalize()):
            return
        try:
            command = self.stack.undo() if undo else self.stack.redo()
        except EDIT_ERRORS as exc:
            self.context.message(f"Cannot {verb}", _text(exc))
            self.viewer.refresh()
            return
        self.history_changed.emit()
        if isinstance(command, PhotoCommand):
            self.context.status(("Undid: " if undo else "Redid: ") + command.label, 3000)
            self.changed.emit(command.photo_id)

    # -- intents on the photo shown ----------------------------------------------------
    def _photo_id(self) -> int | None:
        return self.viewer.photo.id if self.viewer.photo is not None else None

    def add_region(self, shape: str, rect: QRectF) -> int | None:
        """A region drawn with the rectangle or ellipse tool; its id (None if refused)."""
        photo_id = self._photo_id()
        if photo_id is None:
            return None
        command = AddRegion(photo_id, {
            "kind": "face" if shape == "ellipse" else "other", "shape": shape,
            "x": rect.x(), "y": rect.y(), "w": rect.width(), "h": rect.height()})
        if self.run(command):
            self.viewer.selected_region = command.region_id
            return command.region_id
        return None

    def move_region(self, region_id: int, rect: QRectF) -> None:
        """A region dragged or resized on the canvas."""
        self.viewer.selected_region = region_id
        self.edit_region(region_id, {"x": rect.x(), "y": rect.y(), "w": rect.width(),
                                     "h": rect.height()}, "Move/resize region")

    def edit_region(self, region_id: int, changes: dict[str, Any],
                    label: str = "Edit region") -> None:
        """Change fields of a region."""
        photo_id = self._photo_id()
        if photo_id is not None:
            self.run(EditRegion(photo_id, region_id, changes, label))

    def move_onto_photo(self, region_id: int) -> None:
        """Bring a region that lies off the photo back onto its nearest edge (ADR 201)."""
        photo = self.viewer.photo
        region = next((r for r in self.viewer.regions if r.id == region_id), None)
        if photo is None or region is None:
            return
        box = onto_photo((region.x, region.y, region.w, region.h),
                         (photo.width, photo.height))
        self.viewer.selected_region = region_id
        self.edit_region(region_id, dict(zip(("x", "y", "w", "h"), box, strict=True)),
                         "Move region onto the photo")

    def delete_regions(self, region_ids: list[int]) -> None:
        """Delete regions; a detector's is rejected, and the status line says so."""
        photo_id = self._photo_id()
        found = {r.id for r in self.viewer.regions if r.source != "manual"}
        if region_ids and photo_id is not None and \
                self.run(DeleteRegions(photo_id, region_ids)):
            n = len(found & set(region_ids))
            if n:
                self.context.status(
                    f"Rejected {n} detection{'s' if n != 1 else ''}: Detect will not add "
                    f"{'it' if n == 1 else 'them'} again (Undo, or Restore under Regions)",
                    8000)

    def restore_rejected(self, region_ids: list[int]) -> None:
        """Bring back detections the photographer rejected (ADR 201)."""
        photo_id = self._photo_id()
        if region_ids and photo_id is not None and \
                self.run(RestoreRejected(photo_id, region_ids)):
            self.viewer.selected_region = region_ids[0]
            self.viewer.refresh()

    def edit_photo(self, changes: dict[str, Any]) -> None:
        """Change photo fields (an edit that changes nothing is not recorded)."""
        photo = self.viewer.photo
        if photo is not None and any(getattr(photo, k) != v for k, v in changes.items()):
            self.run(EditPhoto(photo.id, changes))

    def set_geometry(self, **changes: Any) -> None:
        """Change parts of the geometry (quad, angle, rot90, crop)."""
        photo = self.viewer.photo
        if photo is not None:
            geometry = Geometry.from_json({**photo.geometry.to_json(), **changes})
            self.edit_photo({"geometry": geometry})

    def rotate(self, steps: int) -> None:
        """Quarter turns (+1 clockwise); the crop no longer fits and is dropped."""
        photo = self.viewer.photo
        if photo is not None:
            self.set_geometry(rot90=(photo.geometry.rot90 + steps) % 4, crop=None)

    def reset_geometry(self, what: str) -> None:
        """Reset "corners", "crop" or everything."""
        if what == "corners":
            self.set_geometry(quad=None, crop=None)
        elif what == "crop":
            self.set_geometry(crop=None)
        else:
            self.set_geometry(quad=None, angle=0.0, rot90=0, crop=None)

    def set_quad(self, quad: list[tuple[float, float]]) -> None:
        """Perspective corners dragged on the canvas."""
        self.set_geometry(quad=[list(p) for p in quad], crop=None)

    def set_crop(self, rect: QRectF) -> None:
        """A crop drawn on the After view."""
        self.set_geometry(crop=[rect.x(), rect.y(), rect.width(), rect.height()])

    def set_reviewed(self, reviewed: bool) -> None:
        """Mark the photo reviewed, or back to new."""
        photo = self.viewer.photo
        if photo is None:
            return
        status = "reviewed" if reviewed else "new"
        if photo.status == status or (reviewed and photo.status == "released"):
            self.viewer.refresh()
            return
        self.run(SetStatus(photo.id, status))

    def toggle_reviewed(self) -> None:
        """Keyboard: flip reviewed."""
        if self.viewer.photo is not None:
            self.set_reviewed(self.viewer.photo.status == "new")


def _text(exc: BaseException) -> str:
    """A KeyError's message without the quotes str() adds."""
    return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
