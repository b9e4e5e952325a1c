"""What the Anonymize canvas shows: one photo, Before or After, its regions, the tool.

The Before view is the upright original with its regions (outlines and labels); the
After view is the file as it will be released, with no outline or label over the blur
so it can be judged. Pixels come from :class:`~ui.anonymize.pixels.PhotoPixels`.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel

from core.imaging import photos as repo
from core.imaging import rejections
from core.imaging.anonymize import HideSpec
from core.imaging.geometry import Geometry
from core.imaging.pyramid import Pyramid, after_size
from core.imaging.release import spec_for
from core.store.project import Project
from ui.anonymize.canvas import PhotoCanvas
from ui.anonymize.pixels import PhotoPixels
from ui.context import AppContext
from ui.widgets.theme import set_tone


def regions_text(n: int) -> str:
    """"1 region", "3 regions"."""
    return f"{n} region" if n == 1 else f"{n} regions"


class PhotoViewer(QObject):
    """The photo on screen, Before or After, with its regions, selection and tool."""

    refreshed = Signal()  # the photo and its regions were read again
    tool_changed = Signal(str)
    after_changed = Signal(bool)

    def __init__(self, context: AppContext, canvas: PhotoCanvas, caption: QLabel,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.context, self.canvas, self.caption = context, canvas, caption
        self.photo: repo.Photo | None = None
        self.regions: list[repo.Region] = []
        #: detections the photographer deleted: Detect leaves them out (ADR 201)
        self.rejected: list[repo.Region] = []
        self.after = False
        self.tool = "select"
        self.selected_region: int | None = None
        self.pixels = PhotoPixels(context, self)
        self.pixels.arrived.connect(self._arrived)
        self.pixels.progress_changed.connect(self._update_caption)

    @property
    def project(self) -> Project | None:
        """The open project."""
        project: Project | None = self.context.project
        return project

    # -- which photo --------------------------------------------------------------------
    def show(self, photo_id: int | None) -> None:
        """Show one photo (None = nothing selected); the same photo is only refreshed."""
        if photo_id is None or self.project is None:
            self.photo, self.regions, self.selected_region = None, [], None
            self.rejected = []
            self.pixels.cancel()
            self.refreshed.emit()
            self.draw()
            return
        if self.photo is not None and self.photo.id == photo_id:
            self.refresh()
            return
        self.pixels.cancel()
        self.photo = repo.get_photo(self.project, photo_id)
        self.selected_region = None
        self.refresh(fit=True)

    def forget(self) -> None:
        """The project closed (or another opened): drop the photo and its pixels."""
        self.show(None)
        self.pixels.forget()

    def refresh(self, fit: bool = False) -> None:
        """Read the photo and its regions again and redraw."""
        if self.photo is None or self.project is None:
            return
        self.photo = repo.get_photo(self.project, self.photo.id)
        self.regions = repo.regions(self.project, self.photo.id)
        self.rejected = rejections.rejected(self.project, self.photo.id)
        if self.selected_region not in {r.id for r in self.regions}:
            self.selected_region = None
        self.refreshed.emit()
        self.draw(fit)

    def specs(self) -> list[HideSpec]:
        """What hides each region of the photo on screen."""
        assert self.photo is not None
        return [spec_for(self.photo, r) for r in self.regions if not r.unreadable]

    # -- tools and Before/After ---------------------------------------------------------
    def set_tool(self, tool: str) -> None:
        """Switch the canvas tool (crop shows the After view, drawing the Before view)."""
        self.tool = tool
        self.canvas.set_tool(tool)
        self.tool_changed.emit(tool)
        if tool == "crop":
            self.set_after(True)
        elif tool in ("rect", "ellipse", "corners") and self.after:
            self.set_after(False)
        else:
            self.draw()

    def toggle_after(self) -> None:
        """Before/After."""
        self.set_after(not self.after)

    def set_after(self, after: bool) -> None:
        """Show the release (True) or the original with its regions (False)."""
        self.after = after
        self.after_changed.emit(after)
        if not after and self.tool == "crop":
            self.tool = "select"
            self.canvas.set_tool("select")
            self.tool_changed.emit("select")
        if not after:
            self.pixels.cancel("after")
        self.draw()

    # -- drawing ------------------------------------------------------------------------
    def draw(self, fit: bool = False) -> None:
        """Put the current state on the canvas."""
        if self.photo is None or self.project is None:
            self.canvas.clear_image()
            self.canvas.set_regions([])
            self.canvas.set_quad(None, False)
            self.caption.setText("Import a folder of photos to start "
                                 "(Anonymize → Import Photo Folder…)")
            return
        if self.after:
            self._draw_after(fit)
        else:
            self._draw_before(fit)
        self._update_caption()

    def _draw_before(self, fit: bool) -> None:
        photo = self.photo
        assert photo is not None and self.project is not None
        self.canvas.show_image(photo.width, photo.height, keep_view=not fit)
        self.canvas.set_pyramid(self.pixels.before(photo))
        self.canvas.set_regions(self.regions, editable=not self.project.readonly)
        quad = photo.geometry.quad or [(0.0, 0.0), (float(photo.width), 0.0),
                                       (float(photo.width), float(photo.height)),
                                       (0.0, float(photo.height))]
        self.canvas.set_quad(quad, self.tool == "corners" or photo.geometry.quad is not None)
        self.canvas.select_region(self.selected_region)

    def _draw_after(self, fit: bool) -> None:
        photo = self.photo
        assert photo is not None
        geometry = photo.geometry
        if self.tool == "crop":  # the crop is drawn on the uncropped result
            geometry = Geometry(geometry.quad, geometry.angle, geometry.rot90, None)
        self.canvas.show_image(*after_size(geometry, photo.width, photo.height),
                               keep_view=not fit)
        self.canvas.set_regions([])  # no outline or label over the blur
        self.canvas.set_quad(None, False)
        self.canvas.set_pyramid(self.pixels.after(photo, self.specs(), geometry))

    def _arrived(self, kind: str, pyramid: Pyramid) -> None:
        if (kind == "after") == self.after and self.photo is not None:
            self.canvas.set_pyramid(pyramid)

    def _update_caption(self) -> None:
        photo = self.photo
        if photo is None or self.project is None:
            return
        busy = self.pixels.busy_text()
        busy = f"  ·  {busy}" if busy else ""
        if self.after:
            self.caption.setText(
                "AFTER — the file as it will be released: regions hidden, geometry "
                "applied, no metadata (outlines hidden)"
                + ("  ·  drag to set the crop" if self.tool == "crop" else "") + busy)
            set_tone(self.caption, "success", "padding: 3px 6px; font-weight: bold;")
        else:
            self.caption.setText(
                ("READ-ONLY project — nothing can be changed  ·  " if self.project.readonly
                 else "")
                + f"BEFORE — original {photo.file_name} ({photo.width}×{photo.height}), "
                f"{regions_text(len(self.regions))} to hide  ·  B shows the release"
                + busy)
            set_tone(self.caption, "danger", "padding: 3px 6px; font-weight: bold;")
