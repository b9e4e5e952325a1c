"""Conflicts a merge did not write, and their adjudication (ADR 133).

A conflict keeps both values: the project's (``ours``, with who set it) and the
curator's (``theirs``).  :class:`ResolveConflict` is a Curate command (one transaction,
audited, undoable on Curate's stack): "ours" keeps the project's value, "theirs"
writes the curator's through Curate's own edits.  Undo puts the value back and reopens
the conflict, refusing (EditConflict) when the field was changed since.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.curate.commands import Command, EditConflict
from core.store.project import Project, now_iso
from core.teamwork.apply import apply_value
from core.teamwork.values import FIELD_TITLES, comparable, loads, read_values

CHOICES = ("ours", "theirs")


@dataclass(frozen=True)
class Conflict:
    """One conflict, with the project's value now (``current``)."""

    id: int
    split: str
    package_uid: str
    curator: str
    sample_id: str
    field: str
    base: Any
    ours: Any
    ours_by: str
    theirs: Any
    status: str
    choice: str | None
    current: Any

    @property
    def title(self) -> str:
        return f"{self.sample_id} · {FIELD_TITLES.get(self.field, self.field)}"


def list_conflicts(project: Project, status: str | None = "open",
                   split: str | None = None) -> list[Conflict]:
    """Conflicts (``status`` None = all), oldest first, each with the current value."""
    where, params = [], []
    if status is not None:
        where.append("c.status = ?")
        params.append(status)
    if split is not None:
        where.append("s.name = ?")
        params.append(split)
    rows = project.conn.execute(
        "SELECT c.id, s.name, c.package_uid, c.curator, c.sample_id, c.field, c.base, c.ours, "
        "c.ours_by, c.theirs, c.status, c.choice FROM team_conflicts c "
        "JOIN team_packages p ON p.package_uid = c.package_uid "
        "JOIN team_splits s ON s.id = p.split_id "
        + (f"WHERE {' AND '.join(where)} " if where else "") + "ORDER BY c.id",
        params).fetchall()
    current = read_values(project.conn, sorted({r[4] for r in rows}))
    return [Conflict(r[0], r[1], r[2], r[3], r[4], r[5], loads(r[6]), loads(r[7]), r[8],
                     loads(r[9]), r[10], r[11],
                     current[r[4]][r[5]] if r[4] in current else None) for r in rows]


def count_open(project: Project) -> int:
    """How many conflicts wait for adjudication."""
    return int(project.conn.execute(
        "SELECT count(*) FROM team_conflicts WHERE status = 'open'").fetchone()[0])


def get_conflict(project: Project, conflict_id: int) -> Conflict:
    """One conflict by id (KeyError when there is none)."""
    found = [c for c in list_conflicts(project, None) if c.id == conflict_id]
    if not found:
        raise KeyError(f"no conflict {conflict_id}")
    return found[0]


class ResolveConflict(Command):
    """Keep the project's value ("ours") or take the curator's ("theirs")."""

    def __init__(self, conflict: Conflict, choice: str) -> None:
        super().__init__()
        if choice not in CHOICES:
            raise ValueError(f"choose 'ours' or 'theirs', not {choice!r}")
        self.conflict_id = conflict.id
        self.choice = choice
        self.sample_ids = (conflict.sample_id,)
        self.field = conflict.field
        self.package_uid = conflict.package_uid
        self.theirs = conflict.theirs
        what = FIELD_TITLES.get(conflict.field, conflict.field).lower()
        self.label = f"Resolve {conflict.sample_id} {what}: " + (
            "keep the project's value" if choice == "ours"
            else f"take {conflict.curator}'s value")
        self.before: Any = None
        self.after: Any = None
        self.done = False

    @property
    def changed(self) -> bool:
        return self.done

    def _current(self, project: Project) -> Any:
        sid = self.sample_ids[0]
        values = read_values(project.conn, [sid])
        if sid not in values:
            raise KeyError(f"sample {sid} is no longer in the project")
        return values[sid][self.field]

    def _do(self, project: Project) -> None:
        status = project.conn.execute(
            "SELECT status, package_uid, sample_id, field FROM team_conflicts WHERE id = ?",
            (self.conflict_id,)).fetchone()
        if status is not None and tuple(status[1:]) != (self.package_uid, self.sample_ids[0],
                                                        self.field):
            raise EditConflict(f"{self.label}: that conflict was listed from another project, "
                               f"not {project.path.name}; nothing changed")
        if status is None or status[0] != "open":
            raise EditConflict(f"{self.label}: the conflict was resolved meanwhile")
        current = self._current(project)
        if self.done and comparable(self.field, current) != comparable(self.field,
                                                                       self.before):
            raise EditConflict(f"{self.label}: the sample changed since; redo refused")
        self.before = current
        if self.choice == "theirs":
            apply_value(project, self.sample_ids[0], self.field, self.theirs)
        self.after = self._current(project)
        project.conn.execute(
            "UPDATE team_conflicts SET status = 'resolved', choice = ?, resolved_at = ?, "
            "resolved_by = ? WHERE id = ?", (self.choice, now_iso(), project.actor,
                                             self.conflict_id))
        project.audit("resolve", "team_conflict", str(self.conflict_id), self.field, None,
                      {"sample": self.sample_ids[0], "choice": self.choice})
        self.done = True

    def _undo(self, project: Project) -> None:
        current = self._current(project)
        if comparable(self.field, current) != comparable(self.field, self.after):
            raise EditConflict(f"sample {self.sample_ids[0]}: its "
                               f"{FIELD_TITLES.get(self.field, self.field).lower()} was "
                               f"changed since '{self.label}'; undo refused to keep that "
                               "change")
        if self.choice == "theirs":
            apply_value(project, self.sample_ids[0], self.field, self.before)
        project.conn.execute("UPDATE team_conflicts SET status = 'open', choice = NULL, "
                             "resolved_at = NULL, resolved_by = NULL WHERE id = ?",
                             (self.conflict_id,))
        project.audit("reopen", "team_conflict", str(self.conflict_id), self.field,
                      {"choice": self.choice}, None)
