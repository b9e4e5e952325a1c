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
from dataclasses import dataclass, field, replace
from typing import Any

from core.ingest.copies import (
    Given,
    added,
    changed_fields,
    checked_keys,
    disagreement,
    first_difference,
    merged,
    merged_record,
    post_object,
)
from core.ingest.records import (
    PostRecord,
    RecordError,
    SampleRecord,
    flat_post_records,
    shown_id,
    unicode_form,
)
from core.store.project import Project, now_iso

#: One post line: (line number, [post, *context])
PostLine = tuple[int, list[PostRecord]]
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
    given: dict[str, Given] = field(default_factory=dict)  # see Writer.given (ADR 182)


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


@dataclass
class _Stage:
    """What one batch decided so far, in line order; written at the end of the batch."""

    conn: Any
    hashes: dict[str, str | None]  # post id -> raw hash: stored, then as staged
    stored: set[str]  # post ids in the project before the batch
    images: dict[str, dict[int, str]]  # stored images of the samples' posts
    samples: dict[str, str | None]  # sample id -> imported line's hash (None: no line)
    curated: dict[str, str]  # sample id -> original prompt, for samples a curator edited
    posts: dict[str, PostRecord] = field(default_factory=dict)  # post rows to write
    touched: set[str] = field(default_factory=set)  # posts of the lines taken
    sampled: set[str] = field(default_factory=set)  # samples of the lines taken
    stamp: str = field(default_factory=now_iso)
    rows: dict[str, list[tuple[Any, ...]]] = field(default_factory=lambda: {k: [] for k in (
        "insert", "replace", "children_gone", "roles", "feedback", "tags", "raw")})
    audits: list[tuple[str, str, str, str | None, Any, Any]] = field(default_factory=list)

    def obj(self, pid: str) -> dict[str, Any] | None:
        """A post's object as it stands now (staged, else stored)."""
        if pid in self.posts:
            return post_object(self.posts[pid].raw_text)
        row = self.conn.execute("SELECT raw FROM posts WHERE id = ?", (pid,)).fetchone()
        return post_object(row[0] if row else None)

    def parent(self, pid: str) -> str | None:
        """A post's parent as it stands now (staged, else stored)."""
        if pid in self.posts:
            return self.posts[pid].parent_id
        row = self.conn.execute("SELECT parent_id FROM posts WHERE id = ?", (pid,)).fetchone()
        return row[0] if row else None

    def post_images(self, pid: str, line: dict[str, PostRecord]) -> dict[int, str]:
        """``{position: url}`` of a post, as the line would leave it."""
        post = line.get(pid) or self.posts.get(pid)
        if post is not None:
            return {k: url for k, (url, _alt) in enumerate(post.images)}
        return self.images.get(pid, {})


class Writer:
    """Writes batches for one import of ``file_name`` into ``project``.

    A batch's lines are decided in line order and each line is checked whole before
    anything of it is staged: a refused line writes nothing, not its embedded posts
    (ADR 166, 182).  Rows are written at the end of the batch.
    """

    def __init__(self, project: Project, file_name: str, created: set[str],
                 track_sources: bool) -> None:
        self.project = project
        self.file_name = file_name
        self.created = created  # post ids created by this import (all batches)
        self.track_sources = track_sources  # images will be attached: note what was touched
        self.given: dict[str, Given] = {}  # post id -> what this file said of it (ADR 182)
        self._keysets: dict[frozenset[str], frozenset[str]] = {}  # one object per key set

    def write(self, conn: Any, posts: list[PostLine], samples: list[SampleLine],
              log: BatchLog, final: bool) -> list[SampleLine]:
        """Write one batch; return the samples whose post has not come yet (none when
        ``final``: those are reported)."""
        refused = self.refused(conn, samples) if samples else {}
        twins = _twins(conn, "posts", [p[0].id for _, p in posts])
        stage = self._stage(conn, posts, samples)
        lines: list[PostLine | SampleLine] = sorted([*posts, *samples], key=lambda x: x[0])
        deferred: list[SampleLine] = []
        for lineno, item in lines:
            if isinstance(item, SampleRecord):
                if lineno in refused:
                    log.errors.append((lineno, refused[lineno]))
                elif not self._sample(stage, lineno, item, log):
                    deferred.append((lineno, item))
            elif item[0].id in twins:
                log.errors.append((lineno, _twin_error("post", item[0].id, twins[item[0].id])))
            else:
                self._post_line(stage, lineno, item, log)
        waiting = [line for line in deferred if not self._sample(stage, *line, log)]
        if final:
            for n, s in waiting:
                flat = flat_post_records(s.flat_post) if s.flat_post is not None else None
                if isinstance(flat, list):  # its own post fields make the post
                    self._sample(stage, n, replace(s, posts=flat), log)
                    continue
                why = f" ({flat})" if isinstance(flat, str) else ""
                log.errors.append((n, f"post '{shown_id(s.post_id or '')}' is not in the "
                                      "project (import the post first, or embed it as "
                                      f"'post'){why}"))
            waiting = []
        self._write_posts(conn, stage)
        self._write_sample_rows(conn, stage.rows)
        self.project.audit_many(stage.audits)
        if self.track_sources:
            conn.executemany("INSERT OR IGNORE INTO touched_posts(id) VALUES (?)",
                             [(i,) for i in stage.touched])
            conn.executemany("INSERT OR IGNORE INTO touched_samples(id) VALUES (?)",
                             [(i,) for i in stage.sampled])
        return waiting

    def refused(self, conn: Any, batch: list[SampleLine]) -> dict[int, str]:
        """``{line: error}`` for the sample lines no import may write (ADR 166): the id
        of a sample made in Winnow (no imported line beside it, ADR 027), or the other
        Unicode form of a sample id in the project."""
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

    def _stage(self, conn: Any, posts: list[PostLine], samples: list[SampleLine]) -> _Stage:
        """What the batch needs from the project, read once."""
        ids = {p.id for _, line in posts for p in line}
        ids |= {p.id for _, s in samples for p in s.posts}
        ids |= {s.post_id for _, s in samples if s.post_id}
        hashes: dict[str, str | None] = dict(_select_in(
            conn, "SELECT id, raw_hash FROM posts WHERE id IN ", ids))
        images: dict[str, dict[int, str]] = {}
        for pid, pos, url in _select_in(
                conn, "SELECT post_id, position, url FROM post_images WHERE post_id IN ",
                {s.post_id for _, s in samples if s.post_id}):
            images.setdefault(pid, {})[pos] = url
        sample_ids = [s.id for _, s in samples]
        existing = dict(_select_in(conn, "SELECT s.id, r.raw_hash FROM samples s LEFT JOIN "
                                         "sample_raw r ON r.sample_id = s.id WHERE s.id IN ",
                                   sample_ids))
        edited = [r[0] for r in _select_in(
            conn, "SELECT DISTINCT entity_id FROM audit_log WHERE entity = 'sample' AND "
                  "action = 'edit' AND entity_id IN ", sample_ids)]
        curated = dict(_select_in(conn, "SELECT id, original_prompt FROM samples WHERE id IN ",
                                  edited))
        return _Stage(conn, hashes, set(hashes), images, existing, curated)

    def _given(self, log: BatchLog, pid: str) -> Given | None:
        return log.given.get(pid) or self.given.get(pid)

    def _keyset(self, keys: frozenset[str]) -> frozenset[str]:
        return self._keysets.setdefault(keys, keys)

    # -- posts ------------------------------------------------------------------------
    def _post_line(self, stage: _Stage, lineno: int, posts: list[PostRecord],
                   log: BatchLog) -> None:
        """A post line: the whole post (ADR 001), unless it contradicts a copy an earlier
        line of the file embedded (ADR 182)."""
        post = posts[0]
        given = self._given(log, post.id)
        keys = checked_keys(post.fields, given, embedded=False)
        if keys and given is not None and post.raw_hash != stage.hashes.get(post.id):
            base = stage.obj(post.id)
            key = None if base is None else first_difference(
                post_object(post.raw_text) or {}, base, keys)
            if key is not None:
                log.errors.append((lineno, disagreement(post.id, key, given, embedded=False)))
                return
        if post.id in stage.hashes and stage.hashes[post.id] == post.raw_hash:
            status = "unchanged"
        else:
            status = self._put(stage, post, log)
        self._context(stage, posts[1:], log)
        log.counts[status] += 1
        log.given[post.id] = ((lineno, None),)
        self._took(stage, lineno, posts, log)

    def _put(self, stage: _Stage, post: PostRecord, log: BatchLog) -> str:
        """Stage a post row; ``imported`` or ``updated``."""
        new = post.id not in stage.hashes
        stage.posts[post.id] = post
        stage.hashes[post.id] = post.raw_hash
        if new:
            log.created.add(post.id)
            return "imported"
        return "imported" if post.id in self.created or post.id in log.created else "updated"

    def _context(self, stage: _Stage, replies: list[PostRecord], log: BatchLog) -> None:
        """Replies a line carries: written when new, never over a post (ADR 001)."""
        for reply in replies:
            if reply.id not in stage.hashes:
                self._put(stage, reply, log)

    def _took(self, stage: _Stage, lineno: int, posts: list[PostRecord],
              log: BatchLog) -> None:
        stage.touched.update(p.id for p in posts)
        if self.track_sources:
            log.sources.extend((source, lineno) for post in posts
                               for source, _alt in post.images)

    def _embedded(self, stage: _Stage, copy: PostRecord,
                  log: BatchLog) -> tuple[PostRecord | None, str | None]:
        """What the copy of a post a sample embeds does: (the post row to stage, None
        when it changes nothing; a line error).  Stages nothing (ADR 182)."""
        if copy.id not in stage.hashes:
            return copy, None
        if stage.hashes[copy.id] == copy.raw_hash:
            return None, None
        base, mine = stage.obj(copy.id), post_object(copy.raw_text)
        if base is None or mine is None:  # a stored row without its line: left as it is
            return None, None
        given = self._given(log, copy.id)
        key = first_difference(mine, base, checked_keys(copy.fields, given, embedded=True))
        if key is not None and given is not None:
            return None, disagreement(copy.id, key, given, embedded=True)
        obj = merged(base, mine)
        if not changed_fields(base, obj):
            return None, None
        try:
            # its place in the reply tree is kept: the stored one, else the copy's
            return merged_record(copy.id, obj, stage.parent(copy.id) or copy.parent_id), None
        except RecordError as exc:  # the stored line no longer passes today's checks
            return None, f"post '{shown_id(copy.id)}' embedded here cannot update the post " \
                         f"in the project: {exc}"

    def _stage_embedded(self, stage: _Stage, lineno: int, posts: list[PostRecord],
                        row: PostRecord | None, log: BatchLog) -> None:
        """Stage a taken sample line's embedded post (``row``) and its replies."""
        copy = posts[0]
        if row is not None:
            before = stage.obj(copy.id) if copy.id in stage.hashes else None
            self._put(stage, row, log)
            if before is not None and copy.id not in self.created \
                    and copy.id not in log.created:
                fields = ", ".join(f"'{k}'" for k in changed_fields(
                    before, post_object(row.raw_text) or {}))
                log.notes.append((lineno, f"post '{shown_id(copy.id)}' updated from the copy "
                                          f"embedded in this line ({fields}); the fields it "
                                          "leaves out were kept"))
        self._context(stage, posts[1:], log)
        given = added(self._given(log, copy.id), lineno, self._keyset(copy.fields))
        if given is not None:
            log.given[copy.id] = given
        self._took(stage, lineno, posts, log)

    def _write_posts(self, conn: Any, stage: _Stage) -> None:
        """Write the staged post rows; a post's image rows only when its images changed
        (they hold what was stored for them)."""
        stamp = stage.stamp
        rows = {pid: (p.parent_id, p.text, p.timestamp, p.keyword, p.url, p.author,
                      _dump(p.engagement), p.raw_text, p.raw_hash, stamp, pid)
                for pid, p in stage.posts.items()}
        changed = [pid for pid in stage.posts if pid in stage.stored]
        conn.executemany(
            "INSERT INTO posts(parent_id, text, timestamp, keyword, url, author, engagement, "
            "raw, raw_hash, imported_at, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [row for pid, row in rows.items() if pid not in stage.stored])
        conn.executemany(
            "UPDATE posts SET parent_id=?, text=?, timestamp=?, keyword=?, url=?, author=?, "
            "engagement=?, raw=?, raw_hash=?, imported_at=? WHERE id=?",
            [rows[pid] for pid in changed])
        old: dict[str, dict[int, tuple[str, str]]] = {}
        for pid, pos, url, alt in _select_in(
                conn, "SELECT post_id, position, url, alt FROM post_images WHERE post_id IN ",
                changed):
            old.setdefault(pid, {})[pos] = (url, alt or "")
        redo = [pid for pid, p in stage.posts.items()  # images kept when they stay the same
                if pid not in stage.stored or old.get(pid, {}) != dict(enumerate(p.images))]
        conn.executemany("DELETE FROM post_images WHERE post_id = ?",
                         [(pid,) for pid in redo if pid in stage.stored])
        conn.executemany(
            "INSERT INTO post_images(post_id, position, url, alt) VALUES (?, ?, ?, ?)",
            [(pid, k, url, alt) for pid in redo
             for k, (url, alt) in enumerate(stage.posts[pid].images)])

    # -- samples ------------------------------------------------------------------------
    def _sample(self, stage: _Stage, lineno: int, s: SampleRecord, log: BatchLog) -> bool:
        """Check a sample line whole, then stage it with its embedded posts; False when
        its post has not come yet (nothing staged)."""
        line = {p.id: p for p in s.posts[1:] if p.id not in stage.hashes}
        if s.post_id and s.post_id not in stage.hashes and s.post_id not in line \
                and not (s.posts and s.posts[0].id == s.post_id):
            return False
        row: PostRecord | None = None
        if s.posts:
            row, error = self._embedded(stage, s.posts[0], log)
            if error is not None:
                log.errors.append((lineno, error))
                return True
            if row is not None:
                line[row.id] = row
        try:
            roles = _roles(s, stage.post_images(s.post_id or "", line))
        except RecordError as exc:
            log.errors.append((lineno, str(exc)))
            return True
        if s.posts:
            self._stage_embedded(stage, lineno, s.posts, row, log)
        self._stage_sample(stage, lineno, s, roles, log)
        return True

    def _stage_sample(self, stage: _Stage, lineno: int, s: SampleRecord, roles: list[Role],
                      log: BatchLog) -> None:
        if self.track_sources:
            log.sources.extend((ref, lineno) for _r, _p, ref, _b in roles if ref is not None)
        old = stage.samples.get(s.id)
        rows = stage.rows
        if old == s.raw_hash:
            log.counts["unchanged"] += 1
        elif s.id in stage.curated:
            self._refresh_curated(stage, lineno, s, log)
        else:
            prompt = s.prompt_edited if s.prompt_edited is not None else s.prompt
            values = (s.post_id, prompt, s.prompt, s.quality, s.split, int(s.is_screenshot),
                      s.notes)
            rows["raw"].append((s.id, s.raw_text, s.raw_hash))
            stamp = stage.stamp
            if s.id not in stage.samples:
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
            stage.audits.append((action, "sample", s.id, None, None,
                                 {"file": self.file_name, "line": lineno}))
        stage.samples[s.id] = s.raw_hash
        stage.sampled.add(s.id)

    def _refresh_curated(self, stage: _Stage, lineno: int, s: SampleRecord,
                         log: BatchLog) -> None:
        """A sample with curator edits: only its original prompt is refreshed (ADR 001)."""
        conn = stage.conn
        conn.execute("UPDATE samples SET original_prompt = ? WHERE id = ?", (s.prompt, s.id))
        conn.execute(_SET_RAW, (s.id, s.raw_text, s.raw_hash))
        if stage.curated[s.id] != s.prompt:
            self.project.audit("reimport", "sample", s.id, "original_prompt",
                               stage.curated[s.id], s.prompt)
        stage.curated[s.id] = s.prompt
        log.notes.append((lineno, f"sample '{s.id}' has curator edits: only its "
                                  "original prompt was refreshed; edits were kept"))
        log.counts["updated"] += 1

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
