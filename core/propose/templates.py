"""Proposal templates: the instructions sent to the model, versioned in the project.

Each kind has a built-in first version, written after ECHO's Appendix D prompts
(D.3 trees → samples with a quality label, D.4 multimodal processing: roles and
fill-in-the-blank, D.5 screenshot parsing) and its §4/§6 feedback keywords and safety
filter — our own wording, not reproduced.  A saved change is a new row (the table is
append-only), so every proposal keeps pointing at the exact text it was made with.

Placeholders (only these are replaced; other braces, e.g. JSON examples, stay as
written): ``{post}`` the post's text, ``{thread}`` the posts above it, the post and the
replies, ``{replies}`` the replies with their ids, ``{images}`` the images as sent
(index, size, ALT text), ``{schema}`` the JSON schema of the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.propose.kinds import KINDS, schema_text
from core.store.project import Project, now_iso

PLACEHOLDERS = ("post", "thread", "replies", "images", "schema")
_PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")
MAX_TEMPLATE_CHARS = 50_000

_ANSWER = ("Answer with one JSON object and nothing else, following this JSON schema:\n"
           "{schema}")
_SYSTEM = ("You help curate a benchmark of image-generation requests collected from "
           "social-media posts. You read posts exactly and never invent text or images "
           "that are not there.")

DEFAULTS: dict[str, tuple[str, str]] = {
    "prompt": (_SYSTEM, (
        "Below is a social-media post in its thread. Find the instruction the user gave "
        "to an image-generation model (the prompt). Keep only the spans of text that are "
        "the prompt and drop unrelated remarks (\"look what I made\", hashtags, links); "
        "you may join a prompt split over several posts of the same author. Do not "
        "rephrase or add words. If the thread holds no prompt, set has_prompt to false "
        "and prompt to \"\".\n\nThread (the main post is marked >>):\n{thread}\n\n"
        + _ANSWER)),
    "roles": (_SYSTEM, (
        "The post below shows images, numbered in the order they are attached. Decide "
        "for each image whether it is an input the user gave the model (a photo to "
        "edit, a reference), an output the model produced, or unused (unrelated: a meme, "
        "a logo). Outputs may come first or last; infer it as a reader of the post "
        "would. Also say whether the image is a screenshot of a conversation with the "
        "model (prompt text and images inside one frame).\n\nPost:\n{post}\n\nImages:\n"
        "{images}\n\n" + _ANSWER)),
    "screenshots": (_SYSTEM, (
        "Each image below is a screenshot of a conversation with an image-generation "
        "model, or a collage of inputs and outputs. For each one, read the prompt text "
        "the user typed (exactly, or \"\" if none is visible) and give a bounding box "
        "around every input image the user uploaded and every output image the model "
        "produced. A box is [x, y, width, height] in pixels of the image as you see it "
        "(the sizes are listed), top-left origin; each box must lie inside its image. "
        "Leave out avatars, icons and interface elements.\n\nPost:\n{post}\n\n"
        "Screenshots:\n{images}\n\n" + _ANSWER)),
    "fill-in": (_SYSTEM, (
        "Some posts are templates meant for others to complete in the replies (\"Design "
        "a soda can called ___\", \"What would [character] look like as ...\"). Decide "
        "whether the post is such a template. If it is, for each reply that completes "
        "it (in its text or with its images) give the completion and the fully "
        "specified prompt: the template with the blank filled in. Use only replies "
        "listed below, by their id; skip replies that complete nothing.\n\nTemplate "
        "post:\n{post}\n\nReplies:\n{replies}\n\nImages:\n{images}\n\n" + _ANSWER)),
    "quality": (_SYSTEM, (
        "Label the sample this thread would give. \"Benchmark\": a coherent, fully "
        "specified prompt that shows clear user intent and could be given to any image "
        "model. \"Analysis\": a partial or moderate-quality prompt, or commentary that "
        "cannot stand as its own sample but is still about image generation. \"Trash\": "
        "off-topic, spam or malformed. Give a one-sentence reason.\n\nThread (the main "
        "post is marked >>):\n{thread}\n\n" + _ANSWER)),
    "feedback": (_SYSTEM, (
        "The replies below react to an image the post's author generated. Label each "
        "reply: \"success\" if it says the result worked or is good, \"failure\" if it "
        "points out something that went wrong, \"neutral\" otherwise. For each failure "
        "give a short keyword (one to three words) naming the underlying issue, e.g. "
        "\"identity shift\", \"color drift\", \"text rendering\", \"aspect ratio\", "
        "\"transparency\"; for other labels give \"\". Label every reply by its id.\n\n"
        "Post:\n{post}\n\nReplies:\n{replies}\n\n" + _ANSWER)),
    "safety": (_SYSTEM, (
        "Check the post text and its images for content that must not enter a public "
        "benchmark: violence, sexual content, hate, self-harm, crimes, weapons, privacy "
        "violations (personal data, identifiable private people), or an image that "
        "plausibly depicts anyone under eighteen. Set unsafe to true and list the "
        "categories when any applies; otherwise unsafe is false and categories is "
        "empty.\n\nPost:\n{post}\n\nImages:\n{images}\n\n" + _ANSWER)),
}
#: kinds whose requests carry the post's images
WITH_IMAGES = frozenset({"roles", "screenshots", "fill-in", "safety"})


@dataclass(frozen=True)
class Template:
    """One version of one kind's instructions (``id`` None: the built-in, not saved yet)."""

    kind: str
    version: int
    system: str
    user: str
    id: int | None = None
    created_at: str = ""
    created_by: str = ""
    note: str = ""

    def render(self, values: dict[str, str]) -> tuple[str, str]:
        """(system, user) with the placeholders filled in (``schema`` added here)."""
        full = {"schema": schema_text(self.kind), **values}

        def fill(text: str) -> str:
            return _PLACEHOLDER.sub(lambda m: full.get(m.group(1), m.group(0)), text)

        return fill(self.system), fill(self.user)


def builtin(kind: str) -> Template:
    """The built-in first version of ``kind``."""
    if kind not in DEFAULTS:
        raise ValueError(f"unknown proposal kind {kind!r}; choose from {', '.join(KINDS)}")
    system, user = DEFAULTS[kind]
    return Template(kind, 1, system, user, note="built-in")


def _row(r: tuple) -> Template:
    return Template(kind=r[1], version=r[2], system=r[3], user=r[4], id=r[0],
                    created_at=r[5], created_by=r[6] or "", note=r[7] or "")


_COLS = "id, kind, version, system, user, created_at, created_by, note"


def versions(project: Project, kind: str) -> list[Template]:
    """Every saved version of ``kind``, newest first (the built-in when none is saved)."""
    rows = project.conn.execute(
        f"SELECT {_COLS} FROM proposal_templates WHERE kind = ? ORDER BY version DESC",
        (kind,)).fetchall()
    return [_row(r) for r in rows] or [builtin(kind)]


def current(project: Project, kind: str) -> Template:
    """The version of ``kind`` a run uses now (the newest saved, else the built-in)."""
    return versions(project, kind)[0]


def by_id(project: Project, template_id: int) -> Template | None:
    """A saved version by its row id."""
    r = project.conn.execute(f"SELECT {_COLS} FROM proposal_templates WHERE id = ?",
                             (template_id,)).fetchone()
    return None if r is None else _row(r)


def save_version(project: Project, kind: str, system: str, user: str,
                 note: str = "") -> Template:
    """Save a new version of ``kind`` (returns the current one unchanged when the text is
    the same).  ValueError for an empty or oversized text."""
    for name, text in (("system", system), ("user", user)):
        if len(text) > MAX_TEMPLATE_CHARS:
            raise ValueError(f"the {name} text of the {kind} template is too long "
                             f"({len(text):,} characters; at most {MAX_TEMPLATE_CHARS:,})")
    if not user.strip():
        raise ValueError(f"the {kind} template needs an instruction (the user text)")
    now = current(project, kind)
    if now.id is not None and (now.system, now.user) == (system, user):
        return now
    with project.transaction() as conn:
        if now.id is None and (now.system, now.user) != (system, user):
            _insert(project, builtin(kind))  # keep the built-in as version 1
        version = 1 + (conn.execute("SELECT max(version) FROM proposal_templates "
                                    "WHERE kind = ?", (kind,)).fetchone()[0] or 0)
        saved = Template(kind, version, system, user, note=note)
        return _insert(project, saved)


def ensure_saved(project: Project, kind: str) -> Template:
    """The current version of ``kind``, stored first if it is still the built-in."""
    now = current(project, kind)
    if now.id is not None:
        return now
    with project.transaction():
        return _insert(project, now)


def _insert(project: Project, t: Template) -> Template:
    stamp = now_iso()
    cur = project.conn.execute(
        "INSERT INTO proposal_templates(kind, version, system, user, note, created_at, "
        "created_by) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (t.kind, t.version, t.system, t.user, t.note, stamp, project.actor))
    project.audit("template", "proposal_template", f"{t.kind}/v{t.version}", "text", None,
                  {"system": t.system, "user": t.user})
    return Template(t.kind, t.version, t.system, t.user, int(cur.lastrowid or 0), stamp,
                    project.actor, t.note)


def unknown_placeholders(text: str) -> list[str]:
    """``{names}`` in ``text`` that look like placeholders but are not one (a typo)."""
    found = re.findall(r"\{([a-z_]{2,20})\}", text)
    return sorted({f for f in found if f not in PLACEHOLDERS})
