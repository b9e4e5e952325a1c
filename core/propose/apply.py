"""Making samples from posts, and writing validated proposals into them.

A post's proposals go to its *main sample*: the sample a curator made from it by hand
(``New sample from post``) or the one Winnow makes for the first proposal of a post
that has no sample.  A post that already has imported samples gets none written
(the proposals are kept and measured against nothing: imported samples are someone's
curated data).  Each field is written only while :func:`core.propose.fields.writable`
says so, so nothing a curator changed is ever overwritten; every machine write is an
audit row (action ``propose``) and a ``proposal_fields`` row.
"""

from __future__ import annotations

from typing import Any

from core.curate.derive import DeriveFromTemplate, derived_id
from core.propose import fields as F
from core.propose.kinds import Subject
from core.store.project import Project, now_iso

MAX_FEEDBACK = 50
SHOT_KIND = "screenshots"


def _sample_id_for(project: Project, post_id: str) -> str:
    """A free sample id for a sample made from ``post_id`` (the post id when free)."""
    conn = project.conn
    candidate, k = post_id, 1
    while conn.execute("SELECT 1 FROM samples WHERE id = ?", (candidate,)).fetchone():
        k += 1
        candidate = f"{post_id}~{k}"
    return candidate


#: what a curator package says to a sample made from a post (``package_refusal``'s
#: ``takes`` and ``instead``): the merge replays only fill-in samples (ADR 228)
FROM_POSTS_IN_PACKAGE = ("samples made from posts",
                         "Make them in {project} and share again")


def create_from_post(project: Project, post_id: str, origin: str,
                     sample_id: str | None = None) -> tuple[str, int]:
    """Make a sample from a post (inside a transaction): its text as the prompt (and the
    original prompt), no roles yet (the post's images show as unused, to assign), its
    direct replies as community feedback.  Returns (sample id, creation audit id).
    Refused in a curator package: its merge takes no such sample (ADR 228)."""
    from core.teamwork.package import refuse_package

    refuse_package(project, *FROM_POSTS_IN_PACKAGE)
    conn = project.conn
    post = conn.execute("SELECT text FROM posts WHERE id = ?", (post_id,)).fetchone()
    if post is None:
        raise KeyError(f"no post {post_id!r}")
    sid = sample_id or _sample_id_for(project, post_id)
    if conn.execute("SELECT 1 FROM samples WHERE id = ?", (sid,)).fetchone():
        raise ValueError(f"sample {sid!r} exists already")
    stamp = now_iso()
    conn.execute("INSERT INTO samples(id, post_id, prompt, original_prompt, created_at, "
                 "modified_at) VALUES (?, ?, ?, ?, ?, ?)",
                 (sid, post_id, post[0], post[0], stamp, stamp))
    conn.execute(
        "INSERT INTO feedback(sample_id, position, post_id, text) SELECT ?, "
        "row_number() OVER (ORDER BY timestamp, id) - 1, id, text FROM (SELECT id, "
        "timestamp, text FROM posts WHERE parent_id = ? AND id != ? ORDER BY timestamp, id "
        "LIMIT ?)", (sid, post_id, post_id, MAX_FEEDBACK))
    project.audit("edit" if origin == "hand" else "propose", "sample", sid, "created", None,
                  {"from_post": post_id, "origin": origin})
    audit_id = F.last_audit_id(project)
    conn.execute("INSERT INTO proposal_samples(sample_id, post_id, origin, role, "
                 "created_audit_id, created_at) VALUES (?, ?, ?, 'main', ?, ?)",
                 (sid, post_id, origin, audit_id, stamp))
    return sid, audit_id


def main_sample(project: Project, post_id: str, create: bool) -> tuple[str | None, int, str]:
    """(sample id, creation audit id, why none) of the sample proposals for ``post_id``
    go to; made (origin ``proposed``) when ``create`` and the post has no sample."""
    row = project.conn.execute(
        "SELECT sample_id, created_audit_id FROM proposal_samples WHERE post_id = ? AND "
        "role = 'main' ORDER BY created_at, sample_id LIMIT 1", (post_id,)).fetchone()
    if row is not None:
        return row[0], int(row[1]), ""
    if project.conn.execute("SELECT 1 FROM samples WHERE post_id = ? LIMIT 1",
                            (post_id,)).fetchone():
        return None, 0, "the post has imported samples: proposals are kept, not written"
    if not create:
        return None, 0, "the post has no sample"
    sid, audit_id = create_from_post(project, post_id, "proposed")
    return sid, audit_id, ""


class Writer:
    """Writes one proposal's value into a sample (inside the caller's transaction)."""

    def __init__(self, project: Project, proposal_id: int, sample_id: str,
                 created_audit_id: int) -> None:
        self.project = project
        self.conn = project.conn
        self.proposal_id = proposal_id
        self.sid = sample_id
        self.created = created_audit_id
        self.applied: list[str] = []
        self.kept: list[str] = []

    def field(self, field: str, proposed: Any, write: Any, old: Any, new: Any) -> bool:
        """Write ``field`` with ``write()`` if it is the machine's to write."""
        ok, why = F.writable(self.project, self.sid, field, self.created)
        if not ok:
            self.kept.append(why)
            return False
        write()
        self.conn.execute("UPDATE samples SET modified_at = ? WHERE id = ?",
                          (now_iso(), self.sid))
        self.project.audit("propose", "sample", self.sid, F.audit_field(field), old, new)
        F.record_field(self.project, self.sid, field, self.proposal_id, proposed,
                       F.last_audit_id(self.project))
        self.applied.append(field)
        return True

    # -- per kind ------------------------------------------------------------------
    def prompt(self, text: str, from_kind: str) -> None:
        current = self.conn.execute(
            "SELECT p.kind FROM proposal_fields f JOIN proposals p ON p.id = f.proposal_id "
            "WHERE f.sample_id = ? AND f.field = 'prompt'", (self.sid,)).fetchone()
        if from_kind == "prompt" and current is not None and current[0] == SHOT_KIND:
            self.kept.append("prompt: read from the screenshot, kept")
            return
        old = self.conn.execute("SELECT prompt FROM samples WHERE id = ?",
                                (self.sid,)).fetchone()[0]
        self.field("prompt", text, lambda: self.conn.execute(
            "UPDATE samples SET prompt = ?, original_prompt = ? WHERE id = ?",
            (text, text, self.sid)), old, text)

    def quality(self, quality: str) -> None:
        old = self.conn.execute("SELECT quality FROM samples WHERE id = ?",
                                (self.sid,)).fetchone()[0]
        self.field("quality", quality, lambda: self.conn.execute(
            "UPDATE samples SET quality = ? WHERE id = ?", (quality, self.sid)), old, quality)

    def roles(self, value: dict[str, Any], subject: Subject) -> None:
        by_index = {r.index: r for r in subject.images}
        rows = [(r["role"], by_index[r["index"]]) for r in value["images"]
                if r["role"] != "unused"]

        def write() -> None:
            self.conn.execute("DELETE FROM sample_images WHERE sample_id = ? AND "
                              "bbox_x IS NULL", (self.sid,))
            pos = {"input": 0, "output": 0}
            for role, ref in rows:
                self.conn.execute(
                    "INSERT INTO sample_images(sample_id, role, position, ref, sha256) "
                    "VALUES (?, ?, ?, ?, ?)", (self.sid, role, pos[role], ref.ref, ref.sha256))
                pos[role] += 1
            split = "image-to-image" if pos["input"] else "text-to-image"
            self.conn.execute("UPDATE samples SET split = ? WHERE id = ? AND split IS NULL",
                              (split, self.sid))

        summary = [{"image": ref.index, "role": role} for role, ref in rows]
        self.field("roles", value["images"], write, None, {"images": summary})

    def boxes(self, value: dict[str, Any], subject: Subject) -> None:
        by_index = {r.index: r for r in subject.images}
        rows = []
        for shot in value["screenshots"]:
            ref = by_index[shot["image"]]
            for b in shot["boxes"]:
                x, y, w, h = (round(v * ref.scale) for v in b["box"])
                x, y = max(0, min(x, ref.width - 1)), max(0, min(y, ref.height - 1))
                rows.append((b["role"], ref, x, y, max(1, min(w, ref.width - x)),
                             max(1, min(h, ref.height - y))))

        def write() -> None:
            self.conn.execute("DELETE FROM sample_images WHERE sample_id = ? AND "
                              "bbox_x IS NOT NULL", (self.sid,))
            pos = {"input": 0, "output": 0}
            for role, ref, x, y, w, h in rows:
                self.conn.execute(
                    "INSERT INTO sample_images(sample_id, role, position, ref, sha256, bbox_x, "
                    "bbox_y, bbox_w, bbox_h) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (self.sid, role, pos[role], ref.ref, ref.sha256, x, y, w, h))
                pos[role] += 1
            self.conn.execute("UPDATE samples SET is_screenshot = ? WHERE id = ?",
                              (1 if rows else 0, self.sid))

        proposed = [{"role": r, "image": ref.index, "box": [x, y, w, h]}
                    for r, ref, x, y, w, h in rows]
        if rows or value["screenshots"]:
            self.field("boxes", proposed, write, None, {"boxes": proposed})
        text = next((s["prompt"] for s in value["screenshots"] if s["prompt"]), "")
        if text:
            self.prompt(text, SHOT_KIND)

    def safety(self, value: dict[str, Any]) -> None:
        def tags() -> list[str]:
            return [r[0] for r in self.conn.execute(
                "SELECT tag FROM sample_tags WHERE sample_id = ? ORDER BY tag", (self.sid,))]

        old = tags()

        def write() -> None:
            if value["unsafe"]:
                self.conn.execute("INSERT OR IGNORE INTO sample_tags(sample_id, tag) "
                                  "VALUES (?, 'unsafe')", (self.sid,))
            else:
                self.conn.execute("DELETE FROM sample_tags WHERE sample_id = ? AND "
                                  "tag = 'unsafe'", (self.sid,))

        new = sorted(set(old) | {"unsafe"}) if value["unsafe"] else [t for t in old
                                                                     if t != "unsafe"]
        self.field("safety", value, write, old, new)

    def feedback(self, value: dict[str, Any]) -> None:
        for item in value["feedback"]:
            reply, label, keyword = item["reply_id"], item["label"], item["keyword"]
            old = self.conn.execute(
                "SELECT label, keyword FROM feedback_labels WHERE sample_id = ? AND "
                "post_id = ?", (self.sid, reply)).fetchone()

            def write(reply: str = reply, label: str = label, keyword: str = keyword) -> None:
                self.conn.execute(
                    "INSERT INTO feedback_labels(sample_id, post_id, label, keyword) VALUES "
                    "(?, ?, ?, ?) ON CONFLICT(sample_id, post_id) DO UPDATE SET "
                    "label = excluded.label, keyword = excluded.keyword",
                    (self.sid, reply, label, keyword))

            self.field(f"feedback/{reply}", item, write,
                       None if old is None else {"label": old[0], "keyword": old[1]},
                       {"label": label, "keyword": keyword})

    def fill_in(self, value: dict[str, Any], post_id: str) -> None:
        for c in value["completions"]:
            new_id = derived_id(self.sid, c["reply_id"])
            row = self.conn.execute("SELECT sample_id, created_audit_id FROM proposal_samples "
                                    "WHERE sample_id = ?", (new_id,)).fetchone()
            if row is None:
                if self.conn.execute("SELECT 1 FROM samples WHERE id = ?",
                                     (new_id,)).fetchone():
                    self.kept.append(f"fill-in {c['reply_id']}: made by a curator, kept")
                    continue
                DeriveFromTemplate(self.sid, c["reply_id"], c["prompt"])._do(self.project)
                self.conn.execute("UPDATE samples SET original_prompt = prompt WHERE id = ?",
                                  (new_id,))
                created = F.last_audit_id(self.project)
                self.conn.execute(
                    "INSERT INTO proposal_samples(sample_id, post_id, origin, role, "
                    "created_audit_id, created_at) VALUES (?, ?, 'proposed', 'fill-in', ?, ?)",
                    (new_id, post_id, created, now_iso()))
                row = (new_id, created)
            sub = Writer(self.project, self.proposal_id, row[0], int(row[1]))
            sub.prompt(c["prompt"], "fill-in")
            self.applied += [f"fill-in {c['reply_id']}: {f}" for f in sub.applied]
            self.kept += [f"fill-in {c['reply_id']}: {k}" for k in sub.kept]


def apply_value(project: Project, proposal_id: int, kind: str, value: dict[str, Any],
                subject: Subject) -> dict[str, Any]:
    """Write a validated proposal into its post's main sample (inside a transaction);
    returns what was applied and what was kept."""
    if kind == "prompt" and not value["has_prompt"]:
        return {"sample": None, "applied": [], "kept": ["no prompt in the post"]}
    create = not (kind == "fill-in" and not value["completions"])
    sid, created, why = main_sample(project, subject.post_id, create)
    if sid is None:
        return {"sample": None, "applied": [], "kept": [why] if why else []}
    w = Writer(project, proposal_id, sid, created)
    if kind == "prompt":
        w.prompt(value["prompt"], "prompt")
    elif kind == "quality":
        w.quality(value["quality"])
    elif kind == "roles":
        w.roles(value, subject)
    elif kind == "screenshots":
        w.boxes(value, subject)
    elif kind == "safety":
        w.safety(value)
    elif kind == "feedback":
        w.feedback(value)
    elif kind == "fill-in":
        w.fill_in(value, subject.post_id)
    return {"sample": sid, "applied": w.applied, "kept": w.kept}
