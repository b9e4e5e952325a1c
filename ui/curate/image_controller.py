"""Curate's image edits: roles, order, drops and boxes from the image panel, as commands.

The panel's signals (and the role/reorder keys in :mod:`ui.curate.actions`) land here; each
becomes one core command run through the workspace, so it is undoable and audited.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.curate.image_edits import (
    add_box,
    delete_box,
    move_image,
    set_box,
    set_box_role,
    set_image_role,
)

if TYPE_CHECKING:
    from ui.curate.workspace import CurateWorkspace


class ImageController:
    """Turns the image panel's requests into commands on the current sample."""

    def __init__(self, ws: CurateWorkspace) -> None:
        self.ws = ws
        panel = ws.view.images
        panel.role_requested.connect(self.set_role)
        panel.move_requested.connect(self.move_current_image)
        panel.drop_requested.connect(self.drop_image)
        panel.box_drawn.connect(self.box_drawn)
        panel.box_changed.connect(self.box_changed)
        panel.box_deleted.connect(self.box_deleted)

    def set_role(self, item: Any, role: str) -> None:
        """Use a whole image as input / output / unused; with a box selected, relabel it."""
        sid = self.ws.current_id()
        if sid is None or item is None:
            return
        canvas = self.ws.view.images.canvas
        if canvas.selected is not None and role in ("input", "output") and canvas.hasFocus():
            self.ws.run(set_box_role(sid, canvas.selected, role))
            return
        self.ws.run(set_image_role(sid, role, row_id=item.row_id, sha256=item.sha256,
                                   ref=item.ref))

    def move_current_image(self, item: Any, delta: int) -> None:
        """Move the selected image earlier/later among its role's images."""
        sid = self.ws.current_id()
        if sid is None or item is None:
            return
        row_id = item.row_id if item.row_id is not None else (
            self.ws.view.images.canvas.selected
            or (item.boxes[0].row_id if item.boxes else None))
        if row_id is None:
            self.ws.context.status("Give the image a role first, then reorder it.")
            return
        self.ws.run(move_image(sid, row_id, delta))

    def drop_image(self, item: Any, plan: Any) -> None:
        """A thumbnail was dropped: the reorder (Ctrl+←/→) or role (I/O/U) command."""
        sid = self.ws.current_id()
        if sid is None or item is None:
            return
        if plan.kind == "refuse":
            self.ws.context.status("Not moved: " + plan.reason, 6000)
        elif plan.kind == "move":
            self.ws.run(move_image(sid, plan.row_id, plan.delta))
        else:
            self.ws.run(set_image_role(sid, plan.role, row_id=item.row_id, sha256=item.sha256,
                                       ref=item.ref, index=plan.index))

    def box_drawn(self, item: Any, rect: Any, role: str) -> None:
        """A box was drawn on the canvas (``rect`` in the file's pixels): add it with
        ``role``; one of no size or off the image is refused with a message."""
        sid = self.ws.current_id()
        if sid is not None:
            self.ws.run_built(f"Add {role} box", lambda: add_box(
                sid, item.sha256, item.ref, role, _xywh(rect), self._size()))

    def box_changed(self, _item: Any, row_id: int, rect: Any, nudge: bool) -> None:
        """A box was moved or resized (``nudge``: by the arrow keys, merged into one step)."""
        sid = self.ws.current_id()
        if sid is not None:
            self.ws.run_built("Nudge box" if nudge else "Move/resize box", lambda: set_box(
                sid, row_id, _xywh(rect), self._size(), nudge=nudge))

    def box_deleted(self, _item: Any, row_id: int) -> None:
        """The selected box was deleted."""
        self.ws.run(delete_box(self.ws.current_id() or "", row_id))

    def _size(self) -> tuple[int, int] | None:
        """The image's size in the file's pixels, the space boxes are stored in (the
        canvas shows it upright: turned by its EXIF orientation, ADR 157/165)."""
        return self.ws.view.images.stored_size()


def _xywh(rect: Any) -> tuple[int, int, int, int]:
    return rect.x(), rect.y(), rect.width(), rect.height()
