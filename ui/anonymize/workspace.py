"""The Anonymize workspace page: photo list, canvas, panel, detection and release jobs."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from core.imaging import photos as repo
from core.imaging.anonymize import hide_regions
from core.imaging.geometry import Geometry, apply_geometry, map_box, plan
from core.imaging.release import spec_for
from ui.anonymize.actions import WorkspaceJobs
from ui.anonymize.canvas import PhotoCanvas
from ui.anonymize.commands import AddRegion, DeleteRegions, EditPhoto, EditRegion, SetStatus
from ui.anonymize.panel import PhotoPanel
from ui.anonymize.settings_dialog import load_settings
from ui.empty_state import EmptyState
from ui.widgets.theme import set_tone

STATUS_MARK = {"new": "●", "reviewed": "✓", "released": "⇪"}


def _regions(n: int) -> str:
    return f"{n} region" if n == 1 else f"{n} regions"


class AnonymizeWorkspace(WorkspaceJobs, QWidget):
    """Review contributed photos, hide faces and plates, fix geometry, release."""

    def __init__(self, context: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.undo = QUndoStack(self)
        self.settings = load_settings()
        self.photo: repo.Photo | None = None
        self.rgb: np.ndarray | None = None
        self.regions: list[repo.Region] = []
        self.after = False
        self.tool = "select"
        self.selected_region: int | None = None
        self.last_refusal: dict[str, Any] | None = None
        self.last_bulk: Any = None
        self._box: QMessageBox | None = None
        self._build()
        context.project_changed.connect(self.reload)
        context.data_changed.connect(self.reload)
        self.reload()

    # -- construction --------------------------------------------------------------------
    def _build(self) -> None:
        self.stack = QStackedWidget()
        self.act_import = self._act("Import Photo Folder…", self.choose_folder, "Ctrl+Shift+I",
                                    "Copy a folder of photos into the project (originals "
                                    "stay read-only)")
        from ui.workspaces import WORKSPACES

        info = next(w for w in WORKSPACES if w.key == "anonymize")
        self.empty = EmptyState(info.title, info.purpose + "\n\nOpen or create a project "
                                "first (File menu), then import a folder of photos.",
                                list(info.bullets))
        self.stack.addWidget(self.empty)

        main = QWidget()
        outer = QVBoxLayout(main)
        outer.setContentsMargins(0, 0, 0, 0)
        self.toolbar = QToolBar()
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.act_detect = self._act("Detect", self.detect_current, "Ctrl+D",
                                    "Find faces and plates in this photo")
        self.act_detect_all = self._act("Detect All", self.detect_all, "Ctrl+Shift+D",
                                        "Find faces and plates in every new photo")
        self.toolbar.addAction(self.act_import)
        self.toolbar.addAction(self.act_detect)
        self.toolbar.addAction(self.act_detect_all)
        self.toolbar.addSeparator()
        self.tool_actions: dict[str, QAction] = {}
        group = QActionGroup(self)
        for key, text, shortcut in (("select", "Select", "V"), ("rect", "Rectangle", "R"),
                                    ("ellipse", "Ellipse", "E"), ("corners", "Corners", "K"),
                                    ("crop", "Crop", "C")):
            act = self._act(text, lambda _=False, k=key: self.set_tool(k), shortcut,
                            f"{text} tool ({shortcut})")
            act.setCheckable(True)
            group.addAction(act)
            self.toolbar.addAction(act)
            self.tool_actions[key] = act
        self.tool_actions["select"].setChecked(True)
        self.toolbar.addSeparator()
        self.act_after = self._act("Before / After", self.toggle_after, "B",
                                   "Show the file as it will be released (B)")
        self.act_after.setCheckable(True)
        self.toolbar.addAction(self.act_after)
        self.act_fit = self._act("Fit", lambda: self.canvas.fit(), "0", "Fit to window (0)")
        self.toolbar.addAction(self.act_fit)
        self.act_undo = self.undo.createUndoAction(self, "Undo")
        self.act_undo.setShortcut(QKeySequence.StandardKey.Undo)
        self.act_redo = self.undo.createRedoAction(self, "Redo")
        self.act_redo.setShortcut(QKeySequence("Ctrl+Shift+Z"))
        for act in (self.act_undo, self.act_redo):
            act.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.addAction(act)
            self.toolbar.addAction(act)
        self.toolbar.addSeparator()
        self.act_settings = self._act("Settings…", self.edit_settings, None,
                                      "Detection thresholds and margins")
        self.toolbar.addAction(self.act_settings)
        self.toolbar.addSeparator()
        self._release_actions()
        self.toolbar.addAction(self.act_release_all)
        for text, slot, shortcut in (("Mark reviewed", self.toggle_reviewed, "Ctrl+Return"),
                                     ("Rotate left", lambda: self.rotate(-1), "["),
                                     ("Rotate right", lambda: self.rotate(1), "]"),
                                     ("Next photo", lambda: self.step(1), "PgDown"),
                                     ("Previous photo", lambda: self.step(-1), "PgUp")):
            self._act(text, slot, shortcut)
        #: actions that change the project: off while it is open read-only
        self.edit_actions = [self.act_import, self.act_detect, self.act_detect_all,
                             self.act_release, self.act_release_all,
                             *(self.tool_actions[k] for k in ("rect", "ellipse", "corners",
                                                              "crop"))]
        outer.addWidget(self.toolbar)

        self.banner = QFrame()
        set_tone(self.banner, "warning", border=True)
        bl = QHBoxLayout(self.banner)
        self.banner_text = QLabel()
        self.banner_text.setTextFormat(Qt.TextFormat.PlainText)
        self.banner_text.setWordWrap(True)
        self.banner_button = QPushButton("Use the fallback detector (HOG)")
        self.banner_button.clicked.connect(self.use_fallback)
        bl.addWidget(self.banner_text, 1)
        bl.addWidget(self.banner_button)
        outer.addWidget(self.banner)

        self.list = QListWidget()
        self.list.setMinimumWidth(200)
        self.list.currentRowChanged.connect(self._photo_row_changed)
        self.canvas = PhotoCanvas()
        self.canvas.region_drawn.connect(self._region_drawn)
        self.canvas.region_changed.connect(self._region_moved)
        self.canvas.delete_requested.connect(self.delete_regions)
        self.canvas.quad_changed.connect(self._quad_changed)
        self.canvas.crop_drawn.connect(self._crop_drawn)
        self.canvas.scene().selectionChanged.connect(self._canvas_selection)
        self.view_label = QLabel()
        self.view_label.setTextFormat(Qt.TextFormat.PlainText)
        self.view_label.setStyleSheet("padding: 3px 6px; font-weight: bold;")
        self.view_label.setWordWrap(True)  # a long file name must not widen the window
        centre = QWidget()
        cl = QVBoxLayout(centre)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(self.view_label)
        cl.addWidget(self.canvas, 1)
        self.panel = PhotoPanel()
        self.panel.photo_edit.connect(self.edit_photo)
        self.panel.region_edit.connect(self.edit_region)
        self.panel.region_selected.connect(self._panel_selection)
        self.panel.delete_regions.connect(self.delete_regions)
        self.panel.rotate.connect(self.rotate)
        self.panel.angle_edit.connect(lambda a: self._set_geometry(angle=a))
        self.panel.reset_geometry.connect(self.reset_geometry)
        self.panel.tool_requested.connect(self.set_tool)
        self.panel.mark_reviewed.connect(self.set_reviewed)
        self.panel.release.connect(self.release_current)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.list)
        splitter.addWidget(centre)
        splitter.addWidget(self.panel)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([220, 700, 340])
        outer.addWidget(splitter, 1)
        self.stack.addWidget(main)
        self.main = main
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)

    def _act(self, text: str, slot: Any, shortcut: str | None = None, tip: str = ""
             ) -> QAction:
        act = QAction(text, self)
        if shortcut:
            act.setShortcut(QKeySequence(shortcut))
            act.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        act.setToolTip(tip or text)
        act.triggered.connect(slot)
        self.addAction(act)
        return act

    def workspace_menu(self) -> QMenu:
        """The Anonymize menu for the menu bar."""
        menu = QMenu("&Anonymize", self)
        for act in (self.act_import, self.act_detect, self.act_detect_all, None,
                    self.act_release, self.act_release_all, None,
                    self.act_undo, self.act_redo, None, self.act_settings):
            menu.addSeparator() if act is None else menu.addAction(act)
        return menu

    def update_actions(self) -> None:
        """Enable what can act now (ADR 080): intake and bulk work need a writable
        project, everything about one photo needs a photo on screen."""
        writable = self.project is not None and not self.project.readonly
        bulk = (self.act_import, self.act_detect_all, self.act_release_all)
        for act in self.edit_actions:
            act.setEnabled(writable and (act in bulk or self.photo is not None))
        for act in (self.act_after, self.act_fit):
            act.setEnabled(self.photo is not None)

    # -- project / photo list -------------------------------------------------------------
    @property
    def project(self) -> Any:
        return self.context.project

    def reload(self) -> None:
        """Rebuild from the open project (or show the empty state)."""
        if self.project is None:
            self.stack.setCurrentWidget(self.empty)
            self.photo, self.rgb = None, None
            self.undo.clear()
            self.update_actions()
            return
        self.stack.setCurrentWidget(self.main)
        if self.project.readonly and self.tool != "select":
            self.set_tool("select")
        self._update_banner()
        keep = self.photo.id if self.photo else None
        self._fill_list(keep)

    def _fill_list(self, keep: int | None) -> None:
        items = repo.list_photos(self.project)
        counts = dict(self.project.conn.execute(
            "SELECT photo_id, count(*) FROM photo_regions GROUP BY photo_id").fetchall())
        self.list.blockSignals(True)
        self.list.clear()
        row = 0
        for i, p in enumerate(items):
            item = QListWidgetItem(f"{STATUS_MARK[p.status]}  {p.file_name}\n"
                                   f"     {p.status} · {_regions(counts.get(p.id, 0))}")
            item.setData(Qt.ItemDataRole.UserRole, p.id)
            item.setToolTip(f"{p.file_name} ({p.width}×{p.height})")
            self.list.addItem(item)
            if p.id == keep:
                row = i
        self.list.blockSignals(False)
        if items:
            self.list.setCurrentRow(row)
            self._photo_row_changed(row)
        else:
            self.show_photo(None)

    def _photo_row_changed(self, row: int) -> None:
        item = self.list.item(row) if row >= 0 else None
        self.show_photo(item.data(Qt.ItemDataRole.UserRole) if item else None)

    def step(self, delta: int) -> None:
        """Go to the next/previous photo."""
        row = self.list.currentRow() + delta
        if 0 <= row < self.list.count():
            self.list.setCurrentRow(row)

    def show_photo(self, photo_id: int | None) -> None:
        """Load and show one photo (None = nothing selected)."""
        if photo_id is None:
            self.photo, self.rgb, self.regions = None, None, []
            self.canvas.set_image(None)
            self.canvas.set_regions([])
            self.panel.show_photo(None, [], None)
            self.view_label.setText("Import a folder of photos to start "
                                    "(Anonymize → Import Photo Folder…)")
            self.update_actions()
            return
        if self.photo is None or self.photo.id != photo_id:
            photo = repo.get_photo(self.project, photo_id)
            try:
                self.rgb = repo.load_original(self.project, photo)
            except (OSError, ValueError) as exc:
                self.context.message("Cannot show photo", str(exc))
                self.rgb = None
            self.selected_region = None
            self.photo = photo
            self._refresh(fit=True)
        else:
            self._refresh()
        self.update_actions()

    def _refresh(self, fit: bool = False) -> None:
        """Re-read the current photo and redraw everything."""
        if self.photo is None or self.project is None:
            return
        self.photo = repo.get_photo(self.project, self.photo.id)
        self.regions = repo.regions(self.project, self.photo.id)
        if self.selected_region not in {r.id for r in self.regions}:
            self.selected_region = None
        self._update_list_item()
        self.panel.show_photo(self.photo, self.regions, self.selected_region)
        self._draw(fit)

    def _refresher(self) -> Any:
        """The redraw callback of an undo command made now: undoing or redoing it later
        first brings its photo back on screen, so no edit happens out of sight."""
        photo_id = self.photo.id if self.photo is not None else None

        def refresh() -> None:
            if photo_id is not None and (self.photo is None or self.photo.id != photo_id):
                for row in range(self.list.count()):
                    if self.list.item(row).data(Qt.ItemDataRole.UserRole) == photo_id:
                        self.list.setCurrentRow(row)  # loads and redraws that photo
                        return
            self._refresh()
        return refresh

    def _update_list_item(self) -> None:
        item = self.list.currentItem()
        if item is not None and self.photo is not None:
            p = self.photo
            item.setText(f"{STATUS_MARK[p.status]}  {p.file_name}\n"
                         f"     {p.status} · {_regions(len(self.regions))}")

    def _draw(self, fit: bool = False) -> None:
        if self.rgb is None or self.photo is None:
            self.canvas.set_image(None)
            return
        geom = self.photo.geometry
        labels = [SimpleNamespace(id=r.id, kind=r.kind, shape=r.shape, x=r.x, y=r.y,
                                  w=r.w, h=r.h, label=f"#{r.id} {r.kind}")
                  for r in self.regions]
        if self.after:
            shown = Geometry(geom.quad, geom.angle, geom.rot90,
                             None if self.tool == "crop" else geom.crop)
            image = apply_geometry(hide_regions(self.rgb, self.specs()), shown)
            matrix, _ = plan(shown, self.rgb.shape[1], self.rgb.shape[0])
            mapped = []
            for r in labels:
                x, y, w, h = map_box(matrix, (r.x, r.y, r.w, r.h), r.shape)
                mapped.append(SimpleNamespace(**{**vars(r), "x": x, "y": y, "w": w, "h": h,
                                                 "shape": "rect"}))
            self.canvas.set_image(image, keep_view=not fit)
            self.canvas.set_regions(mapped, editable=False)
            self.canvas.set_quad(None, False)
            self.view_label.setText(
                "AFTER — the file as it will be released: regions hidden, geometry applied, "
                "no metadata" + ("  ·  drag to set the crop" if self.tool == "crop" else ""))
            set_tone(self.view_label, "success", "padding: 3px 6px; font-weight: bold;")
        else:
            self.canvas.set_image(self.rgb, keep_view=not fit)
            self.canvas.set_regions(labels, editable=not self.project.readonly)
            quad = geom.quad or [(0.0, 0.0), (float(self.rgb.shape[1]), 0.0),
                                 (float(self.rgb.shape[1]), float(self.rgb.shape[0])),
                                 (0.0, float(self.rgb.shape[0]))]
            self.canvas.set_quad(quad, self.tool == "corners" or geom.quad is not None)
            self.canvas.select_region(self.selected_region)
            self.view_label.setText(
                ("READ-ONLY project — nothing can be changed  ·  " if self.project.readonly
                 else "") +
                f"BEFORE — original {self.photo.file_name} ({self.photo.width}×"
                f"{self.photo.height}), {_regions(len(self.regions))} to hide  ·  "
                "B shows the release")
            set_tone(self.view_label, "danger", "padding: 3px 6px; font-weight: bold;")

    def specs(self) -> list[Any]:
        """HideSpecs of the current photo's regions."""
        assert self.photo is not None
        return [spec_for(self.photo, r) for r in self.regions]

    # -- tools and view --------------------------------------------------------------------
    def set_tool(self, tool: str) -> None:
        """Switch the canvas tool (crop shows the After view)."""
        self.tool = tool
        self.tool_actions[tool].setChecked(True)
        self.canvas.set_tool(tool)
        if tool == "crop":
            self._set_after(True)
        elif tool in ("rect", "ellipse", "corners") and self.after:
            self._set_after(False)
        else:
            self._draw()

    def toggle_after(self) -> None:
        """Before/After toggle."""
        self._set_after(not self.after)

    def _set_after(self, after: bool) -> None:
        self.after = after
        self.act_after.setChecked(after)
        if not after and self.tool == "crop":
            self.tool = "select"
            self.tool_actions["select"].setChecked(True)
            self.canvas.set_tool("select")
        self._draw()

    # -- editing ------------------------------------------------------------------------
    def _push(self, command: Any) -> bool:
        """Run ``command`` through the undo stack; a refused edit is reported, not kept."""
        if not self._writable(command.text()):
            self._refresh()
            return False
        command.on_error = self._edit_failed
        self.undo.push(command)
        return command.error is None

    def _edit_failed(self, what: str, exc: Exception) -> None:
        self.context.message("Edit not saved", f"{what}: {exc}")

    def _region_drawn(self, shape: str, rect: QRectF) -> None:
        if self.photo is None:
            return
        fields = {"kind": "face" if shape == "ellipse" else "other", "shape": shape,
                  "x": rect.x(), "y": rect.y(), "w": rect.width(), "h": rect.height()}
        command = AddRegion(self.project, self.photo.id, fields, self._refresher())
        self._push(command)
        self.selected_region = command.region_id
        self.panel.select_region(command.region_id)
        self.canvas.select_region(command.region_id)

    def _region_moved(self, region_id: int, rect: QRectF) -> None:
        old = next((r for r in self.regions if r.id == region_id), None)
        if old is None:
            return
        self.selected_region = region_id
        new = {"x": rect.x(), "y": rect.y(), "w": rect.width(), "h": rect.height()}
        self._push(EditRegion(self.project, region_id,
                              {"x": old.x, "y": old.y, "w": old.w, "h": old.h}, new,
                              self._refresher(), "Move/resize region"))

    def edit_region(self, region_id: int, changes: dict[str, Any]) -> None:
        """Change fields of a region (undoable)."""
        old = next((r for r in self.regions if r.id == region_id), None)
        if old is None:
            return
        self._push(EditRegion(self.project, region_id,
                              {k: getattr(old, k) for k in changes}, changes, self._refresher()))

    def delete_regions(self, region_ids: list[int]) -> None:
        """Delete regions (undoable)."""
        if region_ids and self.photo is not None:
            self._push(DeleteRegions(self.project, list(region_ids), self._refresher()))

    def edit_photo(self, changes: dict[str, Any]) -> None:
        """Change photo fields (undoable)."""
        if self.photo is None:
            return
        old = {k: getattr(self.photo, k) for k in changes}
        if all(old[k] == v for k, v in changes.items()):
            return
        self._push(EditPhoto(self.project, self.photo.id, old, changes, self._refresher(),
                             f"Edit {', '.join(changes)}"))

    def _set_geometry(self, **changes: Any) -> None:
        if self.photo is None:
            return
        geom = Geometry.from_json({**self.photo.geometry.to_json(), **changes})
        self.edit_photo({"geometry": geom})

    def rotate(self, steps: int) -> None:
        """Quarter turns (+1 clockwise)."""
        if self.photo is not None:
            self._set_geometry(rot90=(self.photo.geometry.rot90 + steps) % 4, crop=None)

    def reset_geometry(self, what: str) -> None:
        """Reset corners, crop or everything."""
        if what == "corners":
            self._set_geometry(quad=None, crop=None)
        elif what == "crop":
            self._set_geometry(crop=None)
        else:
            self._set_geometry(quad=None, angle=0.0, rot90=0, crop=None)

    def _quad_changed(self, quad: list[tuple[float, float]]) -> None:
        self._set_geometry(quad=[list(p) for p in quad], crop=None)

    def _crop_drawn(self, rect: QRectF) -> None:
        self._set_geometry(crop=[rect.x(), rect.y(), rect.width(), rect.height()])
        self.set_tool("select")

    def _canvas_selection(self) -> None:
        ids = self.canvas.selected_ids()
        self.selected_region = ids[0] if ids else None
        self.panel.select_region(self.selected_region)

    def _panel_selection(self, region_id: int | None) -> None:
        self.selected_region = region_id
        self.canvas.select_region(region_id)

    def set_reviewed(self, reviewed: bool) -> None:
        """Mark the photo reviewed (or back to new)."""
        if self.photo is None:
            return
        new = "reviewed" if reviewed else "new"
        if self.photo.status == new or (reviewed and self.photo.status == "released"):
            self._refresh()
            return
        self._push(SetStatus(self.project, self.photo.id, self.photo.status, new,
                             self._refresher()))

    def toggle_reviewed(self) -> None:
        """Keyboard: flip reviewed."""
        if self.photo is not None:
            self.set_reviewed(self.photo.status == "new")
