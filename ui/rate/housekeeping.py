"""Deleting, archiving and restoring rating sessions and opening their folder, for the
Rate workspace (ADR 037); the decisions and the deleting are ``core``'s
(:mod:`core.rating.session_admin`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMessageBox, QWidget

from core.rating.session_admin import (
    plan_removal,
    remove_session,
    restore_session,
    session_folder,
)
from core.store.errors import ProjectError


class SessionHousekeeping(QWidget):
    """Mixed into :class:`ui.rate.workspace.RateWorkspace`: needs ``context``,
    ``selected_session()``, ``refresh()``, ``_inform()``, the ``act_folder``,
    ``act_delete`` and ``act_restore`` actions, ``archived_names`` and ``open_url``."""

    context: Any
    archived_names: set[str]
    act_folder: QAction
    act_delete: QAction
    act_restore: QAction
    last_box: QMessageBox
    open_url: Callable[[QUrl], Any]
    selected_session: Callable[[], str | None]
    refresh: Callable[[], None]
    _inform: Callable[..., QMessageBox]

    def _update_session_actions(self) -> None:
        project = self.context.project
        name = self.selected_session()
        writable = project is not None and not project.readonly
        is_archived = name in getattr(self, "archived_names", set())
        self.act_folder.setEnabled(name is not None)
        self.act_delete.setEnabled(writable and name is not None and not is_archived)
        self.act_restore.setEnabled(writable and is_archived)

    def open_folder(self, name: str | None = None) -> Path | None:
        """Show the folder the session's rater files were written to."""
        name = name or self.selected_session()
        project = self.context.project
        if name is None or project is None:
            return None
        folder = session_folder(project, name)
        if folder is None:
            self.context.refuse("No folder to open", f"{name}: its rater files were not "
                                "written, or their folder has been moved or deleted.")
            return None
        self.open_url(QUrl.fromLocalFile(str(folder)))
        return folder

    def ask_delete(self, name: str | None = None) -> QMessageBox | None:
        """Ask, then delete the session (or archive it when judgments were merged)."""
        name = name or self.selected_session()
        project = self.context.project
        if name is None or project is None or project.readonly:
            return None
        try:
            plan = plan_removal(project, name)
        except ValueError as exc:
            self.context.message("Delete session", str(exc))
            return None
        verb = "Archive" if plan.action == "archive" else "Delete"
        box = QMessageBox(QMessageBox.Icon.Question, f"{verb} session {name}?", plan.summary(),
                          QMessageBox.StandardButton.Cancel, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        go = box.addButton(verb, QMessageBox.ButtonRole.DestructiveRole
                           if plan.action == "delete" else QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        go.clicked.connect(lambda: self.remove(name))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.last_box = box
        box.open()
        return box

    def remove(self, name: str) -> Any:
        """Delete or archive ``name`` now (what :meth:`ask_delete` does once confirmed)."""
        try:
            done = remove_session(self.context.project, name)
        except (ValueError, ProjectError) as exc:
            self.context.message("Session not removed", f"{name}: {exc}")
            return None
        self.refresh()
        if done.action == "archive":
            self.context.status(f"{name} archived: tick 'Show archived sessions' to see or "
                                "restore it.", 8000)
        else:
            text = f"{name} deleted; {len(done.deleted_files)} rater file(s) deleted."
            if done.keep_files:
                self._inform("Session deleted", text + f" {len(done.keep_files)} file(s) kept.",
                             "\n".join(f"{p}: {why}" for p, why in done.keep_files))
            else:
                self.context.status(text, 8000)
        return done

    def restore(self, name: str | None = None) -> bool:
        """Show an archived session in the list again."""
        name = name or self.selected_session()
        if name is None or self.context.project is None:
            return False
        try:
            restored = restore_session(self.context.project, name)
        except (ValueError, ProjectError) as exc:
            self.context.message("Session not restored", f"{name}: {exc}")
            return False
        self.refresh()
        return restored
