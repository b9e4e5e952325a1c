"""Content-addressed image store beside a project file.

Each file is stored once under ``<root>/<sha[:2]>/<sha>.<ext>``, written atomically through
:mod:`core.files` and made read-only: assets are never modified in place.  A run that is
killed while storing leaves only :mod:`core.files` temporary names, which
:meth:`AssetStore.clean_stale` removes on the next run.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

from core.files import atomic_writer, clean_stale_temps, write_bytes

_READ_ONLY = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH
_CHUNK = 1 << 20
#: ``tempfile.mkstemp(prefix=".incoming-")`` names left by Winnow 0.1's asset writer.
_LEGACY_TEMP = re.compile(r"\.incoming-[a-z0-9_]{8}")
_SHARD = re.compile(r"[0-9a-f]{2}")


class AssetChangedError(OSError):
    """A source file changed while it was being copied into the store."""


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


class AssetStore:
    """A folder of immutable files named by their SHA-256."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, sha256: str, ext: str) -> Path:
        """Where the asset with this hash and extension lives."""
        return self.root / sha256[:2] / f"{sha256}.{ext.lstrip('.')}"

    def find(self, sha256: str) -> Path | None:
        """The stored file for ``sha256`` whatever its extension, or None."""
        folder = self.root / sha256[:2]
        if not folder.is_dir():
            return None
        for candidate in folder.glob(f"{sha256}.*"):
            return candidate
        return None

    def put(self, data: bytes, ext: str) -> tuple[str, Path]:
        """Store ``data`` (if not already there); return its hash and path."""
        digest = sha256_bytes(data)
        target = self.path(digest, ext)
        if target.exists():
            return digest, target
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            write_bytes(target, data)
        except FileExistsError:  # stored meanwhile by another writer: same bytes
            return digest, target
        os.chmod(target, _READ_ONLY)
        return digest, target

    def put_file(self, source: Path, ext: str) -> tuple[str, Path]:
        """Store a file already on disk (streamed: memory does not grow with its size).

        The file is hashed, then copied while hashed again; if the two hashes differ
        (the file changed meanwhile) nothing is stored and :class:`AssetChangedError`
        is raised.
        """
        digest = sha256_file(source)
        target = self.path(digest, ext)
        if target.exists():
            return digest, target
        target.parent.mkdir(parents=True, exist_ok=True)
        check = hashlib.sha256()
        try:
            with atomic_writer(target) as out, open(source, "rb") as src:
                while chunk := src.read(_CHUNK):
                    check.update(chunk)
                    out.write(chunk)
                if check.hexdigest() != digest:
                    raise AssetChangedError(f"{source} changed while it was being stored")
        except FileExistsError:
            return digest, target
        os.chmod(target, _READ_ONLY)
        return digest, target

    def clean_stale(self) -> list[Path]:
        """Remove what killed runs left in the store: :mod:`core.files` temporaries of
        processes that no longer run, and Winnow 0.1's ``.incoming-*`` files.

        Call it only while holding the project's write lock (no other writer can be
        storing then, so an ``.incoming-*`` file cannot belong to a live run).
        """
        return clean_sharded(self.root, legacy=True)


def clean_sharded(folder: Path, legacy: bool = False) -> list[Path]:
    """:func:`core.files.clean_stale_temps` on ``folder`` and its ``xx/`` shard folders
    (the asset store, the HTTP cache); with ``legacy`` also ``.incoming-*`` files."""
    removed = clean_stale_temps(folder)
    try:
        shards = [e for e in os.scandir(folder)
                  if _SHARD.fullmatch(e.name) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return removed
    for shard in shards:
        removed += clean_stale_temps(shard.path)
        if not legacy:
            continue
        try:
            old = [e for e in os.scandir(shard.path) if _LEGACY_TEMP.fullmatch(e.name)
                   and e.is_file(follow_symlinks=False)]
        except OSError:
            continue
        for entry in old:
            try:
                os.unlink(entry.path)
            except OSError:
                continue
            removed.append(Path(entry.path))
    return removed
