"""The Anonymize workspace page: photo list, canvas and panel, wired to its controllers.

The page only lays out widgets and connects them; the work is done by typed
controllers it holds:

* :class:`~ui.anonymize.viewer.PhotoViewer` — the photo on screen, Before/After, tool,
  decoding and rendering (big photos in background jobs);
* :class:`~ui.anonymize.editor.PhotoEditor` — every edit through core's undo stack;
* :class:`~ui.anonymize.photo_jobs.PhotoJobs` — intake, detection and release jobs;
* :class:`~ui.anonymize.detector.DetectorBanner` — detection settings, missing-model
  banner;
* :class:`~ui.anonymize.actions.AnonymizeActions` — toolbar, menu, shortcuts.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from core.imaging import photos as repo
from core.store.project import Project
from ui.anonymize.actions import AnonymizeActions
from ui.anonymize.canvas import PhotoCanvas
from ui.anonymize.detector import DetectorBanner
from ui.anonymize.editor import PhotoEditor
from ui.anonymize.panel import PhotoPanel
from ui.anonymize.photo_jobs import PhotoJobs
from ui.anonymize.viewer import PhotoViewer, regions_text
from ui.context import AppContext
from ui.empty_state import EmptyState
from ui.widgets.tooltips import plain_tooltip

STATUS_MARK = {"new": "●", "reviewed": "✓", "released": "⇪"}


def _item_text(photo: repo.Photo, regions: int) -> str:
    return f"{STATUS_MARK[photo.status]}  {photo.file_name}\n" \
           f"     {photo.status} · {regions_text(regions)}"


class AnonymizeWorkspace(QWidget):
    """Review contributed photos, hide faces and plates, fix geometry, release."""

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.list = QListWidget()
        self.canvas = PhotoCanvas()
        self.view_label = QLabel()
        self.panel = PhotoPanel()
        self.detector = DetectorBanner(context)
        self.viewer = PhotoViewer(context, self.canvas, self.view_label, self)
        self.editor = PhotoEditor(context, self.viewer, self)
        self.jobs = PhotoJobs(context, self, self.viewer, self.editor, self.detector)
        self.page_actions = AnonymizeActions(self, self.viewer, self.editor, self.jobs,
                                             self.detector, self.step)
        acts = self.page_actions  # the ones the window and its tests name on the page
        self.act_import, self.act_detect, self.act_detect_all = \
            acts.act_import, acts.act_detect, acts.act_detect_all
        self.act_release, self.act_release_all = acts.act_release, acts.act_release_all
        self._build()
        self._connect()
        context.project_changed.connect(self._project_changed)
        context.data_changed.connect(self.reload)
        self._project_changed()

    # -- construction --------------------------------------------------------------------
    def _build(self) -> None:
        from ui.workspaces import WORKSPACES

        info = next(w for w in WORKSPACES if w.key == "anonymize")
        self.empty = EmptyState(info.title, info.purpose + "\n\nOpen or create a project "
                                "first (File menu), then import a folder of photos.",
                                list(info.bullets))
        self.list.setMinimumWidth(140)
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.view_label.setTextFormat(Qt.TextFormat.PlainText)
        self.view_label.setWordWrap(True)  # a long file name must not widen the window
        centre = QWidget()
        cl = QVBoxLayout(centre)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(self.view_label)
        cl.addWidget(self.canvas, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        for widget in (self.list, centre, self.panel):
            splitter.addWidget(widget)
        splitter.setStretchFactor(1, 1)
        splitter.setCollapsible(1, False)
        splitter.setSizes([180, 700, 300])
        self.main = QWidget()
        outer = QVBoxLayout(self.main)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.page_actions.toolbar)
        outer.addWidget(self.detector)
        outer.addWidget(splitter, 1)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.main)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)

    def _connect(self) -> None:
        editor, viewer, canvas, panel = self.editor, self.viewer, self.canvas, self.panel
        self.list.currentRowChanged.connect(self._row_changed)
        canvas.region_drawn.connect(self._region_drawn)
        canvas.region_changed.connect(editor.move_region)
        canvas.delete_requested.connect(editor.delete_regions)
        canvas.quad_changed.connect(editor.set_quad)
        canvas.crop_drawn.connect(self._crop_drawn)
        canvas.tool_requested.connect(self.viewer.set_tool)
        canvas.scene().selectionChanged.connect(self._canvas_selection)
        panel.photo_edit.connect(editor.edit_photo)
        panel.region_edit.connect(editor.edit_region)
        panel.region_selected.connect(self._panel_selection)
        panel.delete_regions.connect(editor.delete_regions)
        panel.restore_rejected.connect(editor.restore_rejected)
        panel.onto_photo.connect(editor.move_onto_photo)
        panel.rotate.connect(editor.rotate)
        panel.angle_edit.connect(lambda angle: editor.set_geometry(angle=angle))
        panel.reset_geometry.connect(editor.reset_geometry)
        panel.tool_requested.connect(viewer.set_tool)
        panel.mark_reviewed.connect(editor.set_reviewed)
        panel.release.connect(lambda: self.jobs.release_current())
        viewer.refreshed.connect(self._refreshed)
        editor.changed.connect(self._edited)
        self.jobs.reload_needed.connect(self.reload)

    def workspace_menu(self) -> QMenu:
        """The Anonymize menu for the menu bar."""
        return self.page_actions.menu(self)

    def update_actions(self) -> None:
        """Enable the page's actions that can act now (the window calls this when the
        page is shown; the page calls it on every change of project, photo or history)."""
        self.page_actions.update()

    # -- project / photo list -------------------------------------------------------------
    @property
    def project(self) -> Project | None:
        """The open project."""
        project: Project | None = self.context.project
        return project

    @property
    def photo(self) -> repo.Photo | None:
        """The photo on screen."""
        return self.viewer.photo

    def _project_changed(self) -> None:
        self.editor.reset()
        self.viewer.forget()
        self.reload()

    def reload(self) -> None:
        """Rebuild from the open project (or show the empty state)."""
        if self.project is None:
            self.stack.setCurrentWidget(self.empty)
            self.viewer.show(None)
            self.update_actions()
            return
        self.stack.setCurrentWidget(self.main)
        if self.project.readonly and self.viewer.tool != "select":
            self.viewer.set_tool("select")
        self.detector.update_banner()
        self._fill_list(self.photo.id if self.photo else None)

    def _fill_list(self, keep: int | None) -> None:
        assert self.project is not None
        photos = repo.list_photos(self.project)
        counts = repo.region_counts(self.project)
        self.list.blockSignals(True)
        self.list.clear()
        row = 0
        for i, photo in enumerate(photos):
            item = QListWidgetItem(_item_text(photo, counts.get(photo.id, 0)))
            item.setData(Qt.ItemDataRole.UserRole, photo.id)
            item.setToolTip(plain_tooltip(f"{photo.file_name} ({photo.width}×{photo.height})"))
            self.list.addItem(item)
            if photo.id == keep:
                row = i
        self.list.blockSignals(False)
        if photos:
            self.list.setCurrentRow(row)
            self._row_changed(row)
        else:
            self.viewer.show(None)

    def _row_changed(self, row: int) -> None:
        item = self.list.item(row) if row >= 0 else None
        self.viewer.show(item.data(Qt.ItemDataRole.UserRole) if item else None)

    def step(self, delta: int) -> None:
        """Go to the next/previous photo."""
        row = self.list.currentRow() + delta
        if 0 <= row < self.list.count():
            self.list.setCurrentRow(row)

    def _row_of(self, photo_id: int) -> int | None:
        return next((row for row in range(self.list.count())
                     if self.list.item(row).data(Qt.ItemDataRole.UserRole) == photo_id), None)

    def _refreshed(self) -> None:
        viewer = self.viewer
        self.panel.show_photo(viewer.photo, viewer.regions, viewer.selected_region,
                              viewer.rejected)
        item = self.list.currentItem()
        if item is not None and viewer.photo is not None:
            item.setText(_item_text(viewer.photo, len(viewer.regions)))
        self.update_actions()

    def _edited(self, photo_id: int) -> None:
        """An edit, undo or redo changed ``photo_id``: show it (it may be another photo
        than the one on screen), with its new state."""
        if self.photo is not None and self.photo.id == photo_id:
            self.viewer.refresh()
            return
        row = self._row_of(photo_id)
        if row is not None:
            self.list.setCurrentRow(row)  # loads and shows that photo

    # -- canvas and panel gestures ---------------------------------------------------------
    def _region_drawn(self, shape: str, rect: QRectF) -> None:
        region_id = self.editor.add_region(shape, rect)
        if region_id is not None:
            self.viewer.selected_region = region_id
            self.panel.select_region(region_id)
            self.canvas.select_region(region_id)

    def _crop_drawn(self, rect: QRectF) -> None:
        self.editor.set_crop(rect)
        self.viewer.set_tool("select")

    def _canvas_selection(self) -> None:
        ids = self.canvas.selected_ids()
        self.viewer.selected_region = ids[0] if ids else None
        self.panel.select_region(self.viewer.selected_region)

    def _panel_selection(self, region_id: int | None) -> None:
        self.viewer.selected_region = region_id
        self.canvas.select_region(region_id)
