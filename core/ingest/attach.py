"""Phase 3 of an import: find every image a touched post or sample references, fetch or
read it, validate it, store it by hash and link it; failures go on the rows and in the
report.

Local paths are confined to one folder, the JSONL file's unless the caller names
another (``image_root``): the path is resolved (symlinks included) *before* anything is
opened, and a refusal reads the same whether the file exists or not, and never quotes
its contents (ADR 001).  Bodies stay on disk from download to asset store: memory does
not grow with the size or the number of images.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.files import new_temp_dir
from core.ingest.fetch import FetchSettings, fetch_images_sync
from core.ingest.images import ImageError, ImageInfo, inspect_local_image
from core.jobs import JobState
from core.store.assets import AssetChangedError, clean_sharded
from core.store.project import Project, now_iso

#: (file on disk, what it is) or an error message, per source.
Outcome = tuple[Path, ImageInfo] | str


class LocalRoot:
    """Where local image paths may point: one folder, after resolving symlinks."""

    def __init__(self, base: Path, root: Path | None = None) -> None:
        self.base = Path(base)
        self.named = root is not None
        self.root = Path(os.path.realpath(root if root is not None else base))

    def resolve(self, source: str) -> Path:
        """The real file ``source`` (relative to the JSONL's folder) names, or ImageError."""
        if "\x00" in source:  # os.path.realpath raised ValueError, ending the whole import
            raise ImageError("refused: a file path cannot hold a NUL character")
        real = Path(os.path.realpath(self.base / source))
        if real != self.root and self.root not in real.parents:
            where = (f"the image folder {self.root}" if self.named
                     else "the JSONL file's folder")
            raise ImageError(f"refused: local images must be inside {where} (a path outside it "
                             "is never opened; pass --image-root to allow another folder)")
        return real


def pending_sources(project: Project) -> set[str]:
    """Image sources of the posts and samples this import touched that have no image yet."""
    conn = project.conn
    found = {row[0] for row in conn.execute(
        "SELECT DISTINCT url FROM post_images JOIN touched_posts t ON t.id = post_id "
        "WHERE sha256 IS NULL")}
    found |= {row[0] for row in conn.execute(
        "SELECT DISTINCT ref FROM sample_images JOIN touched_samples t ON t.id = sample_id "
        "WHERE sha256 IS NULL AND ref IS NOT NULL")}
    return found


def attach_images(project: Project, state: JobState, local: LocalRoot,
                  fetch_settings: FetchSettings | None,
                  record: Callable[[str, str | None], None]) -> None:
    """Fetch or read every pending source and store it; ``record(source, error)`` once each."""
    pending = pending_sources(project)
    if not pending:
        return
    urls = sorted(s for s in pending if s.lower().startswith(("http://", "https://")))
    paths = sorted(pending - set(urls))
    settings = fetch_settings or FetchSettings(cache_dir=project.assets.root / ".http-cache")
    spool: Path | None = None
    try:
        outcomes: dict[str, Outcome] = {}
        if urls:
            if settings.cache_dir is not None:
                clean_sharded(Path(settings.cache_dir))  # a killed run's partial bodies
            if settings.cache_dir is None and settings.download_dir is None:
                project.assets.root.mkdir(parents=True, exist_ok=True)
                spool = new_temp_dir(project.assets.root, "downloads")
                settings = dataclasses.replace(settings, download_dir=spool)
            state.set_status(f"Fetching {len(urls)} image(s)")
            for url, res in fetch_images_sync(urls, settings, state=state).items():
                if res.ok and res.path is not None and res.info is not None:
                    outcomes[url] = (res.path, res.info)
                else:
                    outcomes[url] = res.error or "unknown error"
        if paths:
            state.set_status(f"Reading {len(paths)} local image(s)")
            for source in paths:
                state.check()
                outcomes[source] = _read_local(local, source, settings.max_bytes,
                                               settings.max_pixels)
        _store(project, state, outcomes, record)
    finally:
        if spool is not None:
            shutil.rmtree(spool, ignore_errors=True)  # our own temporary folder


def _read_local(local: LocalRoot, source: str, max_bytes: int, max_pixels: int) -> Outcome:
    if "://" in source:
        return "only http(s) URLs and local paths are supported"
    try:
        real = local.resolve(source)
        return real, inspect_local_image(real, max_bytes=max_bytes, max_pixels=max_pixels,
                                         name=source)
    except ImageError as exc:
        return str(exc)


def _store(project: Project, state: JobState, outcomes: dict[str, Outcome],
           record: Callable[[str, str | None], None]) -> None:
    """Store the images read and point the touched posts' and samples' rows at them.

    The rows are updated set-wise from a temporary table of outcomes: an ``UPDATE`` per
    image searched every touched sample's rows (30,000 images × 30,000 samples).
    """
    state.set_status("Storing images")
    with project.transaction() as conn:
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS attach_outcomes(source TEXT PRIMARY KEY, "
                     "sha256 TEXT, error TEXT, width INTEGER, height INTEGER)")
        conn.execute("DELETE FROM attach_outcomes")
        for source, outcome in sorted(outcomes.items()):
            error: str | None
            sha: str | None = None
            width = height = None
            if isinstance(outcome, str):
                error = outcome
            else:
                path, info = outcome
                try:
                    sha, stored = project.assets.put_file(path, info.ext)
                    conn.execute(
                        "INSERT OR IGNORE INTO images(sha256, ext, mime, width, height, bytes, "
                        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (sha, info.ext, info.mime, info.width, info.height,
                         stored.stat().st_size, now_iso()))
                    error, width, height = None, info.width, info.height
                except (AssetChangedError, OSError) as exc:
                    sha, error = None, f"cannot be stored: {_os_message(exc)}"
            record(source, error)
            conn.execute("INSERT INTO attach_outcomes VALUES (?, ?, ?, ?, ?)",
                         (source, sha, error, width, height))
        conn.execute(
            "UPDATE post_images SET sha256 = o.sha256, error = o.error FROM attach_outcomes o "
            "WHERE post_images.url = o.source AND post_images.sha256 IS NULL "
            "AND post_images.post_id IN (SELECT id FROM touched_posts)")
        conn.execute(
            "UPDATE sample_images SET sha256 = o.sha256, error = o.error FROM attach_outcomes o "
            "WHERE sample_images.ref = o.source AND sample_images.sha256 IS NULL "
            "AND sample_images.sample_id IN (SELECT id FROM touched_samples)")
        _crops_already(conn)
        conn.execute("DELETE FROM attach_outcomes")


def _crops_already(conn: Any) -> None:
    """Drop the boxes of images stored now that are their image's size but lie partly
    outside it: the image is that crop already, the box says where it came from
    (Winnow's benchmark export writes crops so, ADR 030/194); cropping it again would
    leave nothing."""
    conn.execute(
        "UPDATE sample_images SET bbox_x = NULL, bbox_y = NULL, bbox_w = NULL, bbox_h = NULL "
        "FROM attach_outcomes o WHERE sample_images.ref = o.source "
        "AND sample_images.sha256 = o.sha256 "
        "AND sample_images.sample_id IN (SELECT id FROM touched_samples) "
        "AND sample_images.bbox_w = o.width AND sample_images.bbox_h = o.height "
        "AND (sample_images.bbox_x > 0 OR sample_images.bbox_y > 0)")


def boxes_off_images(conn: Any) -> list[tuple[str, str, str, list[int], int, int]]:
    """The boxes of the touched samples that lie wholly outside their stored image, as
    (sample, role, ref, [x, y, w, h], width, height): an export cuts nothing from them
    and leaves the sample out (ADR 205)."""
    rows = conn.execute(
        "SELECT si.sample_id, si.role, si.ref, si.bbox_x, si.bbox_y, si.bbox_w, si.bbox_h, "
        "i.width, i.height FROM sample_images si JOIN images i ON i.sha256 = si.sha256 "
        "WHERE si.sample_id IN (SELECT id FROM touched_samples) AND si.bbox_w IS NOT NULL "
        "AND i.width > 0 AND i.height > 0 AND (si.bbox_x >= i.width OR si.bbox_y >= i.height "
        "OR si.bbox_x + si.bbox_w <= 0 OR si.bbox_y + si.bbox_h <= 0) "
        "ORDER BY si.sample_id, si.role, si.position").fetchall()
    return [(r[0], r[1], r[2] or "", [r[3], r[4], r[5], r[6]], r[7], r[8]) for r in rows]


def _os_message(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__
