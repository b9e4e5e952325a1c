"""The Anonymize workspace's actions: toolbar, menu, shortcuts, and when each can act.

Toolbar buttons use short labels (the menu keeps the full text, tooltips name the
shortcut); what does not fit a narrow window goes to the toolbar's » overflow menu.
:meth:`AnonymizeActions.update` enables exactly what can act on the page as shown
(issue 14 item 2: the window calls the page's ``update_actions()``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu, QToolBar, QWidget

from ui.anonymize.detector import DetectorBanner
from ui.anonymize.editor import PhotoEditor
from ui.anonymize.photo_jobs import PhotoJobs
from ui.anonymize.viewer import PhotoViewer
from ui.widgets.actions import make_action

TOOLS = (("select", "Select", "V", "Select, move and resize regions; drag the photo to pan"),
         ("rect", "Rectangle", "R", "Draw a rectangular region to hide"),
         ("ellipse", "Ellipse", "E", "Draw an elliptical region to hide (faces)"),
         ("corners", "Corners", "K", "Drag four corners onto a painting's corners "
                                     "(perspective fix)"),
         ("crop", "Crop", "C", "Draw the crop on the After view"))


class AnonymizeActions:
    """Every QAction of the page (scoped to it), its toolbar and its menu."""

    def __init__(self, page: QWidget, viewer: PhotoViewer, editor: PhotoEditor,
                 jobs: PhotoJobs, detector: DetectorBanner,
                 step: Callable[[int], None]) -> None:
        self.page, self.viewer, self.editor = page, viewer, editor

        def act(text: str, slot: Callable[..., Any], shortcut: str | None, tip: str,
                short: str | None = None) -> QAction:
            keys = QKeySequence(shortcut).toString(
                QKeySequence.SequenceFormat.NativeText) if shortcut else ""
            action = make_action(page, text, slot, shortcut,
                                 f"{tip} ({keys})" if keys else tip, local=True)
            if short:
                action.setIconText(short)
            return action

        self.act_import = act("Import Photo Folder…", jobs.choose_folder, "Ctrl+Shift+I",
                              "Copy a folder of photos into the project (originals stay "
                              "read-only)", "Import…")
        self.act_detect = act("Detect", lambda: jobs.detect_current(), "Ctrl+D",
                              "Find faces and plates in this photo")
        self.act_detect_all = act("Detect All", lambda: jobs.detect_all(), "Ctrl+Shift+D",
                                  "Find faces and plates in every new photo")
        self.tool_actions: dict[str, QAction] = {}
        group = QActionGroup(page)
        for key, text, shortcut, tip in TOOLS:
            action = act(text, lambda _=False, k=key: viewer.set_tool(k), shortcut, tip,
                         "Rect" if key == "rect" else None)
            action.setCheckable(True)
            group.addAction(action)
            self.tool_actions[key] = action
        self.tool_actions["select"].setChecked(True)
        self.act_after = act("Before / After", viewer.toggle_after, "B",
                             "Show the file as it will be released", "Before/After")
        self.act_after.setCheckable(True)
        self.act_fit = act("Fit", lambda: viewer.canvas.fit(), "0", "Fit the photo to the "
                           "window")
        self.act_undo = act("Undo", editor.undo, QKeySequence(
            QKeySequence.StandardKey.Undo).toString(), "Undo the last edit")
        self.act_redo = act("Redo", editor.redo, "Ctrl+Shift+Z", "Redo the last undone edit")
        # Ctrl+Y as well, as in Curate: the Redo key many users know from other programs
        self.act_redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.act_settings = act("Detection Settings…", detector.edit_settings, None,
                                "Detection thresholds and margins", "Settings…")
        # a lambda, not the bound method: triggered(checked) would arrive as ``out_dir``
        self.act_release = act("Release…", lambda: jobs.release_current(), "Ctrl+R",
                               "Release this reviewed photo into a folder")
        self.act_release_all = act(
            "Release All Reviewed…", lambda: jobs.release_all(), "Ctrl+Shift+R",
            "Release every photo marked reviewed into one folder (a background job; "
            "photos not reviewed are skipped)", "Release All…")
        self.act_export_dataset = act(
            "Export Released as Dataset…", lambda: jobs.export_released_dataset(), None,
            "Write the released photos, with caption, category, credit and licence, as a "
            "Hugging Face dataset folder")
        self.act_reviewed = act("Mark Reviewed", editor.toggle_reviewed, "Ctrl+Return",
                                "Mark the photo reviewed (or back to new)")
        self.act_rotate_left = act("Rotate Left", lambda: editor.rotate(-1), "[",
                                   "Rotate 90° counter-clockwise")
        self.act_rotate_right = act("Rotate Right", lambda: editor.rotate(1), "]",
                                    "Rotate 90° clockwise")
        self.act_next = act("Next Photo", lambda: step(1), "PgDown", "Next photo")
        self.act_previous = act("Previous Photo", lambda: step(-1), "PgUp", "Previous photo")
        viewer.tool_changed.connect(lambda tool: self.tool_actions[tool].setChecked(True))
        viewer.after_changed.connect(self.act_after.setChecked)
        editor.history_changed.connect(self.update)
        self.toolbar = self._toolbar()

    def _toolbar(self) -> QToolBar:
        toolbar = QToolBar()
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for group in ((self.act_import, self.act_detect, self.act_detect_all),
                      tuple(self.tool_actions.values()),
                      (self.act_after, self.act_fit, self.act_undo, self.act_redo),
                      (self.act_release_all, self.act_settings)):
            if toolbar.actions():
                toolbar.addSeparator()
            for action in group:
                toolbar.addAction(action)
        return toolbar

    def menu(self, parent: QWidget) -> QMenu:
        """The Anonymize menu for the menu bar."""
        menu = QMenu("&Anonymize", parent)
        for group in ((self.act_import, self.act_detect, self.act_detect_all),
                      (self.act_reviewed, self.act_release, self.act_release_all,
                       self.act_export_dataset),
                      (self.act_undo, self.act_redo),
                      (self.act_after, self.act_fit, self.act_rotate_left,
                       self.act_rotate_right, self.act_previous, self.act_next),
                      (self.act_settings,)):
            if menu.actions():
                menu.addSeparator()
            for action in group:
                menu.addAction(action)
        return menu

    def update(self) -> None:
        """Enable what can act now: a project open for writing, a photo on screen,
        something to undo or redo."""
        project = self.viewer.project
        writable = project is not None and not project.readonly
        photo = self.viewer.photo is not None
        for action in (self.act_import, self.act_detect_all, self.act_release_all):
            action.setEnabled(writable)
        self.act_export_dataset.setEnabled(project is not None)
        for action in (self.act_detect, self.act_release,
                       *(self.tool_actions[k] for k in ("rect", "ellipse", "corners",
                                                        "crop"))):
            action.setEnabled(writable and photo)
        # on a read-only project these keys still answer, with the message saying why
        for action in (self.act_after, self.act_fit, self.tool_actions["select"],
                       self.act_next, self.act_previous, self.act_reviewed,
                       self.act_rotate_left, self.act_rotate_right):
            action.setEnabled(photo)
        for action, undo, key in ((self.act_undo, True, "Ctrl+Z"),
                                  (self.act_redo, False, "Ctrl+Shift+Z")):
            tip, enabled = self.editor.step_state(undo)
            action.setEnabled(writable and enabled)
            action.setToolTip(f"{tip} ({key})")
            action.setStatusTip(tip)
