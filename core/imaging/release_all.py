"""Release every reviewed photo into one folder (the workspace's "Release all reviewed…").

One photo at a time through :func:`core.imaging.release.release_photo`: the same
rendering, metadata check and face verification as a single release.  A photo that
fails (refused by verification, unreadable original, disk error) is recorded by name
and the rest go on; cancellation takes effect between photos.  Photos still "new"
are skipped and photos already released are left as they are (see ADR 045).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from core.imaging.detect import DetectSettings
from core.jobs import Cancelled

MAX_NAMES = 20  # names listed per group in the summary


@dataclass
class BulkRelease:
    """What a bulk release did so far (filled in as it goes, so a cancel keeps it)."""

    out_dir: str
    total: int = 0
    released: list[tuple[str, str]] = field(default_factory=list)  # (photo, file written)
    renamed: list[tuple[str, str]] = field(default_factory=list)  # (photo, file name used)
    skipped: list[str] = field(default_factory=list)  # not reviewed
    already: list[str] = field(default_factory=list)  # released before, left alone
    failed: list[tuple[str, str]] = field(default_factory=list)  # (photo, reason)
    cancelled: bool = False

    def summary(self) -> str:
        """A plain-text account for the user, naming every photo that needs attention."""
        done = len(self.released)
        noun = "photo" if done == 1 else "photos"
        lines = [f"Released {done} {noun} into {self.out_dir}."]
        if self.cancelled:
            left = self.total - done - len(self.failed)
            lines[0] = (f"Cancelled: released {done} of {self.total} reviewed photos into "
                        f"{self.out_dir}; {left} not released.")
        if self.failed:
            lines.append(f"\nFailed {len(self.failed)} (nothing written for them):")
            lines += _listed(f"{name}: {reason}" for name, reason in self.failed)
        if self.skipped:
            lines.append(f"\nSkipped {len(self.skipped)} not marked reviewed:")
            lines += _listed(self.skipped)
        if self.already:
            lines.append(f"\nLeft {len(self.already)} already released (release one again "
                         "with Release, Ctrl+R):")
            lines += _listed(self.already)
        if self.renamed:
            lines.append(f"\nWritten under another name because the file already "
                         f"existed ({len(self.renamed)}):")
            lines += _listed(f"{name} → {used}" for name, used in self.renamed)
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """Plain dict (for logs and scripts)."""
        return {"out_dir": self.out_dir, "total": self.total,
                "released": [{"photo": p, "file": f} for p, f in self.released],
                "renamed": [{"photo": p, "file": f} for p, f in self.renamed],
                "skipped": self.skipped, "already_released": self.already,
                "failed": [{"photo": p, "error": e} for p, e in self.failed],
                "cancelled": self.cancelled}


def _listed(items: Any) -> list[str]:
    items = list(items)
    out = [f"  • {item}" for item in items[:MAX_NAMES]]
    if len(items) > MAX_NAMES:
        out.append(f"  … and {len(items) - MAX_NAMES} more")
    return out


def release_all(project: Any, out_dir: str | os.PathLike[str],
                settings: DetectSettings | None = None, state: Any = None,
                report: BulkRelease | None = None) -> BulkRelease:
    """Release every photo marked reviewed into ``out_dir``; returns the report.

    Pass ``report`` to watch it fill in (it also holds the partial result when the job
    is cancelled: :class:`core.jobs.Cancelled` is re-raised after marking it).
    """
    from core.extras import require
    from core.imaging import photos as repo
    from core.imaging.release import ReleaseRefused, release_photo, release_stem

    require("anonymize", "Releasing anonymized photos")
    settings = settings or DetectSettings()
    report = report if report is not None else BulkRelease(str(out_dir))
    todo = []
    for photo in repo.list_photos(project):
        if photo.status == "reviewed":
            todo.append(photo)
        elif photo.status == "released":
            report.already.append(photo.file_name)
        else:
            report.skipped.append(photo.file_name)
    report.total = len(todo)
    if state is not None:
        state.set_total(len(todo))
    for photo in todo:
        try:
            if state is not None:
                state.check()
                state.set_status(photo.file_name)
            path, _verification = release_photo(project, photo.id, out_dir, settings)
        except Cancelled:
            report.cancelled = True
            raise
        except ReleaseRefused as exc:
            report.failed.append((photo.file_name, reason_without_name(str(exc), photo.file_name)))
        except Exception as exc:  # noqa: BLE001 - one bad photo must not stop the rest
            report.failed.append((photo.file_name, reason_without_name(str(exc), photo.file_name)
                                  or type(exc).__name__))
        else:
            report.released.append((photo.file_name, str(path)))
            if path.name != f"{release_stem(photo)}{path.suffix}":
                report.renamed.append((photo.file_name, path.name))
        if state is not None:
            state.advance()
    return report


def reason_without_name(message: str, name: str) -> str:
    """The message without a leading "<photo name>: " (the report names the photo)."""
    prefix = f"{name}: "
    return message[len(prefix):] if message.startswith(prefix) else message
