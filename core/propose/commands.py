"""Curator commands of the proposal workflow, undoable like every Curate edit (ADR 031).

- :class:`NewSampleFromPost`: a sample made by hand from a post (its text as the prompt,
  its images to assign roles to, its replies as community feedback);
- :class:`AcceptProposals`: the curator takes the machine-made values as they are
  (every still-proposed field of the selected samples, or the ones named);
- :class:`SetFeedbackLabel`: the curator's success / failure / neutral and keyword for
  one piece of feedback (a correction when the model labelled it).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from core.curate.commands import Command, EditConflict
from core.propose.apply import create_from_post
from core.propose.kinds import FEEDBACK_LABELS, MAX_KEYWORD_CHARS, clean_keyword
from core.store.project import Project, now_iso


class NewSampleFromPost(Command):
    """Make a sample from ``post_id`` (undo deletes it again; redo makes it, same id)."""

    def __init__(self, post_id: str) -> None:
        super().__init__()
        self.post_id = post_id
        self.new_id: str | None = None
        self.label = f"New sample from post {post_id}"
        self.created = False

    @property
    def changed(self) -> bool:
        return self.created

    def _do(self, project: Project) -> None:
        if self.new_id is not None and project.conn.execute(
                "SELECT 1 FROM samples WHERE id = ?", (self.new_id,)).fetchone():
            raise EditConflict(f"sample {self.new_id!r} exists again; redo refused")
        self.new_id, _ = create_from_post(project, self.post_id, "hand", self.new_id)
        self.sample_ids = (self.new_id,)
        self.made = _content(project, self.new_id)
        self.created = True

    def _undo(self, project: Project) -> None:
        conn = project.conn
        sid = self.new_id
        if sid is None or conn.execute("SELECT 1 FROM samples WHERE id = ?",
                                       (sid,)).fetchone() is None:
            raise EditConflict(f"sample {sid!r} is gone already; undo refused")
        if _content(project, sid) != self.made:
            raise EditConflict(f"sample {sid!r} was edited since it was made; undo refused so "
                               "those edits are not deleted")
        for table, what in (("model_outputs", "model outputs"),
                            ("proposal_fields", "proposals written into it"),
                            ("sample_links", "derived samples")):
            column = "source_sample_id" if table == "sample_links" else "sample_id"
            if conn.execute(f"SELECT 1 FROM {table} WHERE {column} = ? LIMIT 1",
                            (sid,)).fetchone():
                raise EditConflict(f"sample {sid!r} has {what} now; undo refused so they are "
                                   "not deleted")
        conn.execute("DELETE FROM samples WHERE id = ?", (sid,))
        project.audit("edit", "sample", sid, "deleted", {"from_post": self.post_id}, None)


def _content(project: Project, sid: str | None) -> tuple[object, ...]:
    """What a curator can change on a sample (to tell a sample untouched since made)."""
    conn = project.conn
    return (conn.execute("SELECT prompt, original_prompt, quality, split, is_screenshot, "
                         "review_status, notes FROM samples WHERE id = ?", (sid,)).fetchone(),
            conn.execute("SELECT tag FROM sample_tags WHERE sample_id = ? ORDER BY tag",
                         (sid,)).fetchall(),
            conn.execute("SELECT role, position, sha256, ref, bbox_x, bbox_y, bbox_w, bbox_h "
                         "FROM sample_images WHERE sample_id = ? ORDER BY id", (sid,)).fetchall(),
            conn.execute("SELECT post_id, text FROM feedback WHERE sample_id = ? ORDER BY "
                         "position", (sid,)).fetchall())


class AcceptProposals(Command):
    """Accept the machine-made values of samples: every field still ``proposed`` (or only
    ``fields``).  Accepted values are the curator's: no later run rewrites them."""

    def __init__(self, sample_ids: Iterable[str], fields: Iterable[str] | None = None) -> None:
        super().__init__()
        self.sample_ids = tuple(dict.fromkeys(sample_ids))
        self.fields = None if fields is None else tuple(fields)
        self.done: list[tuple[str, str]] = []
        n = len(self.sample_ids)
        self.label = "Accept proposals" + (f" on {n} samples" if n > 1 else "")

    @property
    def changed(self) -> bool:
        return bool(self.done)

    def _pending(self, project: Project) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for start in range(0, len(self.sample_ids), 500):
            chunk = self.sample_ids[start:start + 500]
            out += [(r[0], r[1]) for r in project.conn.execute(
                "SELECT sample_id, field FROM proposal_field_status WHERE status = 'proposed' "
                f"AND sample_id IN ({','.join('?' * len(chunk))}) ORDER BY sample_id, field",
                chunk)]
        if self.fields is not None:
            out = [(s, f) for s, f in out if f in self.fields]
        return out

    def _set(self, project: Project, pairs: list[tuple[str, str]], accepted: bool) -> None:
        stamp = now_iso()
        by_sample: dict[str, list[str]] = {}
        for sid, field in pairs:
            project.conn.execute(
                "UPDATE proposal_fields SET decision = ?, decided_at = ?, decided_by = ? "
                "WHERE sample_id = ? AND field = ?",
                ("accepted" if accepted else None, stamp if accepted else None,
                 project.actor if accepted else None, sid, field))
            by_sample.setdefault(sid, []).append(field)
        for sid, names in by_sample.items():
            project.audit("edit", "sample", sid, "proposals",
                          None if accepted else {"accepted": names},
                          {"accepted": names} if accepted else None)

    def _do(self, project: Project) -> None:
        if not self.done:
            self.done = self._pending(project)
        else:
            pending = set(self._pending(project))
            if not set(self.done) <= pending:
                raise EditConflict(f"{self.label}: the proposals changed since; redo refused")
        self._set(project, self.done, True)

    def _undo(self, project: Project) -> None:
        for sid, field in self.done:
            row = project.conn.execute(
                "SELECT status FROM proposal_field_status WHERE sample_id = ? AND field = ?",
                (sid, field)).fetchone()
            if row is None or row[0] != "accepted":
                raise EditConflict(f"sample {sid!r}: {field} changed since it was accepted; "
                                   "undo refused to keep that change")
        self._set(project, self.done, False)


class SetFeedbackLabel(Command):
    """Label one piece of a sample's feedback (``label`` None removes the label)."""

    def __init__(self, sample_id: str, post_id: str, label: str | None,
                 keyword: str = "") -> None:
        super().__init__()
        if label is not None and label not in FEEDBACK_LABELS:
            raise ValueError(f"a feedback label is one of {', '.join(FEEDBACK_LABELS)}, "
                             f"not {label!r}")
        keyword = clean_keyword(keyword) if label == "failure" else ""
        if label == "failure" and not keyword:
            raise ValueError("a failure needs a short keyword naming the issue")
        if len(keyword) > MAX_KEYWORD_CHARS:
            raise ValueError(f"the keyword is at most {MAX_KEYWORD_CHARS} characters")
        self.sample_ids = (sample_id,)
        self.sid, self.post_id, self.value = sample_id, post_id, (
            None if label is None else (label, keyword))
        self.old: tuple[str, str] | None = None
        self.first = True
        self.label = f"Label feedback {label or 'none'}"

    @property
    def changed(self) -> bool:
        return self.old != self.value

    def _read(self, project: Project) -> tuple[str, str] | None:
        row = project.conn.execute("SELECT label, keyword FROM feedback_labels WHERE "
                                   "sample_id = ? AND post_id = ?",
                                   (self.sid, self.post_id)).fetchone()
        return None if row is None else (row[0], row[1])

    def _write(self, project: Project, old: tuple[str, str] | None,
               new: tuple[str, str] | None) -> None:
        conn = project.conn
        if conn.execute("SELECT 1 FROM feedback WHERE sample_id = ? AND post_id = ?",
                        (self.sid, self.post_id)).fetchone() is None:
            raise KeyError(f"sample {self.sid!r} has no feedback from post {self.post_id!r}")
        if new is None:
            conn.execute("DELETE FROM feedback_labels WHERE sample_id = ? AND post_id = ?",
                         (self.sid, self.post_id))
        else:
            conn.execute("INSERT INTO feedback_labels(sample_id, post_id, label, keyword) "
                         "VALUES (?, ?, ?, ?) ON CONFLICT(sample_id, post_id) DO UPDATE SET "
                         "label = excluded.label, keyword = excluded.keyword",
                         (self.sid, self.post_id, *new))
        project.audit("edit", "sample", self.sid, f"feedback/{self.post_id}",
                      None if old is None else {"label": old[0], "keyword": old[1]},
                      None if new is None else {"label": new[0], "keyword": new[1]})

    def _do(self, project: Project) -> None:
        current = self._read(project)
        if self.first:
            self.old, self.first = current, False
            if current == self.value:
                return
        elif current != self.old:
            raise EditConflict(f"{self.label}: the label changed since; redo refused")
        self._write(project, current, self.value)

    def _undo(self, project: Project) -> None:
        current = self._read(project)
        if current != self.value:
            raise EditConflict(f"sample {self.sid!r}: that feedback label changed since; undo "
                               "refused to keep that change")
        self._write(project, current, self.old)


def feedback_labels(project: Project, sample_id: str) -> dict[str, tuple[str, str]]:
    """{reply post id: (label, keyword)} of a sample's feedback."""
    try:
        return {r[0]: (r[1], r[2]) for r in project.conn.execute(
            "SELECT post_id, label, keyword FROM feedback_labels WHERE sample_id = ?",
            (sample_id,))}
    except sqlite3.OperationalError:  # a read-only project from before proposals existed
        return {}
