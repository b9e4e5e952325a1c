"""Curate's review work on the selection: labels (B/A/T), review status, tags, and the
fill-in-the-blank dialog; each edit is a core command on the workspace's undo stack."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.curate.commands import Command, Macro, SetField, SetTag
from core.curate.derive import DeriveFromTemplate, fill_template
from core.curate.queries import distinct_tags
from ui.curate.dialogs import FillDialog

if TYPE_CHECKING:
    from ui.curate.workspace import CurateWorkspace


class ReviewController:
    """Labels, review status, tags and fill-in for the workspace's selection."""

    def __init__(self, ws: CurateWorkspace) -> None:
        self.ws = ws

    # -- labels ------------------------------------------------------------------------------------
    def label(self, quality: str | None, advance: bool = False) -> None:
        """Label the selection (B/A/T); with ``advance`` also mark reviewed and move on."""
        ids = self.ws.selected_ids()
        if not ids:
            return
        commands: list[Command] = [SetField(ids, "quality", quality)]
        if advance:
            commands.append(SetField(ids, "review_status", "reviewed"))
        self.ws.run(commands[0] if len(commands) == 1 else
                    Macro(f"Label {quality} and mark reviewed", commands))
        if advance:
            self.advance_after_review()

    def toggle_reviewed(self) -> None:
        """Flip the review status of the selection (R)."""
        d = self.ws.view.detail
        if d is None:
            return
        value = "unreviewed" if d.review_status == "reviewed" else "reviewed"
        self.ws.run(SetField(self.ws.selected_ids(), "review_status", value))

    def mark_and_advance(self) -> None:
        """Mark the selection reviewed and go to the next sample (Ctrl+Return)."""
        self.ws.view.commit_pending()
        ids = self.ws.selected_ids()
        if ids:
            self.ws.run(SetField(ids, "review_status", "reviewed"))
            self.advance_after_review()

    def advance_after_review(self) -> None:
        """Move to the next unreviewed sample, or the next row when all are reviewed."""
        if not self.ws.next_unreviewed():
            self.ws.step(1)

    def tag_selection(self, tag: str, present: bool = True) -> None:
        """Add (or remove) ``tag`` on the selection."""
        ids = self.ws.selected_ids()
        if ids and tag.strip():
            self.ws.run(SetTag(ids, tag, present))
            self.ws.filters.set_tags(distinct_tags(self.ws.project))

    def ask_fill(self, reply_id: str) -> FillDialog | None:
        """Open the fill-in-the-blank dialog for the reply ``reply_id`` (non-blocking)."""
        d = self.ws.view.detail
        if d is None:
            return None
        reply = next((p for _depth, p in d.replies if p.id == reply_id), None)
        if reply is None:
            return None
        dialog = FillDialog(d.prompt, reply.text, fill_template(d.prompt, reply.text), self.ws)
        dialog.accepted.connect(
            lambda: self.ws.run(DeriveFromTemplate(d.id, reply_id, dialog.prompt.toPlainText())))
        self.ws.keep_dialog(dialog)
        dialog.open()
        return dialog
