"""Content-addressed image store beside a project file.

Each file is stored once under ``<root>/<sha[:2]>/<sha>.<ext>``, written atomically
(temp file + rename) and made read-only: assets are never modified in place.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


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
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".incoming-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return digest, target
