"""What the model sees about one post: its thread as text, its replies with ids, its
images downscaled to data URLs, and the chat messages a template makes of them.

The texts are read in a few indexed queries (:func:`load_post`); the images are
decoded and encoded off the event loop (:func:`encode_images`, Pillow releases the
GIL).  The request's ``input_hash`` covers everything that decides the answer (the
rendered texts, the images' hashes and sizes), so the cache misses when the post or
the template changed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.propose.kinds import ImageRef, Subject
from core.propose.templates import WITH_IMAGES, Template
from core.store.project import Project

MAX_SIDE = 1024           # longer side of an image as sent
MAX_REPLIES = 50          # replies shown to the model (the first, by time)
MAX_ANCESTORS = 10
MAX_POST_CHARS = 20_000   # each post's text as sent (the rest is cut, and said so)


@dataclass
class PostImage:
    """One image attached to the post (as stored)."""

    index: int
    sha256: str | None
    ref: str | None
    alt: str
    width: int | None
    height: int | None
    ext: str | None


@dataclass
class PostContext:
    """A post and its thread, loaded once for every kind of request about it."""

    post_id: str
    author: str
    text: str
    ancestors: list[tuple[str, str, str]]           # (id, author, text), oldest first
    replies: list[tuple[str, str, str]]             # (id, author, text), by time
    images: list[PostImage] = field(default_factory=list)

    @property
    def usable_images(self) -> list[PostImage]:
        """Images that were fetched (the model can only see those)."""
        return [im for im in self.images if im.sha256]


def _cut(text: str) -> str:
    return text if len(text) <= MAX_POST_CHARS else (
        text[:MAX_POST_CHARS] + f" […{len(text) - MAX_POST_CHARS:,} more characters]")


def load_post(project: Project, post_id: str) -> PostContext | None:
    """The post ``post_id`` with its ancestors, replies and images (None: no such post)."""
    conn = project.conn
    row = conn.execute("SELECT id, coalesce(author, ''), text, parent_id FROM posts "
                       "WHERE id = ?", (post_id,)).fetchone()
    if row is None:
        return None
    ancestors: list[tuple[str, str, str]] = []
    parent, seen = row[3], {post_id}
    while parent and parent not in seen and len(ancestors) < MAX_ANCESTORS:
        seen.add(parent)
        p = conn.execute("SELECT id, coalesce(author, ''), text, parent_id FROM posts "
                         "WHERE id = ?", (parent,)).fetchone()
        if p is None:
            break
        ancestors.append((p[0], p[1], p[2]))
        parent = p[3]
    ancestors.reverse()
    replies = [(r[0], r[1], r[2]) for r in conn.execute(
        "SELECT id, coalesce(author, ''), text FROM posts WHERE parent_id = ? AND id != ? "
        "ORDER BY timestamp, id LIMIT ?", (post_id, post_id, MAX_REPLIES))]
    images = [PostImage(k, r[0], r[1], r[2] or "", r[3], r[4], r[5]) for k, r in enumerate(
        conn.execute("SELECT pi.sha256, pi.url, pi.alt, im.width, im.height, im.ext "
                     "FROM post_images pi LEFT JOIN images im ON im.sha256 = pi.sha256 "
                     "WHERE pi.post_id = ? ORDER BY pi.position", (post_id,)))]
    return PostContext(row[0], row[1], row[2], ancestors, replies, images)


@dataclass
class Encoded:
    """One image ready to send: its data URL and sizes."""

    url: str
    sent: tuple[int, int]
    source: tuple[int, int]


def image_paths(project: Project, images: list[PostImage]) -> dict[int, Path | str]:
    """Where each fetched image is stored (a string says why one cannot be read).  Reads
    the project, so it runs on the thread that owns the connection."""
    from core.curate.detail import ImageUnavailable, image_path

    out: dict[int, Path | str] = {}
    for im in images:
        try:
            out[im.index] = image_path(project, im.sha256)
        except ImageUnavailable as exc:
            out[im.index] = str(exc)
    return out


def encode_images(paths: dict[int, Path | str],
                  images: list[PostImage]) -> dict[int, Encoded | str]:
    """Data URLs of the images at ``paths`` (blocking, no database: run it in a thread);
    a string per image that cannot be read says why."""
    from core.metrics.imageio import MetricInputError, encode_png, open_rgb
    from core.metrics.judge_client import data_url

    sizes = {im.index: (im.width, im.height) for im in images}
    out: dict[int, Encoded | str] = {}
    for index, path in paths.items():
        if isinstance(path, str):
            out[index] = path
            continue
        try:
            pic = open_rgb(path, MAX_SIDE)
        except (MetricInputError, OSError) as exc:
            out[index] = str(exc)
            continue
        width, height = sizes.get(index, (None, None))
        source = (width or pic.width, height or pic.height)
        out[index] = Encoded(data_url(encode_png(pic)), (pic.width, pic.height), source)
    return out


def thread_text(ctx: PostContext) -> str:
    """The thread as the model reads it: posts above, the main post (>>), replies."""
    lines = [f"[{pid}] {author or 'someone'}: {_cut(text)}" for pid, author, text in
             ctx.ancestors]
    lines.append(f">> [{ctx.post_id}] {ctx.author or 'someone'}: {_cut(ctx.text)}")
    lines += [f"   [reply {rid}] {author or 'someone'}: {_cut(text)}"
              for rid, author, text in ctx.replies]
    return "\n".join(lines)


def replies_text(ctx: PostContext) -> str:
    """The replies, one a line, each with its id."""
    if not ctx.replies:
        return "(no replies)"
    return "\n".join(f"[reply {rid}] {author or 'someone'}: {_cut(text)}"
                     for rid, author, text in ctx.replies)


def images_text(refs: list[ImageRef]) -> str:
    """The images as listed for the model (index, size as sent, ALT text)."""
    if not refs:
        return "(no images)"
    return "\n".join(f"Image {r.index}: {r.sent_width}×{r.sent_height} px"
                     + (f", ALT text: {r.alt}" if r.alt else "") for r in refs)


def subject_for(ctx: PostContext, encoded: dict[int, Encoded | str],
                only: list[int] | None = None) -> Subject:
    """What a request about ``ctx`` shows (the images in ``only`` when given)."""
    refs = []
    for im in ctx.images:
        enc = encoded.get(im.index)
        if not isinstance(enc, Encoded) or (only is not None and im.index not in only):
            continue
        refs.append(ImageRef(im.index, im.sha256, im.ref, enc.source[0], enc.source[1],
                             enc.sent[0], enc.sent[1], im.alt))
    context = "\n".join([t for _i, _a, t in ctx.ancestors] + [ctx.text]
                        + [t for _i, _a, t in ctx.replies])
    return Subject(ctx.post_id, ctx.text, context, refs,
                   {rid: text for rid, _a, text in ctx.replies}, only)


@dataclass
class Request:
    """One chat request, ready to send, with what validation needs."""

    kind: str
    template: Template
    subject: Subject
    messages: list[dict[str, Any]]
    input_hash: str


def build_request(kind: str, template: Template, ctx: PostContext, subject: Subject,
                  encoded: dict[int, Encoded | str]) -> Request:
    """The messages for ``kind`` about ``subject``, and their cache hash."""
    values = {"post": _cut(ctx.text) or "(no text)", "thread": thread_text(ctx),
              "replies": replies_text(ctx), "images": images_text(subject.images)}
    system, user = template.render(values)
    images = []
    if kind in WITH_IMAGES:
        for ref in subject.images:
            enc = encoded[ref.index]
            assert isinstance(enc, Encoded)
            images.append((ref, enc.url))
    content: list[dict[str, Any]] = [{"type": "text", "text": user}]
    content += [{"type": "image_url", "image_url": {"url": url}} for _r, url in images]
    messages: list[dict[str, Any]] = [{"role": "system", "content": system},
                                      {"role": "user", "content": content}]
    key = json.dumps([kind, template.id, template.version, system, user,
                      [(r.sha256, r.sent_width, r.sent_height) for r, _u in images]],
                     ensure_ascii=False)
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
    return Request(kind, template, subject, messages, digest)
