"""Folders for atomic exports: built under a temporary name, then renamed into place."""

from __future__ import annotations

import secrets
from pathlib import Path


def new_temp_dir(parent: Path, prefix: str) -> Path:
    """A new empty folder in ``parent`` with the permissions of any folder the user makes.

    ``tempfile.mkdtemp`` creates it private (0700), and the rename would carry that onto
    the export, so collaborators could not open it; ``os.mkdir`` honours the umask.
    """
    for _ in range(100):
        path = parent / f"{prefix}{secrets.token_hex(4)}"
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"cannot create a temporary folder in {parent}")
