"""Keyboard shortcuts and the "Curate" menu (active only while Curate is shown; the
shortcut sheet, Help → Keyboard Shortcuts, is generated from these actions)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QTextCursor
from PySide6.QtWidgets import QInputDialog, QMenu


class CurateActions:
    """Builds every action of the workspace and the menu that lists them."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.menu = QMenu("&Curate", ws)
        self.all: list[QAction] = []
        #: actions that change the project (off while it is open read-only)
        self.edits: list[QAction] = []
        self.read_only = False
        m = self.menu
        self.export = self._add(m, "&Export Benchmark…", ws.exports.ask, "Ctrl+E",
                                "Write samples.jsonl and images/ (crops applied) to a folder")
        self._add_proposals(m)
        m.addSeparator()
        self.undo = self._add(m, "&Undo", ws.undo, QKeySequence.StandardKey.Undo)
        self.redo = self._add(m, "&Redo", ws.redo, "Ctrl+Shift+Z")
        self.redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        m.addSeparator()
        first_edit = len(self.all)
        label = m.addMenu("&Label")
        for quality, key in (("Benchmark", "B"), ("Analysis", "A"), ("Trash", "T")):
            self._add(label, quality, partial(ws.review.label, quality), key)
        for quality, key in (("Benchmark", "B"), ("Analysis", "A"), ("Trash", "T")):
            self._add(label, f"{quality}, Reviewed and Next",
                      partial(ws.review.label, quality, advance=True), f"Shift+{key}")
        self._add(label, "Clear Label", lambda: ws.review.label(None), "X")
        self._add(m, "Toggle &Reviewed", ws.review.toggle_reviewed, "R")
        self._add(m, "&Mark Reviewed and Advance", ws.review.mark_and_advance, "Ctrl+Return",
                  "Mark the sample reviewed and go to the next unreviewed one")
        self.edits += self.all[first_edit:]
        self._add(m, "&Next Unreviewed", ws.next_unreviewed, "N")
        self._add(m, "Next Sample", lambda: ws.step(1), "J").setShortcuts(
            [QKeySequence("J"), QKeySequence("Alt+Down")])
        self._add(m, "Previous Sample", lambda: ws.step(-1), "K").setShortcuts(
            [QKeySequence("K"), QKeySequence("Alt+Up")])
        m.addSeparator()
        first_edit = len(self.all)
        self._add(m, "Edit &Prompt", self._focus_prompt, "E")
        self._add(m, "Reset Prompt to &Original", lambda: ws.view.reset_prompt(),
                  "Ctrl+Shift+R")
        self._add(m, "&Tag Selected Samples…", self._ask_tag, "Ctrl+T",
                  "Add a tag to every selected sample")
        self.edits += self.all[first_edit:]
        self._add(m, "&Search", self._focus_search, QKeySequence.StandardKey.Find)
        self._add(m, "Show &History", self._show_history, "H")
        self.show_list = self._add(m, "Show Sample &List", lambda: ws.panes.toggle("list"),
                                   "Ctrl+L", "Show or hide the sample list (or drag its edge)")
        self.show_images = self._add(m, "Show &Images", lambda: ws.panes.toggle("images"),
                                     "Ctrl+G", "Show or hide the images (or drag their edge)")
        for action in (self.show_list, self.show_images):
            action.setCheckable(True)
            action.setChecked(True)
        first_edit = len(self.all)
        self._add(m, "&Fill in the Blank from Selected Reply…", self._fill, "F")
        images = m.addMenu("&Images")
        for role, key in (("input", "I"), ("output", "O"), ("unused", "U")):
            self._add(images, f"Mark as {role.title()}",
                      partial(self._mark_current, role), key)
        self._add(images, "Move Earlier",
                  lambda: ws.image_edits.move_current_image(ws.view.images.current_item(), -1), "Ctrl+Left")
        self._add(images, "Move Later",
                  lambda: ws.image_edits.move_current_image(ws.view.images.current_item(), 1), "Ctrl+Right")
        self.edits += self.all[first_edit:]
        self._add(images, "Draw Boxes On/Off",
                  lambda: ws.view.images.draw_toggle.toggle(), "D")
        pick = images.addMenu("Pick Image")
        for k in range(1, 10):
            self._add(pick, f"Image {k}", partial(ws.view.images.select_index, k - 1), str(k))
        from ui.curate.team import TeamWork

        self.team = TeamWork(ws)  # Share Work…, Merge Returned Work…, Resolve Conflicts…
        self.team.install(self, m)

    def _mark_current(self, role: str) -> None:
        ws = self.ws
        ws.image_edits.set_role(ws.view.images.current_item(), role)

    def _add_proposals(self, m: QMenu) -> None:
        """Posts, proposals and their report (issue 19)."""
        p = self.ws.proposals
        m.addSeparator()
        self.posts = self._add(m, "P&osts…", p.open_posts, "Ctrl+Shift+P",
                               "Every post: make a sample from one by hand, or propose")
        first = len(self.all)
        self.propose = self._add(m, "&Propose…", p.ask_propose, None,
                                 "Let a vision-language model propose samples from raw posts")
        self.accept = self._add(m, "Accept Pro&posals", p.accept, "Y",
                                "Accept the machine-proposed values of the selected samples")
        self.edits += self.all[first:]
        self._add(m, "Proposal &Templates…", p.open_templates, None,
                  "The instructions sent to the model, versioned in the project")
        self._add(m, "How Good Are the Proposals?…", p.open_report, None,
                  "Accepted vs corrected per field and template, confusion matrices, box IoU")

    def _add(self, menu: QMenu, text: str, slot: Callable[[], Any], shortcut: Any = None,
             tip: str = "") -> QAction:
        action = QAction(text, self.ws)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.setToolTip(tip or text.replace("&", "").rstrip("…"))
        action.setStatusTip(action.toolTip())
        action.triggered.connect(lambda _=False: slot())
        menu.addAction(action)
        self.ws.addAction(action)
        self.all.append(action)
        return action

    def set_enabled(self, on: bool) -> None:
        """Enable the actions only while a project is open."""
        for action in self.all:
            action.setEnabled(on and not (self.read_only and action in self.edits))
        self.update_undo()

    def set_read_only(self, read_only: bool) -> None:
        """Keep the editing actions off for a project open read-only (before set_enabled)."""
        self.read_only = read_only

    def update_undo(self) -> None:
        """Undo/Redo texts name the edit they would revert/apply."""
        stack = self.ws.undo_stack
        idle = not self.ws.editor.busy  # a bulk edit being saved: undo/redo wait for it
        can_undo = bool(stack and stack.can_undo()) and idle
        can_redo = bool(stack and stack.can_redo()) and idle
        self.undo.setEnabled(can_undo)
        self.redo.setEnabled(can_redo)
        self.undo.setText("&Undo " + stack.undo_label() if can_undo else "&Undo")
        self.redo.setText("&Redo " + stack.redo_label() if can_redo else "&Redo")

    def update_panes(self) -> None:
        """Tick Show Sample List / Show Images as the panes are."""
        for action, pane in ((self.show_list, "list"), (self.show_images, "images")):
            action.setChecked(self.ws.panes.shown(pane))

    # -- small helpers ---------------------------------------------------------------------------
    def _focus_prompt(self) -> None:
        """E: into the prompt box with the caret at the end (typing adds to the prompt)."""
        edit = self.ws.view.prompt.edit
        edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        edit.moveCursor(QTextCursor.MoveOperation.End)

    def _focus_search(self) -> None:
        self.ws.filters.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.ws.filters.search.selectAll()

    def _show_history(self) -> None:
        self.ws.view.tabs.setCurrentWidget(self.ws.view.history)

    def _fill(self) -> None:
        reply = self.ws.view.post.selected_reply()
        if reply is None:
            self.ws.context.status("Select the reply that completes the template in the "
                                   "Thread tab first.")
            return
        self.ws.review.ask_fill(reply)

    def _ask_tag(self) -> None:
        dialog = QInputDialog(self.ws)
        dialog.setWindowTitle("Tag selected samples")
        dialog.setLabelText(f"Tag for {len(self.ws.selected_ids())} sample(s):")
        dialog.textValueSelected.connect(self.ws.review.tag_selection)
        self.ws.keep_dialog(dialog)
        dialog.open()
