"""Where fetched bodies go: a URL's file in the cache (or the download folder), and
whether a cache entry may answer for a fetch (ADR 183).

A body is written to ``<folder>/<sha[:2]>/<sha>`` (the SHA-256 of its URL).  Without
permission for private networks a cache entry serves only if its download went through
the network guard, which the empty ``<entry>.guarded`` file beside it records; an entry
that no longer checks out as an image (or is over the size cap) is deleted.  Used by
:mod:`core.ingest.fetch`.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from pathlib import Path
from typing import Protocol

from core.ingest.images import ImageError, ImageInfo, inspect_image

log = logging.getLogger(__name__)


class CacheSettings(Protocol):
    """What of :class:`core.ingest.fetch.FetchSettings` the cache reads."""

    cache_dir: Path | None
    download_dir: Path | None
    max_bytes: int
    max_pixels: int
    allow_private_network: bool


def body_path(s: CacheSettings, url: str) -> Path:
    """The file a URL's body is written to: its cache entry, or a name in ``download_dir``."""
    folder = s.cache_dir if s.cache_dir is not None else s.download_dir
    if folder is None:
        raise ValueError("FetchSettings needs cache_dir or download_dir: bodies go to disk")
    key = hashlib.sha256(url.encode("utf-8", "surrogatepass")).hexdigest()
    return Path(folder) / key[:2] / key


def guard_mark(path: Path) -> Path:
    """The empty file beside a cache entry saying its download went through the network
    guard (every hop checked, private networks not allowed)."""
    return path.with_name(path.name + ".guarded")


def _cache_serves(path: Path, s: CacheSettings) -> bool:
    """Whether the cache entry at ``path`` may answer for ``s``: always with private
    networks allowed; without, only an entry the guard checked (ADR 183)."""
    return s.allow_private_network or guard_mark(path).is_file()


def mark_guarded(path: Path, s: CacheSettings) -> None:
    """Record that the entry at ``path`` was just downloaded through the guard."""
    if s.allow_private_network:
        return
    try:
        guard_mark(path).touch()
    except OSError as exc:  # unmarked: fetched again next time, never served wrongly
        log.info("cannot mark cached image %s: %s", path, exc)


def cache_hit(path: Path, s: CacheSettings) -> ImageInfo | None:
    """The info of a cache entry ``s`` may be served, or None."""
    return _cache_load(path, s) if _cache_serves(path, s) else None


def _cache_load(path: Path, s: CacheSettings) -> ImageInfo | None:
    """The info of a valid cached body, or None; an invalid entry is deleted."""
    try:
        if path.stat().st_size > s.max_bytes:
            raise ImageError("cached file over the size limit")
        return inspect_image(path, max_pixels=s.max_pixels)
    except FileNotFoundError:
        return None
    except (OSError, ImageError) as exc:
        log.info("discarding cached image %s: %s", path, exc)
        with contextlib.suppress(OSError):
            path.unlink()
        return None
