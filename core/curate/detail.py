"""Everything the sample view shows about one sample, loaded in a few indexed queries."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.store.assets import sha256_bytes
from core.store.project import Project

MAX_REPLIES = 500
MAX_ANCESTORS = 50


class ImageUnavailable(Exception):
    """An image of a sample cannot be shown or exported (missing, never fetched, unreadable)."""


class UnexportableSample(ImageUnavailable):
    """A sample holds binary data where text belongs (a BLOB stored with sqlite3): it is
    shown, read as UTF-8, but not exported until a curator fixes it (exports skip and name
    it, as they do a sample whose image is unavailable)."""


@dataclass(frozen=True)
class PostInfo:
    """A post as the sample view shows it (text is plain text, never HTML)."""

    id: str
    author: str
    timestamp: str
    text: str
    url: str
    keyword: str
    engagement: dict[str, Any]
    parent_id: str | None = None


@dataclass(frozen=True)
class Box:
    """One box on a screenshot: a ``sample_images`` row with a bbox (source pixels)."""

    row_id: int
    role: str
    position: int
    x: int
    y: int
    w: int
    h: int

    @property
    def rect(self) -> tuple[int, int, int, int]:
        """(x, y, w, h)."""
        return (self.x, self.y, self.w, self.h)


@dataclass
class ImageItem:
    """One source image in the strip: a post image and/or the sample's rows that use it."""

    key: str                 # sha256 when known, else the reference
    sha256: str | None
    ref: str | None
    role: str | None = None  # role of the whole-image row; None = not used whole
    row_id: int | None = None
    position: int = 0
    error: str | None = None
    alt: str = ""
    width: int | None = None
    height: int | None = None
    boxes: list[Box] = field(default_factory=list)

    @property
    def label(self) -> str:
        """Short role text for the strip."""
        if self.boxes:
            n_in = sum(b.role == "input" for b in self.boxes)
            n_out = sum(b.role == "output" for b in self.boxes)
            base = f"screenshot: {n_in} in, {n_out} out"
            return base if self.role in (None, "unused") else f"{self.role} + {base}"
        return self.role or "unused"


@dataclass
class SampleDetail:
    """A sample with its post, reply tree, feedback, images, tags and links."""

    id: str
    post_id: str | None
    prompt: str
    original_prompt: str
    quality: str | None
    split: str | None
    is_screenshot: bool
    review_status: str
    notes: str
    modified_at: str
    tags: list[str]
    post: PostInfo | None
    ancestors: list[PostInfo]
    replies: list[tuple[int, PostInfo]]
    feedback: list[tuple[str | None, str]]
    images: list[ImageItem]
    derived_from: dict[str, Any] | None
    derived: list[str]
    #: fields that held binary data instead of text (changed outside Winnow), shown decoded
    damaged: tuple[str, ...] = ()

    @property
    def prompt_modified(self) -> bool:
        """Derived, never stored: the prompt differs from the original extracted one."""
        return self.prompt != self.original_prompt


def load_sample(project: Project, sample_id: str) -> SampleDetail:
    """Load one sample for the view; KeyError if there is no such sample."""
    conn = project.conn
    row = conn.execute(
        "SELECT id, post_id, prompt, original_prompt, quality, split, is_screenshot, "
        "review_status, notes, modified_at FROM samples WHERE id = ?", (sample_id,)).fetchone()
    if row is None:
        raise KeyError(f"no sample {sample_id!r}")
    damaged = [name for name, v in zip(_SAMPLE_FIELDS, row, strict=True)
               if isinstance(v, bytes)]
    row = tuple(_plain(v) for v in row)
    post_id = row[1]
    post = _post(project, post_id) if post_id else None
    if post_id and (conn.execute(f"SELECT {_POST_BLOBS} FROM posts WHERE id = ?",
                                 (post_id,)).fetchone() or (0,))[0]:
        damaged.append("post")
    tags = [r[0] for r in conn.execute(
        "SELECT tag FROM sample_tags WHERE sample_id = ? ORDER BY tag", (sample_id,))]
    feedback = [(r[0], r[1]) for r in conn.execute(
        "SELECT post_id, text FROM feedback WHERE sample_id = ? ORDER BY position",
        (sample_id,))]
    damaged += [name for name, values in (("tags", tags), ("community_feedback",
                                                           [t for _, t in feedback]))
                if any(isinstance(v, bytes) for v in values)]
    tags = [_plain(t) for t in tags]
    feedback = [(_plain(p), _plain(t)) for p, t in feedback]
    link = conn.execute(
        "SELECT kind, source_sample_id, template_post_id, completion_post_id FROM sample_links "
        "WHERE sample_id = ?", (sample_id,)).fetchone()
    derived_from = None if link is None else {
        "kind": link[0], "source_sample_id": link[1], "template_post_id": link[2],
        "completion_post_id": link[3]}
    derived = [r[0] for r in conn.execute(
        "SELECT sample_id FROM sample_links WHERE source_sample_id = ? ORDER BY sample_id",
        (sample_id,))]
    return SampleDetail(
        id=row[0], post_id=post_id, prompt=row[2], original_prompt=row[3], quality=row[4],
        split=row[5], is_screenshot=bool(row[6]), review_status=row[7], notes=row[8],
        modified_at=row[9], tags=tags, post=post,
        ancestors=_ancestors(project, post) if post else [],
        replies=_replies(project, post_id) if post_id else [],
        feedback=feedback, images=load_images(project, sample_id, post_id),
        derived_from=derived_from, derived=derived,
        damaged=tuple(damaged))


def check_exportable(d: SampleDetail) -> None:
    """:class:`UnexportableSample` naming the fields of ``d`` that hold binary data."""
    if d.damaged:
        raise UnexportableSample(
            f"binary data instead of text in: {', '.join(d.damaged)} (changed outside "
            "Winnow, e.g. with sqlite3); correct it in Curate")


_SAMPLE_FIELDS = ("id", "post_id", "prompt", "original_prompt", "quality", "split",
                  "is_screenshot", "review_status", "notes", "modified_at")


def _plain(value: Any) -> Any:
    """Text as Winnow stores it; a BLOB stored with sqlite3 read as UTF-8 (shown, never
    a crash of the view)."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def load_images(project: Project, sample_id: str, post_id: str | None) -> list[ImageItem]:
    """The strip: the sample's images (inputs, outputs, unused, screenshots with their
    boxes), then the post's other images, each source image once, except that an image
    the sample uses whole more than once (the same picture as input and output) is shown
    once per use, so no role is hidden."""
    conn = project.conn
    items: dict[str, ImageItem] = {}
    order = {"input": 0, "output": 1, "unused": 2}
    rows = conn.execute(
        "SELECT si.id, si.role, si.position, si.ref, si.sha256, si.bbox_x, si.bbox_y, "
        "si.bbox_w, si.bbox_h, si.error, im.width, im.height FROM sample_images si "
        "LEFT JOIN images im ON im.sha256 = si.sha256 WHERE si.sample_id = ?",
        (sample_id,)).fetchall()
    rows.sort(key=lambda r: (order.get(r[1], 3), r[2], r[0]))
    ref_key: dict[str, str] = {}
    for rid, role, pos, ref, sha, bx, by, bw, bh, err, width, height in rows:
        key = sha or ref or f"row:{rid}"
        item = items.get(key)
        if item is None:
            item = items[key] = ImageItem(key=key, sha256=sha, ref=ref, error=err,
                                          width=width, height=height, position=pos)
            if ref:
                ref_key[ref] = key
        if bx is None:
            if item.row_id is None:
                item.role, item.row_id, item.position = role, rid, pos
            else:  # the same image used whole again (two copies in a post): shown again
                items[f"{key}#{rid}"] = ImageItem(
                    key=f"{key}#{rid}", sha256=sha, ref=ref, role=role, row_id=rid,
                    position=pos, error=err, width=width, height=height)
        else:
            item.boxes.append(Box(rid, role, pos, int(bx), int(by), int(bw), int(bh)))
    if post_id:
        for url, alt, sha, err, width, height in conn.execute(
                "SELECT pi.url, pi.alt, pi.sha256, pi.error, im.width, im.height "
                "FROM post_images pi LEFT JOIN images im ON im.sha256 = pi.sha256 "
                "WHERE pi.post_id = ? ORDER BY pi.position", (post_id,)):
            key = sha or ref_key.get(url or "") or url or ""
            if key in items:
                items[key].alt = alt or items[key].alt
                continue
            items[key] = ImageItem(key=key, sha256=sha, ref=url, error=err, alt=alt or "",
                                   width=width, height=height)
    return list(items.values())


def image_path(project: Project, sha256: str | None) -> Path:
    """The stored file of an image; :class:`ImageUnavailable` saying why when there is none."""
    if not sha256:
        raise ImageUnavailable("the image was never fetched")
    row = project.conn.execute("SELECT ext FROM images WHERE sha256 = ?", (sha256,)).fetchone()
    path = project.assets.path(sha256, row[0]) if row else project.assets.find(sha256)
    if path is None or not path.exists():
        raise ImageUnavailable(f"image {sha256[:12]}… is missing from the asset folder")
    return path


def image_bytes(project: Project, sha256: str | None) -> bytes:
    """The stored bytes of an image (see :func:`image_path`); a curator package, which
    has no asset folder, carries them in ``team_image_data`` (ADR 130). Bytes that no
    longer hash to ``sha256`` raise :class:`ImageUnavailable`: nothing exports them."""
    try:
        path = image_path(project, sha256)
    except ImageUnavailable:
        try:
            row = project.conn.execute("SELECT data FROM team_image_data WHERE sha256 = ?",
                                       (sha256,)).fetchone()
        except sqlite3.OperationalError:  # a project older than m011, open read-only
            row = None
        if row is None:
            raise
        return bytes(row[0])
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImageUnavailable(f"cannot read {path.name}: {exc.strerror or exc}") from exc
    if sha256_bytes(data) != sha256:  # edited by hand, or a link to another file (ADR 176)
        raise ImageUnavailable(f"image {str(sha256)[:12]}… in the asset folder no longer "
                               "matches what was stored (changed or replaced since)")
    return data


def sample_history(project: Project, sample_id: str, limit: int = 500) -> list[dict[str, Any]]:
    """The audit log of one sample, newest first."""
    return [{"at": r[0], "actor": r[1], "action": r[2], "field": r[3],
             "old": _loads(r[4]), "new": _loads(r[5])}
            for r in project.conn.execute(
                "SELECT at, actor, action, field, old, new FROM audit_log WHERE entity = 'sample' "
                "AND entity_id = ? ORDER BY id DESC LIMIT ?", (sample_id, limit))]


# -- posts ---------------------------------------------------------------------------------
_POST_COLS = "id, author, timestamp, text, url, keyword, engagement, parent_id"


_POST_BLOBS = " OR ".join(f"typeof({c}) = 'blob'" for c in _POST_COLS.split(", "))


def _to_post(r: Any) -> PostInfo:
    r = [_plain(v) for v in r]
    return PostInfo(id=r[0], author=r[1] or "", timestamp=r[2] or "", text=r[3] or "",
                    url=r[4] or "", keyword=r[5] or "", engagement=_loads(r[6]) or {},
                    parent_id=r[7])


def _post(project: Project, post_id: str) -> PostInfo | None:
    r = project.conn.execute(f"SELECT {_POST_COLS} FROM posts WHERE id = ?",
                             (post_id,)).fetchone()
    return None if r is None else _to_post(r)


def _ancestors(project: Project, post: PostInfo) -> list[PostInfo]:
    chain: list[PostInfo] = []
    seen = {post.id}
    parent = post.parent_id
    while parent and parent not in seen and len(chain) < MAX_ANCESTORS:
        seen.add(parent)
        found = _post(project, parent)
        if found is None:
            break
        chain.append(found)
        parent = found.parent_id
    return list(reversed(chain))


def _replies(project: Project, post_id: str) -> list[tuple[int, PostInfo]]:
    """Replies below ``post_id`` depth-first (oldest first at each level), with depth."""
    out: list[tuple[int, PostInfo]] = []
    seen = {post_id}

    def walk(parent: str, depth: int) -> None:
        children = project.conn.execute(
            f"SELECT {_POST_COLS} FROM posts WHERE parent_id = ? ORDER BY timestamp, id",
            (parent,)).fetchall()
        for r in children:
            if len(out) >= MAX_REPLIES or r[0] in seen:
                continue
            seen.add(r[0])
            out.append((depth, _to_post(r)))
            if depth < 30:
                walk(r[0], depth + 1)

    walk(post_id, 1)
    return out


def _loads(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        return text
