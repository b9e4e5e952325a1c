"""Where an export folder comes from: built hidden, marked, then renamed into place.

The one function the lead swaps for the shared export-ownership code at merge is
:func:`publish_export_dir`; :func:`check_export_target` is its up-front twin, so a run
that would be refused is refused before any work is done.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

from core import __version__
from core.files import clean_stale_temps, fsync_dir, new_temp_dir, write_text

MARKER = ".winnow-export.json"


def check_export_target(out: Path) -> None:
    """Refuse ``out`` unless it does not exist or is an empty folder (FileExistsError)."""
    if out.is_symlink():
        raise FileExistsError(f"{out} is a symbolic link; choose a new or empty folder")
    if not out.exists():
        return
    if not out.is_dir():
        raise FileExistsError(f"{out} exists and is not a folder")
    if any(out.iterdir()):
        raise FileExistsError(f"{out} already exists and is not empty; Winnow does not "
                              "replace it (choose a new or empty folder)")


def start_export_dir(out: Path) -> Path:
    """Check ``out``, clean what killed runs left beside it, and make the hidden build folder."""
    out = Path(out)
    check_export_target(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_temps(out.parent)
    return new_temp_dir(out.parent, out.name)


def publish_export_dir(tmp: Path, out: Path, kind: str, files: list[str],
                       extra: dict[str, Any] | None = None) -> None:
    """Write the marker listing ``files`` into ``tmp`` and rename ``tmp`` to ``out``.

    ``out`` must not exist or be an empty folder (a POSIX rename replaces an empty folder
    atomically and fails on a non-empty one); anything else is FileExistsError and
    ``tmp`` is left for the caller to remove.
    """
    from core.store.project import now_iso

    marker = {"written_by": f"winnow {__version__}", "kind": kind, "created_at": now_iso(),
              "files": sorted([*files, MARKER]), **(extra or {})}
    write_text(tmp / MARKER, json.dumps(marker, indent=2, ensure_ascii=False) + "\n")
    for folder in sorted({(tmp / f).parent for f in files}, reverse=True):
        fsync_dir(folder)
    fsync_dir(tmp)
    check_export_target(out)
    try:
        if os.name == "nt" and out.is_dir():  # pragma: no cover - Windows renames never replace
            out.rmdir()
        os.rename(tmp, out)
    except OSError as exc:
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
            raise FileExistsError(f"{out} appeared while exporting and is not empty; "
                                  "nothing was replaced") from exc
        raise
    fsync_dir(out.parent)
