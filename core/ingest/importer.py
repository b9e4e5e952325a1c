"""Import a JSON Lines file of posts and samples into a project.

Three phases, each committed in batches so a crash loses at most one batch:

1. posts (and the raw posts embedded in sample lines), streamed;
2. samples, whose posts now exist;
3. images: every referenced URL or local path not yet in the asset store is
   fetched (httpx, bounded concurrency) or read, validated, stored by hash, and
   linked; failures are recorded on the image row and in the report.

A bad line never stops the import; the report names it and says why.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.ingest.records import (
    PostRecord,
    RecordError,
    SampleRecord,
    is_sample,
    parse_post,
    parse_sample,
)
from core.jobs import JobState
from core.store.project import Project, now_iso

MAX_LINE_BYTES = 16 * 2**20
MAX_REPORTED_ERRORS = 10_000


@dataclass
class ImportReport:
    """What an import did; ``to_json()`` is the CLI's ``--json`` output."""

    source: str = ""
    imported: int = 0
    updated: int = 0
    unchanged: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)
    images_fetched: int = 0
    images_failed: int = 0
    image_errors: list[dict[str, Any]] = field(default_factory=list)
    suppressed_errors: int = 0

    def error(self, line: int, message: str) -> None:
        """Record a failing line (the list is capped; the count is not)."""
        if len(self.errors) < MAX_REPORTED_ERRORS:
            self.errors.append({"line": line, "error": message})
        else:
            self.suppressed_errors += 1

    def to_json(self) -> dict[str, Any]:
        """The machine-readable report (keys fixed by the CLI contract)."""
        data: dict[str, Any] = {
            "imported": self.imported,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "errors": self.errors,
            "images": {"fetched": self.images_fetched, "failed": self.images_failed,
                       "errors": self.image_errors},
        }
        if self.notes:
            data["notes"] = self.notes
        if self.suppressed_errors:
            data["errors_not_listed"] = self.suppressed_errors
        return data

    def summary(self) -> str:
        """One human line."""
        n_err = len(self.errors) + self.suppressed_errors
        return (f"{self.imported} imported, {self.updated} updated, {self.unchanged} unchanged, "
                f"{n_err} line(s) with errors; images: {self.images_fetched} stored, "
                f"{self.images_failed} failed")


def import_jsonl(project: Project, path: str | Path, *, fetch_settings: Any = None,
                 state: JobState | None = None, fetch_images: bool = True,
                 batch_size: int = 2000) -> ImportReport:
    """Import ``path`` into ``project``; see the module docstring."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder, not a JSON Lines file")
    state = state or JobState(title=f"Import {path.name}")
    importer = _Importer(project, path, state, batch_size)
    importer.run(fetch_images, fetch_settings)
    return importer.report


class _Importer:
    def __init__(self, project: Project, path: Path, state: JobState, batch_size: int) -> None:
        self.project = project
        self.conn = project.conn
        self.path = path
        self.base = path.parent
        self.state = state
        self.batch_size = batch_size
        self.report = ImportReport(source=str(path))
        self.created: set[str] = set()           # post ids created by this run
        self.source_lines: dict[str, set[int]] = defaultdict(set)
        self.conn.execute("CREATE TEMP TABLE IF NOT EXISTS touched_posts(id TEXT PRIMARY KEY)")
        self.conn.execute("CREATE TEMP TABLE IF NOT EXISTS touched_samples(id TEXT PRIMARY KEY)")
        self.conn.execute("DELETE FROM touched_posts")
        self.conn.execute("DELETE FROM touched_samples")

    # -- driver ------------------------------------------------------------------------
    def run(self, fetch_images: bool, fetch_settings: Any) -> None:
        samples: list[tuple[int, SampleRecord]] = []
        batch: list[tuple[int, list[PostRecord], bool]] = []
        self.state.set_status(f"Reading {self.path.name}")
        self.state.set_total(max(1, self.path.stat().st_size))
        read = 0
        with open(self.path, "rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                read += len(raw)
                if lineno % 500 == 0:
                    self.state.check()
                    self.state.set_progress(read)
                parsed = self._parse_line(lineno, raw)
                if parsed is None:
                    continue
                if isinstance(parsed, SampleRecord):
                    samples.append((lineno, parsed))
                    if parsed.posts:
                        batch.append((lineno, parsed.posts, False))
                else:
                    batch.append((lineno, parsed, True))
                if len(batch) >= self.batch_size:
                    self._write_posts(batch)
                    batch = []
        self._write_posts(batch)
        self.state.set_progress(read)
        self.state.set_status("Writing samples")
        for start in range(0, len(samples), self.batch_size):
            self.state.check()
            self._write_samples(samples[start:start + self.batch_size])
        if fetch_images:
            self._resolve_images(fetch_settings)

    def _parse_line(self, lineno: int, raw: bytes) -> SampleRecord | list[PostRecord] | None:
        if len(raw) > MAX_LINE_BYTES:
            self.report.error(lineno, f"line is too long ({len(raw):,} bytes; the limit is "
                                      f"{MAX_LINE_BYTES:,})")
            return None
        if not raw.strip():
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.report.error(lineno, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at "
                                      f"position {exc.start})")
            return None
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            self.report.error(lineno, f"invalid JSON: {exc.msg} (column {exc.colno})")
            return None
        except RecursionError:
            self.report.error(lineno, "invalid JSON: nested too deeply")
            return None
        if not isinstance(obj, dict):
            self.report.error(lineno, f"expected a JSON object, got {type(obj).__name__}")
            return None
        try:
            return parse_sample(obj) if is_sample(obj) else parse_post(obj)
        except RecordError as exc:
            self.report.error(lineno, str(exc))
            return None
        except RecursionError:
            self.report.error(lineno, "replies are nested too deeply")
            return None

    # -- phase 1: posts ----------------------------------------------------------------------
    def _write_posts(self, batch: list[tuple[int, list[PostRecord], bool]]) -> None:
        if not batch:
            return
        ids = list({p.id for _, posts, _ in batch for p in posts})
        stamp = now_iso()
        with self.project.transaction() as conn:
            existing = dict(self._select_in("SELECT id, raw_hash FROM posts WHERE id IN ", ids))
            stored = set(existing)  # ids whose rows exist in the file before this batch
            pending: dict[str, PostRecord] = {}
            for lineno, posts, counts in batch:
                main, context = posts[0], posts[1:]
                status = self._stage_post(main, existing, pending, authoritative=True)
                for reply in context:
                    self._stage_post(reply, existing, pending, authoritative=False)
                if counts:
                    self._count(status)
                for post in posts:
                    for source, _alt in post.images:
                        self.source_lines[source].add(lineno)
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
            conn.executemany("DELETE FROM post_images WHERE post_id = ?",
                             [(pid,) for pid in changed])
            conn.executemany(
                "INSERT INTO post_images(post_id, position, url, alt) VALUES (?, ?, ?, ?)",
                [(pid, k, url, alt) for pid, p in pending.items()
                 for k, (url, alt) in enumerate(p.images)])
            conn.executemany("INSERT OR IGNORE INTO touched_posts(id) VALUES (?)",
                             [(i,) for i in ids])

    def _stage_post(self, post: PostRecord, existing: dict[str, str],
                    pending: dict[str, PostRecord], authoritative: bool) -> str:
        """Decide what happens to ``post``; rows are written per batch by the caller."""
        old_hash = existing.get(post.id)
        if old_hash is not None and (old_hash == post.raw_hash or not authoritative):
            return "unchanged"
        pending[post.id] = post
        existing[post.id] = post.raw_hash
        if old_hash is None:
            self.created.add(post.id)
            return "imported"
        return "imported" if post.id in self.created else "updated"

    def _count(self, status: str) -> None:
        setattr(self.report, status, getattr(self.report, status) + 1)

    # -- phase 2: samples --------------------------------------------------------------------
    def _write_samples(self, batch: list[tuple[int, SampleRecord]]) -> None:
        ids = [s.id for _, s in batch]
        post_ids = list({s.post_id for _, s in batch if s.post_id})
        with self.project.transaction() as conn:
            existing = dict(self._select_in("SELECT id, raw_hash FROM samples WHERE id IN ", ids))
            curated = {row[0] for row in self._select_in(
                "SELECT DISTINCT entity_id FROM audit_log WHERE entity = 'sample' AND "
                "action = 'edit' AND entity_id IN ", ids)}
            known_posts = {row[0] for row in self._select_in(
                "SELECT id FROM posts WHERE id IN ", post_ids)}
            for lineno, sample in batch:
                if sample.post_id and sample.post_id not in known_posts:
                    self.report.error(lineno, f"post '{sample.post_id}' is not in the project "
                                              "(import the post first, or embed it as 'post')")
                    continue
                try:
                    roles = self._roles(conn, sample)
                except RecordError as exc:
                    self.report.error(lineno, str(exc))
                    continue
                for _role, _pos, ref, _box in roles:
                    if ref is not None:
                        self.source_lines[ref].add(lineno)
                old = existing.get(sample.id)
                if old == sample.raw_hash:
                    self._count("unchanged")
                elif old is None:
                    self._insert_sample(conn, sample, roles, lineno)
                    self._count("imported")
                elif sample.id in curated:
                    self._refresh_curated(conn, sample, lineno)
                    self._count("updated")
                else:
                    self._replace_sample(conn, sample, roles, lineno)
                    self._count("updated")
                existing[sample.id] = sample.raw_hash
            conn.executemany("INSERT OR IGNORE INTO touched_samples(id) VALUES (?)",
                             [(i,) for i in ids])

    def _roles(self, conn: Any, sample: SampleRecord) -> list[tuple[str, int, str | None, Any]]:
        """(role, position, source reference, box) rows for a sample's images."""
        rows: list[tuple[str, int, str | None, Any]] = []
        for role, refs, boxes in (("input", sample.inputs, sample.input_boxes),
                                  ("output", sample.outputs, sample.output_boxes)):
            resolved = [self._resolve_ref(conn, sample, ref, role, k)
                        for k, ref in enumerate(refs)]
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

    def _resolve_ref(self, conn: Any, sample: SampleRecord, ref: str | int, role: str,
                     k: int) -> str:
        if isinstance(ref, str):
            return ref
        row = conn.execute("SELECT url FROM post_images WHERE post_id = ? AND position = ?",
                           (sample.post_id, ref)).fetchone()
        if row is None:
            raise RecordError(f"'{role}_images[{k}]' refers to image {ref} of post "
                              f"'{sample.post_id}', which has no such image")
        return str(row[0])

    def _insert_sample(self, conn: Any, s: SampleRecord, roles: list[Any], lineno: int,
                       action: str = "import") -> None:
        stamp = now_iso()
        conn.execute(
            "INSERT INTO samples(id, post_id, prompt, original_prompt, quality, split, "
            "is_screenshot, notes, raw, raw_hash, created_at, modified_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (s.id, s.post_id, s.prompt_edited if s.prompt_edited is not None else s.prompt,
             s.prompt, s.quality, s.split, int(s.is_screenshot), s.notes,
             json.dumps(s.raw, ensure_ascii=False), s.raw_hash, stamp, stamp))
        self._insert_children(conn, s, roles)
        self.project.audit(action, "sample", s.id,
                           new={"file": self.path.name, "line": lineno})

    def _insert_children(self, conn: Any, s: SampleRecord, roles: list[Any]) -> None:
        conn.executemany(
            "INSERT INTO sample_images(sample_id, role, position, ref, bbox_x, bbox_y, bbox_w, "
            "bbox_h) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(s.id, role, pos, ref, *(box or (None, None, None, None)))
             for role, pos, ref, box in roles])
        conn.executemany("INSERT INTO feedback(sample_id, position, post_id, text) "
                         "VALUES (?, ?, ?, ?)",
                         [(s.id, k, pid, text) for k, (pid, text) in enumerate(s.feedback)])
        conn.executemany("INSERT INTO sample_tags(sample_id, tag) VALUES (?, ?)",
                         [(s.id, tag) for tag in s.tags])

    def _replace_sample(self, conn: Any, s: SampleRecord, roles: list[Any],
                        lineno: int) -> None:
        """Re-import an uncurated sample in place (its id stays; children are rebuilt)."""
        for table in ("sample_images", "feedback", "sample_tags"):
            conn.execute(f"DELETE FROM {table} WHERE sample_id = ?", (s.id,))
        conn.execute(
            "UPDATE samples SET post_id=?, prompt=?, original_prompt=?, quality=?, split=?, "
            "is_screenshot=?, notes=?, raw=?, raw_hash=?, modified_at=? WHERE id=?",
            (s.post_id, s.prompt_edited if s.prompt_edited is not None else s.prompt, s.prompt,
             s.quality, s.split, int(s.is_screenshot), s.notes,
             json.dumps(s.raw, ensure_ascii=False), s.raw_hash, now_iso(), s.id))
        self._insert_children(conn, s, roles)
        self.project.audit("reimport", "sample", s.id, new={"file": self.path.name,
                                                             "line": lineno})

    def _refresh_curated(self, conn: Any, s: SampleRecord, lineno: int) -> None:
        old = conn.execute("SELECT original_prompt FROM samples WHERE id = ?",
                           (s.id,)).fetchone()[0]
        conn.execute("UPDATE samples SET original_prompt = ?, raw = ?, raw_hash = ? WHERE id = ?",
                      (s.prompt, json.dumps(s.raw, ensure_ascii=False), s.raw_hash, s.id))
        if old != s.prompt:
            self.project.audit("reimport", "sample", s.id, "original_prompt", old, s.prompt)
        self.report.notes.append({
            "line": lineno,
            "note": f"sample '{s.id}' has curator edits: only its original prompt was "
                    "refreshed; edits were kept"})

    # -- phase 3: images -----------------------------------------------------------------------
    def _resolve_images(self, fetch_settings: Any) -> None:
        pending = {row[0] for row in self.conn.execute(
            "SELECT DISTINCT url FROM post_images JOIN touched_posts t ON t.id = post_id "
            "WHERE sha256 IS NULL")}
        pending |= {row[0] for row in self.conn.execute(
            "SELECT DISTINCT ref FROM sample_images JOIN touched_samples t ON t.id = sample_id "
            "WHERE sha256 IS NULL AND ref IS NOT NULL")}
        if not pending:
            return
        urls = sorted(s for s in pending if s.lower().startswith(("http://", "https://")))
        local = sorted(pending - set(urls))
        results: dict[str, tuple[bytes | None, Any, str | None]] = {}
        if urls:
            from core.ingest.fetch import FetchSettings, fetch_images_sync

            settings = fetch_settings or FetchSettings(
                cache_dir=self.project.assets.root / ".http-cache")
            self.state.set_status(f"Fetching {len(urls)} image(s)")
            for url, res in fetch_images_sync(urls, settings, state=self.state).items():
                results[url] = (res.data, res.info, res.error)
        if local:
            self._read_local(local, results)
        self._store_images(results)

    def _read_local(self, sources: list[str], results: dict[str, Any]) -> None:
        from core.ingest.fetch import FetchSettings
        from core.ingest.images import ImageError, read_local_image

        max_bytes = FetchSettings().max_bytes
        self.state.set_status(f"Reading {len(sources)} local image(s)")
        for source in sources:
            self.state.check()
            if "://" in source:
                results[source] = (None, None, "only http(s) URLs and local paths are "
                                               "supported")
                continue
            target = Path(source) if Path(source).is_absolute() else self.base / source
            try:
                data, info = read_local_image(target, max_bytes=max_bytes)
                results[source] = (data, info, None)
            except (ImageError, OSError) as exc:
                results[source] = (None, None, str(exc))

    def _store_images(self, results: dict[str, tuple[bytes | None, Any, str | None]]) -> None:
        self.state.set_status("Storing images")
        with self.project.transaction() as conn:
            for source, (data, info, error) in sorted(results.items()):
                if data is not None and info is not None:
                    sha, _ = self.project.assets.put(data, info.ext)
                    conn.execute(
                        "INSERT OR IGNORE INTO images(sha256, ext, mime, width, height, bytes, "
                        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (sha, info.ext, info.mime, info.width, info.height, len(data), now_iso()))
                    self.report.images_fetched += 1
                    sha_value, err_value = sha, None
                else:
                    self.report.images_failed += 1
                    lines = sorted(self.source_lines.get(source, ()))
                    self.report.image_errors.append(
                        {"url": source, "lines": lines, "error": error or "unknown error"})
                    sha_value, err_value = None, error or "unknown error"
                conn.execute(
                    "UPDATE post_images SET sha256 = ?, error = ? WHERE url = ? AND sha256 IS NULL "
                    "AND post_id IN (SELECT id FROM touched_posts)", (sha_value, err_value, source))
                conn.execute(
                    "UPDATE sample_images SET sha256 = ?, error = ? WHERE ref = ? AND sha256 IS NULL "
                    "AND sample_id IN (SELECT id FROM touched_samples)",
                    (sha_value, err_value, source))

    # -- helpers ---------------------------------------------------------------------------
    def _select_in(self, sql: str, values: list[str]) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = []
        for start in range(0, len(values), 900):
            chunk = values[start:start + 900]
            if chunk:
                marks = ",".join("?" * len(chunk))
                rows.extend(self.conn.execute(f"{sql}({marks})", chunk).fetchall())
        return rows


def _dump(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)
