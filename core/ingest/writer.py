"""Writing parsed posts and samples to a project, one batch per transaction.

Rows are staged in Python and written with one ``executemany`` per statement; what a
batch did to the report (counts, line errors, notes) is collected in a :class:`BatchLog`
and applied only once the batch has committed, so a batch that is rolled back and
retried line by line is never counted twice.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from core.ingest.records import (
    PostRecord,
    RecordError,
    SampleRecord,
    shown_id,
    unicode_form,
)
from core.store.project import Project, now_iso

#: One post line: (line number, [post, *context], counts toward the report?)
PostLine = tuple[int, list[PostRecord], bool]
SampleLine = tuple[int, SampleRecord]
Role = tuple[str, int, "str | None", Any]


@dataclass
class BatchLog:
    """What one batch did, applied to the report after it commits."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("imported", "updated", "unchanged"), 0))
    errors: list[tuple[int, str]] = field(default_factory=list)
    notes: list[tuple[int, str]] = field(default_factory=list)
    sources: list[tuple[str, int]] = field(default_factory=list)  # (image source, line)
    created: set[str] = field(default_factory=set)  # post ids created in this batch


def _select_in(conn: Any, sql: str, values: Iterable[str]) -> list[tuple[Any, ...]]:
    values = list(values)
    rows: list[tuple[Any, ...]] = []
    for start in range(0, len(values), 900):
        chunk = values[start:start + 900]
        marks = ",".join("?" * len(chunk))
        rows.extend(conn.execute(f"{sql}({marks})", chunk).fetchall())
    return rows


def _twins(conn: Any, table: str, ids: Iterable[str]) -> dict[str, str]:
    """``{id: stored id}`` for each non-ASCII id that is not in ``table`` but its NFC or
    NFD form is: two texts a reader cannot tell apart (ADR 166)."""
    other: dict[str, str] = {}  # the other form -> the id as written
    for ident in ids:
        if not ident.isascii():
            for form in ("NFC", "NFD"):
                text = unicodedata.normalize(form, ident)
                if text != ident:
                    other[text] = ident
    if not other:
        return {}
    found = [r[0] for r in _select_in(conn, f"SELECT id FROM {table} WHERE id IN ", other)]
    present = {r[0] for r in _select_in(conn, f"SELECT id FROM {table} WHERE id IN ",
                                        {other[f] for f in found})}
    return {other[f]: f for f in found if other[f] not in present}


def _twin_error(kind: str, ident: str, stored: str) -> str:
    return (f"{kind} id '{shown_id(ident)}' ({unicode_form(ident)}) is {kind} "
            f"'{shown_id(stored)}' already in the project written in another Unicode form "
            f"({unicode_form(stored)}): composed "
            "and decomposed accents look the same; line skipped")


_ENCODER = json.JSONEncoder(ensure_ascii=False)


def _dump(value: Any) -> str | None:
    return None if value is None else _ENCODER.encode(value)


#: a sample's imported line and its hash, kept beside its row (ADR 027)
_SET_RAW = ("INSERT INTO sample_raw(sample_id, raw, raw_hash) VALUES (?, ?, ?) ON CONFLICT "
            "(sample_id) DO UPDATE SET raw = excluded.raw, raw_hash = excluded.raw_hash")


class Writer:
    """Writes batches for one import of ``file_name`` into ``project``."""

    def __init__(self, project: Project, file_name: str, created: set[str],
                 track_sources: bool) -> None:
        self.project = project
        self.file_name = file_name
        self.created = created  # post ids created by this import (all batches)
        self.track_sources = track_sources  # images will be attached: note what was touched

    # -- posts ------------------------------------------------------------------------
    def refused(self, conn: Any, batch: list[SampleLine]) -> dict[int, str]:
        """``{line: error}`` for the sample lines no import may write (ADR 166): the id
        of a sample made in Winnow (no imported line beside it, ADR 027), or the other
        Unicode form of a sample id in the project.  The caller leaves their embedded
        posts out of :meth:`posts`; :meth:`samples` reports them."""
        ids = {s.id for _, s in batch}
        native = {r[0] for r in _select_in(
            conn, "SELECT s.id FROM samples s WHERE NOT EXISTS (SELECT 1 FROM sample_raw r "
                  "WHERE r.sample_id = s.id) AND s.id IN ", ids)}
        twins = _twins(conn, "samples", ids)
        errors: dict[int, str] = {}
        for lineno, s in batch:
            if s.id in native:  # never overwrite what Winnow itself made
                errors[lineno] = (f"sample id '{shown_id(s.id)}' already exists and was made "
                                  "in Winnow, not imported: line skipped")
            elif s.id in twins:
                errors[lineno] = _twin_error("sample", s.id, twins[s.id])
        return errors

    def posts(self, conn: Any, batch: list[PostLine], log: BatchLog) -> None:
        """Write the posts of ``batch`` (the caller leaves out a refused line's)."""
        if not batch:
            return
        twins = _twins(conn, "posts", [posts[0].id for _, posts, counts in batch if counts])
        if twins:
            for lineno, posts, counts in batch:
                if counts and posts[0].id in twins:
                    log.errors.append((lineno, _twin_error("post", posts[0].id,
                                                           twins[posts[0].id])))
            batch = [line for line in batch if not (line[2] and line[1][0].id in twins)]
        ids = list({p.id for _, posts, _ in batch for p in posts})
        stamp = now_iso()
        existing = dict(_select_in(conn, "SELECT id, raw_hash FROM posts WHERE id IN ", ids))
        stored = set(existing)
        pending: dict[str, PostRecord] = {}
        for lineno, posts, counts in batch:
            status = self._stage(posts[0], existing, pending, log, authoritative=True)
            for reply in posts[1:]:
                self._stage(reply, existing, pending, log, authoritative=False)
            if counts:
                log.counts[status] += 1
            if self.track_sources:
                log.sources.extend((source, lineno) for post in posts
                                   for source, _alt in post.images)
        rows = {pid: (p.parent_id, p.text, p.timestamp, p.keyword, p.url, p.author,
                      _dump(p.engagement), p.raw_text, p.raw_hash, stamp, pid)
                for pid, p in pending.items()}
        changed = [pid for pid in pending if pid in stored]
        conn.executemany(
            "INSERT INTO posts(parent_id, text, timestamp, keyword, url, author, engagement, "
            "raw, raw_hash, imported_at, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [row for pid, row in rows.items() if pid not in stored])
        conn.executemany(
            "UPDATE posts SET parent_id=?, text=?, timestamp=?, keyword=?, url=?, author=?, "
            "engagement=?, raw=?, raw_hash=?, imported_at=? WHERE id=?",
            [rows[pid] for pid in changed])
        conn.executemany("DELETE FROM post_images WHERE post_id = ?", [(pid,) for pid in changed])
        conn.executemany(
            "INSERT INTO post_images(post_id, position, url, alt) VALUES (?, ?, ?, ?)",
            [(pid, k, url, alt) for pid, p in pending.items()
             for k, (url, alt) in enumerate(p.images)])
        if self.track_sources:
            conn.executemany("INSERT OR IGNORE INTO touched_posts(id) VALUES (?)",
                             [(i,) for i in ids])

    def _stage(self, post: PostRecord, existing: dict[str, str], pending: dict[str, PostRecord],
               log: BatchLog, authoritative: bool) -> str:
        old_hash = existing.get(post.id)
        if old_hash is not None and (old_hash == post.raw_hash or not authoritative):
            return "unchanged"
        pending[post.id] = post
        existing[post.id] = post.raw_hash
        if old_hash is None:
            log.created.add(post.id)
            return "imported"
        return "imported" if post.id in self.created or post.id in log.created else "updated"

    # -- samples ------------------------------------------------------------------------
    def samples(self, conn: Any, batch: list[SampleLine], log: BatchLog, final: bool,
                refused: dict[int, str] | None = None) -> list[SampleLine]:
        """Write the samples whose post exists; return the others (unless ``final``);
        report the ``refused`` lines (:meth:`refused`) and write nothing of them."""
        if refused:
            log.errors += [(n, refused[n]) for n, _s in batch if n in refused]
            batch = [(n, s) for n, s in batch if n not in refused]
        if not batch:
            return []
        ids = [s.id for _, s in batch]
        post_ids = {s.post_id for _, s in batch if s.post_id}
        known = {r[0] for r in _select_in(conn, "SELECT id FROM posts WHERE id IN ", post_ids)}
        waiting = [(n, s) for n, s in batch if s.post_id and s.post_id not in known]
        if waiting and not final:
            batch = [(n, s) for n, s in batch if not s.post_id or s.post_id in known]
        else:
            for lineno, s in waiting:
                log.errors.append((lineno, f"post '{shown_id(s.post_id or '')}' is not in the "
                                           "project (import the post first, or embed it as "
                                           "'post')"))
            batch = [(n, s) for n, s in batch if not s.post_id or s.post_id in known]
            waiting = []
        existing = dict(_select_in(conn, "SELECT s.id, r.raw_hash FROM samples s LEFT JOIN "
                                         "sample_raw r ON r.sample_id = s.id WHERE s.id IN ", ids))
        edited = [r[0] for r in _select_in(
            conn, "SELECT DISTINCT entity_id FROM audit_log WHERE entity = 'sample' AND "
                  "action = 'edit' AND entity_id IN ", ids)]
        curated = dict(_select_in(conn, "SELECT id, original_prompt FROM samples WHERE id IN ",
                                  edited))
        images: dict[str, dict[int, str]] = {}
        for pid, pos, url in _select_in(
                conn, "SELECT post_id, position, url FROM post_images WHERE post_id IN ",
                {s.post_id for _, s in batch if s.post_id}):
            images.setdefault(pid, {})[pos] = url
        rows: dict[str, list[tuple[Any, ...]]] = {k: [] for k in (
            "insert", "replace", "children_gone", "roles", "feedback", "tags", "raw")}
        stamp = now_iso()
        audits: list[tuple[str, str, str, str | None, Any, Any]] = []
        for lineno, s in batch:
            try:
                roles = _roles(s, images.get(s.post_id or "", {}))
            except RecordError as exc:
                log.errors.append((lineno, str(exc)))
                continue
            if self.track_sources:
                log.sources.extend((ref, lineno) for _r, _p, ref, _b in roles if ref is not None)
            old = existing.get(s.id)
            prompt = s.prompt_edited if s.prompt_edited is not None else s.prompt
            if old == s.raw_hash:
                log.counts["unchanged"] += 1
            elif s.id in curated:
                conn.execute("UPDATE samples SET original_prompt = ? WHERE id = ?",
                             (s.prompt, s.id))
                conn.execute(_SET_RAW, (s.id, s.raw_text, s.raw_hash))
                if curated[s.id] != s.prompt:
                    self.project.audit("reimport", "sample", s.id, "original_prompt",
                                       curated[s.id], s.prompt)
                curated[s.id] = s.prompt
                log.notes.append((lineno, f"sample '{s.id}' has curator edits: only its "
                                          "original prompt was refreshed; edits were kept"))
                log.counts["updated"] += 1
            else:
                values = (s.post_id, prompt, s.prompt, s.quality, s.split, int(s.is_screenshot),
                          s.notes)
                rows["raw"].append((s.id, s.raw_text, s.raw_hash))
                if old is None:
                    rows["insert"].append((s.id, *values, stamp, stamp))
                    log.counts["imported"] += 1
                    action = "import"
                else:
                    rows["replace"].append((*values, stamp, s.id))
                    rows["children_gone"].append((s.id,))
                    log.counts["updated"] += 1
                    action = "reimport"
                rows["roles"] += [(s.id, role, pos, ref, *(box or (None,) * 4))
                                  for role, pos, ref, box in roles]
                rows["feedback"] += [(s.id, k, pid, text) for k, (pid, text) in
                                     enumerate(s.feedback)]
                rows["tags"] += [(s.id, tag) for tag in s.tags]
                audits.append((action, "sample", s.id, None, None,
                               {"file": self.file_name, "line": lineno}))
            existing[s.id] = s.raw_hash
        self._write_sample_rows(conn, rows)
        self.project.audit_many(audits)
        if self.track_sources:
            conn.executemany("INSERT OR IGNORE INTO touched_samples(id) VALUES (?)",
                             [(s.id,) for _, s in batch])
        return waiting

    @staticmethod
    def _write_sample_rows(conn: Any, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        for table in ("sample_images", "feedback", "sample_tags"):
            conn.executemany(f"DELETE FROM {table} WHERE sample_id = ?", rows["children_gone"])
        conn.executemany(
            "INSERT INTO samples(id, post_id, prompt, original_prompt, quality, split, "
            "is_screenshot, notes, created_at, modified_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows["insert"])
        conn.executemany(
            "UPDATE samples SET post_id=?, prompt=?, original_prompt=?, quality=?, split=?, "
            "is_screenshot=?, notes=?, modified_at=? WHERE id=?",
            rows["replace"])
        conn.executemany(_SET_RAW, rows["raw"])
        conn.executemany(
            "INSERT INTO sample_images(sample_id, role, position, ref, bbox_x, bbox_y, bbox_w, "
            "bbox_h) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows["roles"])
        conn.executemany("INSERT INTO feedback(sample_id, position, post_id, text) "
                         "VALUES (?, ?, ?, ?)", rows["feedback"])
        conn.executemany("INSERT INTO sample_tags(sample_id, tag) VALUES (?, ?)", rows["tags"])


def _roles(sample: SampleRecord, post_images: dict[int, str]) -> list[Role]:
    """(role, position, source reference, box) rows for a sample's images."""
    rows: list[Role] = []
    for role, refs, boxes in (("input", sample.inputs, sample.input_boxes),
                              ("output", sample.outputs, sample.output_boxes)):
        resolved: list[str] = []
        for k, ref in enumerate(refs):
            if isinstance(ref, str):
                resolved.append(ref)
            elif ref in post_images:
                resolved.append(post_images[ref])
            else:
                raise RecordError(f"'{role}_images[{k}]' refers to image {ref} of post "
                                  f"'{sample.post_id}', which has no such image")
        if not boxes:  # the common case
            rows += [(role, k, ref, None) for k, ref in enumerate(resolved)]
            continue
        boxed = {b.image for b in boxes}
        position = 0
        for k, ref in enumerate(resolved):
            if k in boxed:
                for box in (b.box for b in boxes if b.image == k):
                    rows.append((role, position, ref, box))
                    position += 1
            else:
                rows.append((role, position, ref, None))
                position += 1
    return rows
