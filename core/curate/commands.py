"""Qt-free edit commands with do/undo, and an undo stack (after glue's ``core/command.py``).

Every ``do`` and every ``undo`` is ONE ``project.transaction()`` that also appends
audit rows (action ``"edit"``, entity ``"sample"``), so each step is saved at once
and can be traced.  ``undo`` refuses (:class:`EditConflict`) when the sample was
changed by something else since, instead of silently overwriting that change.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from typing import Any

from core.curate import bulk
from core.store.errors import ProjectError
from core.store.project import Project, now_iso

QUALITIES = ("Benchmark", "Analysis", "Trash")
REVIEW_STATUSES = ("unreviewed", "reviewed")
SPLITS = ("text-to-image", "image-to-image")


class EditConflict(Exception):
    """The data changed since the command ran, so it cannot be undone/redone safely."""


class EditFailed(ProjectError):
    """The project could not be written (disk full, locked by another program…); the
    transaction was rolled back, so nothing of the edit was saved."""


class Command:
    """One user edit.  Subclasses implement :meth:`_do` / :meth:`_undo` (inside a transaction)."""

    label = "Edit"
    #: commands with equal non-None keys may be merged into one undo step (box nudges)
    merge_key: Any = None

    def __init__(self) -> None:
        self.sample_ids: tuple[str, ...] = ()

    def do(self, project: Project) -> None:
        """Apply the edit (one transaction with its audit rows)."""
        self._transaction(project, self._do, self.label)

    def undo(self, project: Project) -> None:
        """Revert the edit (one transaction with its audit rows)."""
        self._transaction(project, self._undo, f"undo {self.label}")

    @staticmethod
    def _transaction(project: Project, step: Callable[[Project], None], what: str) -> None:
        try:
            with project.transaction():
                step(project)
        except sqlite3.Error as exc:
            raise EditFailed(f"{what}: the project could not be saved ({exc}); nothing of "
                             "it was written") from exc

    @property
    def changed(self) -> bool:
        """False when ``do`` found nothing to change (the stack then drops it)."""
        return True

    def merge(self, other: Command) -> bool:
        """Absorb ``other`` (already done) into this command; True if merged."""
        return False

    def _do(self, project: Project) -> None:
        raise NotImplementedError

    def _undo(self, project: Project) -> None:
        raise NotImplementedError


def touch(project: Project, sample_id: str) -> None:
    """Stamp a sample as modified now."""
    project.conn.execute("UPDATE samples SET modified_at = ? WHERE id = ?", (now_iso(), sample_id))


def _validate(field: str, value: Any) -> Any:
    if field in ("prompt", "notes"):
        if not isinstance(value, str):
            raise ValueError(f"{field} must be text, not {type(value).__name__}")
        return value
    if field == "quality":
        if value not in (*QUALITIES, None):
            raise ValueError(f"quality must be one of {', '.join(QUALITIES)} or empty, "
                             f"not {value!r}")
        return value
    if field == "review_status":
        if value not in REVIEW_STATUSES:
            raise ValueError(f"review status must be one of {', '.join(REVIEW_STATUSES)}, "
                             f"not {value!r}")
        return value
    if field == "split":
        if value not in (*SPLITS, None):
            raise ValueError(f"split must be one of {', '.join(SPLITS)} or empty, not {value!r}")
        return value
    if field == "is_screenshot":
        return int(bool(value))
    raise ValueError(f"{field!r} is not an editable sample field")


class SetField(Command):
    """Set one field (prompt, notes, quality, review_status, split, is_screenshot) on samples."""

    def __init__(self, sample_ids: Iterable[str], field: str, value: Any,
                 label: str | None = None) -> None:
        super().__init__()
        self.field = field
        self.value = _validate(field, value)
        self.sample_ids = tuple(dict.fromkeys(sample_ids))
        self.old: dict[str, Any] = {}
        n = len(self.sample_ids)
        shown = value if field not in ("prompt", "notes") else "edited"
        self.label = label or (f"Set {field.replace('_', ' ')} to {shown}"
                               + (f" on {n} samples" if n > 1 else ""))

    @property
    def changed(self) -> bool:
        return bool(self.old)

    def _do(self, project: Project) -> None:
        if not self.old:  # first run: remember what each sample had
            current = bulk.current_values(project, self.field, self.sample_ids)
            self.old = {sid: v for sid, v in current.items() if v != self.value}
        else:
            if bulk.first_not_matching(project, self.field, self.old) is not None:
                raise EditConflict(f"{self.label}: a sample changed since; redo refused")
        bulk.write_field(project, self.field, list(self.old), self.value)

    def _undo(self, project: Project) -> None:
        sid = bulk.first_differing(project, self.field, list(self.old), self.value)
        if sid is not None:
            raise EditConflict(f"sample {sid!r}: {self.field} was changed elsewhere since "
                               f"'{self.label}'; undo refused to keep that change")
        bulk.write_values(project, self.field, self.old)


def set_prompt(sample_id: str, prompt: str) -> SetField:
    """Edit the prompt (the original extracted prompt is never touched)."""
    return SetField([sample_id], "prompt", prompt, "Edit prompt")


def reset_prompt(project: Project, sample_id: str) -> SetField:
    """Put the original extracted prompt back."""
    row = project.conn.execute("SELECT original_prompt FROM samples WHERE id = ?",
                               (sample_id,)).fetchone()
    if row is None:
        raise KeyError(f"no sample {sample_id!r}")
    return SetField([sample_id], "prompt", row[0], "Reset prompt to original")


class SetTag(Command):
    """Add (``present=True``) or remove a tag on samples."""

    def __init__(self, sample_ids: Iterable[str], tag: str, present: bool = True) -> None:
        super().__init__()
        tag = tag.strip()
        if not tag:
            raise ValueError("a tag cannot be empty")
        if len(tag) > 100:
            raise ValueError("a tag is at most 100 characters")
        self.tag, self.present = tag, present
        self.sample_ids = tuple(dict.fromkeys(sample_ids))
        self.touched: list[str] = []
        verb = "Add" if present else "Remove"
        n = len(self.sample_ids)
        self.label = f"{verb} tag '{tag}'" + (f" on {n} samples" if n > 1 else "")

    @property
    def changed(self) -> bool:
        return bool(self.touched)

    def _apply(self, project: Project, present: bool, ids: Iterable[str]) -> list[str]:
        return bulk.write_tag(project, list(ids), self.tag, present)

    def _do(self, project: Project) -> None:
        ids = self.touched or self.sample_ids
        done = self._apply(project, self.present, ids)
        if not self.touched:
            self.touched = done
        elif len(done) != len(self.touched):
            raise EditConflict(f"{self.label}: tags changed since; redo refused")

    def _undo(self, project: Project) -> None:
        done = self._apply(project, not self.present, self.touched)
        if len(done) != len(self.touched):
            raise EditConflict(f"{self.label}: tags changed elsewhere since; undo refused")


class Macro(Command):
    """Several commands as one undo step, all in one transaction."""

    def __init__(self, label: str, commands: list[Command]) -> None:
        super().__init__()
        self.label = label
        self.commands = commands
        self.sample_ids = tuple(dict.fromkeys(s for c in commands for s in c.sample_ids))

    @property
    def changed(self) -> bool:
        return any(c.changed for c in self.commands)

    def _do(self, project: Project) -> None:
        for command in self.commands:
            command._do(project)

    def _undo(self, project: Project) -> None:
        for command in reversed(self.commands):
            if command.changed:
                command._undo(project)


class UndoStack:
    """A linear undo/redo history of commands bound to one project."""

    def __init__(self, project: Project, limit: int = 2000) -> None:
        self.project = project
        self.limit = limit
        self._done: list[Command] = []
        self._undone: list[Command] = []
        #: called with (command, "do" | "undo" | "redo") after every change
        self.listeners: list[Callable[[Command, str], None]] = []

    def push(self, command: Command) -> bool:
        """Do ``command`` and record it; False (and nothing recorded) when it changed nothing."""
        command.do(self.project)
        return self.record(command, "do")

    def undo(self) -> Command | None:
        """Undo the last command (None when there is nothing to undo)."""
        command = self.next_undo()
        if command is not None:
            command.undo(self.project)
            self.record(command, "undo")
        return command

    def redo(self) -> Command | None:
        """Redo the last undone command (None when there is nothing to redo)."""
        command = self.next_redo()
        if command is not None:
            command.do(self.project)
            self.record(command, "redo")
        return command

    def next_undo(self) -> Command | None:
        """The command :meth:`undo` would revert (None if none)."""
        return self._done[-1] if self._done else None

    def next_redo(self) -> Command | None:
        """The command :meth:`redo` would apply (None if none)."""
        return self._undone[-1] if self._undone else None

    def record(self, command: Command, what: str) -> bool:
        """Book ``command`` after its ``do`` ("do", "redo") or ``undo`` ran, here or on
        another connection to the same project (a big edit runs off the GUI thread; see
        ADR 036).  For "undo"/"redo" it must be :meth:`next_undo`/:meth:`next_redo`.
        Returns False (nothing booked) for a "do" that changed nothing."""
        if what == "do":
            if not command.changed:
                return False
            top = self._done[-1] if self._done else None
            merged = (top is not None and not self._undone and command.merge_key is not None
                      and top.merge_key == command.merge_key and top.merge(command))
            if not merged:
                self._done.append(command)
                del self._done[:-self.limit]
            self._undone.clear()
        else:
            source, target = ((self._done, self._undone) if what == "undo"
                              else (self._undone, self._done))
            if not source or source[-1] is not command:
                raise ValueError(f"{command.label!r} is not the next command to {what}")
            target.append(source.pop())
        self._notify(command, what)
        return True

    def can_undo(self) -> bool:
        """Whether there is something to undo."""
        return bool(self._done)

    def can_redo(self) -> bool:
        """Whether there is something to redo."""
        return bool(self._undone)

    def undo_label(self) -> str:
        """Label of the command :meth:`undo` would revert ('' if none)."""
        return self._done[-1].label if self._done else ""

    def redo_label(self) -> str:
        """Label of the command :meth:`redo` would apply ('' if none)."""
        return self._undone[-1].label if self._undone else ""

    def clear(self) -> None:
        """Forget the history (the data stays as it is)."""
        self._done.clear()
        self._undone.clear()

    def _notify(self, command: Command, what: str) -> None:
        for listener in list(self.listeners):
            listener(command, what)
