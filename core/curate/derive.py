"""Fill-in-the-blank: a template prompt plus the reply that completes it becomes a
derived, fully specified sample linked to both posts (ECHO §3.3)."""

from __future__ import annotations

import re
import sqlite3

from core.curate.commands import Command, EditConflict
from core.store.project import Project, now_iso

BLANK = re.compile(r"_{3,}|\[\s*(?:blank|\.\.\.|…)?\s*\]|\{\s*\w*\s*\}|<\s*\w*\s*>")
SHORT_COMPLETION_WORDS = 6


def has_blank(template: str) -> bool:
    """Whether ``template`` contains a blank (``___``, ``[…]``, ``{x}`` or ``<x>``)."""
    return BLANK.search(template) is not None


def fill_template(template: str, completion: str) -> str:
    """The fully specified prompt: a short completion is put into the blank; a reply that
    already restates the whole prompt is taken as it is."""
    completion = completion.strip()
    words = completion.split()
    if has_blank(template) and len(words) <= SHORT_COMPLETION_WORDS:
        return BLANK.sub(lambda _m: completion.strip("\"'“”"), template, count=1)
    return completion


def derived_id(template_id: str, completion_post_id: str) -> str:
    """Deterministic id of the sample derived from a template and a reply."""
    return f"{template_id}~fill~{completion_post_id}"


class DeriveFromTemplate(Command):
    """Create the derived sample (undo deletes it again; redo recreates it, same id).

    The new sample gets the template's split, the reply's images as outputs (or a copy
    of the template's image roles when the reply has none), the template's other
    feedback, and the template's tags minus ``template`` plus ``derived``.
    """

    def __init__(self, template_id: str, completion_post_id: str, prompt: str | None = None,
                 quality: str | None = None) -> None:
        super().__init__()
        self.template_id = template_id
        self.completion_post_id = completion_post_id
        self.prompt = prompt
        self.quality = quality
        self.new_id = derived_id(template_id, completion_post_id)
        self.sample_ids = (self.new_id, template_id)
        self.label = "Create fill-in-the-blank sample"
        self.created = False

    @property
    def changed(self) -> bool:
        return self.created

    def _do(self, project: Project) -> None:
        conn = project.conn
        tpl = conn.execute("SELECT post_id, prompt, split, is_screenshot FROM samples "
                           "WHERE id = ?", (self.template_id,)).fetchone()
        if tpl is None:
            raise KeyError(f"no sample {self.template_id!r}")
        reply = conn.execute("SELECT text FROM posts WHERE id = ?",
                             (self.completion_post_id,)).fetchone()
        if reply is None:
            raise KeyError(f"no post {self.completion_post_id!r}")
        if conn.execute("SELECT 1 FROM samples WHERE id = ?", (self.new_id,)).fetchone():
            if self.created:
                raise EditConflict(f"sample {self.new_id!r} exists again; redo refused")
            raise ValueError(f"this reply was already used: sample {self.new_id!r} exists")
        original = fill_template(tpl[1], reply[0])
        prompt = original if self.prompt is None else self.prompt
        stamp = now_iso()
        conn.execute(
            "INSERT INTO samples(id, post_id, prompt, original_prompt, quality, split, "
            "is_screenshot, notes, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (self.new_id, tpl[0], prompt, original, self.quality, tpl[2], tpl[3],
             f"filled in from template {self.template_id} with reply {self.completion_post_id}",
             stamp, stamp))
        conn.execute(
            "INSERT INTO sample_links(sample_id, kind, source_sample_id, template_post_id, "
            "completion_post_id, created_at) VALUES (?, 'fill-in-the-blank', ?, ?, ?, ?)",
            (self.new_id, self.template_id, tpl[0], self.completion_post_id, stamp))
        self._copy_images(conn)
        conn.execute(
            "INSERT INTO feedback(sample_id, position, post_id, text) SELECT ?, position, "
            "post_id, text FROM feedback WHERE sample_id = ? AND coalesce(post_id, '') != ?",
            (self.new_id, self.template_id, self.completion_post_id))
        conn.execute(
            "INSERT INTO sample_tags(sample_id, tag) SELECT ?, tag FROM sample_tags "
            "WHERE sample_id = ? AND tag NOT IN ('template', 'fill-in-the-blank')",
            (self.new_id, self.template_id))
        conn.execute("INSERT OR IGNORE INTO sample_tags(sample_id, tag) VALUES (?, 'derived')",
                     (self.new_id,))
        project.audit("edit", "sample", self.new_id, "created",
                      None, {"from_template": self.template_id,
                             "completion_post_id": self.completion_post_id, "prompt": prompt})
        project.audit("edit", "sample", self.template_id, "derived", None,
                      {"sample": self.new_id, "completion_post_id": self.completion_post_id})
        self.created = True

    def _copy_images(self, conn: sqlite3.Connection) -> None:
        rows = conn.execute(
            "SELECT position, url, sha256, error FROM post_images WHERE post_id = ? "
            "ORDER BY position", (self.completion_post_id,)).fetchall()
        if rows:
            conn.executemany(
                "INSERT INTO sample_images(sample_id, role, position, ref, sha256, error) "
                "VALUES (?, 'output', ?, ?, ?, ?)",
                [(self.new_id, k, url, sha, err) for k, (_p, url, sha, err) in enumerate(rows)])
            return
        conn.execute(
            "INSERT INTO sample_images(sample_id, role, position, ref, sha256, bbox_x, bbox_y, "
            "bbox_w, bbox_h, error) SELECT ?, role, position, ref, sha256, bbox_x, bbox_y, "
            "bbox_w, bbox_h, error FROM sample_images WHERE sample_id = ? ORDER BY id",
            (self.new_id, self.template_id))

    def _undo(self, project: Project) -> None:
        conn = project.conn
        link = conn.execute("SELECT 1 FROM sample_links WHERE sample_id = ?",
                            (self.new_id,)).fetchone()
        if link is None:
            raise EditConflict(f"sample {self.new_id!r} is gone already; undo refused")
        outputs = conn.execute("SELECT count(*) FROM model_outputs WHERE sample_id = ?",
                               (self.new_id,)).fetchone()[0]
        if outputs:
            raise EditConflict(f"sample {self.new_id!r} has model outputs now; undo refused "
                               "so they are not deleted")
        conn.execute("DELETE FROM samples WHERE id = ?", (self.new_id,))
        project.audit("edit", "sample", self.new_id, "deleted",
                      {"from_template": self.template_id}, None)
        project.audit("edit", "sample", self.template_id, "derived",
                      {"sample": self.new_id}, None)
