"""Background job functions of the Anonymize workspace (run on a worker thread).

Each function returns ``work(state)`` for ``context.start_job``. Work that reads the
project takes its own ``worker_view()`` connection and closes it when done; view work
(opening a photo, rendering the After view) gets bytes and arrays, never the project.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.imaging import photos as repo
from core.imaging.anonymize import HideSpec
from core.imaging.detect import DetectSettings, detect_all
from core.imaging.geometry import Geometry
from core.imaging.loading import decode_rgb
from core.imaging.pyramid import (
    PREVIEW_SIDE,
    Pyramid,
    decode_full,
    open_photo,
    pyramid_of,
    render_after,
)
from core.jobs import JobState
from core.store.project import Project

if TYPE_CHECKING:
    from core.imaging.release import ReleaseRefused, Verification
    from core.imaging.release_all import BulkRelease

#: how finely a job reports progress per photo (JobState counts whole steps)
STEPS = 1000


Work = Callable[[JobState], Any]


def _stage(state: JobState, base: int, name: str) -> Callable[[float, str], None]:
    """Report ``fraction`` of one photo's work as progress ``base`` … ``base + STEPS``."""
    def report(fraction: float, stage: str) -> None:
        state.set_progress(base + int(STEPS * min(1.0, max(0.0, fraction))))
        state.set_status(f"{name}: {stage}")
    return report


def detect_job(view: Project, photo_ids: list[int], settings: DetectSettings,
               deliver: Callable[[repo.Redetection], None] | None = None) -> Work:
    """Detect faces/plates in each photo; replaces its untouched detector regions (the
    user's stay; ADR 189) and hands what changed to ``deliver`` as each photo is done;
    returns the number of detections.

    Progress is per stage and per tile (decoding, the whole-photo pass, each tile of the
    small-face pass, plates), so a big photo moves the bar from the first seconds. An
    original that is missing, changed or unreadable fails that photo only, named in the
    job's failures; the other photos are still detected in (ADR 201).
    """
    from core.imaging.release_all import reason_without_name

    def work(state: JobState) -> int:
        try:
            state.set_total(STEPS * len(photo_ids))
            total = 0
            for index, photo_id in enumerate(photo_ids):
                state.check()
                photo = repo.get_photo(view, photo_id)
                report = _stage(state, STEPS * index, photo.file_name)
                report(0.0, "decoding")
                try:  # a region edited outside Winnow first: no detector time wasted
                    repo.check_readable(photo.file_name, repo.regions(view, photo_id))
                    rgb = repo.load_original(view, photo)
                except (OSError, ValueError) as exc:  # that photo's, not the job's
                    state.item_failed(photo.file_name,
                                      reason_without_name(str(exc), photo.file_name))
                    state.set_progress(STEPS * (index + 1))
                    continue
                def detecting(f: float, stage: str, report: Callable[[float, str], None] = report
                              ) -> None:
                    report(0.1 + 0.9 * f, stage)

                found = detect_all(rgb, settings, state.check, detecting)
                try:
                    change = repo.replace_detections(view, photo_id, found,
                                                     settings.to_json())
                except repo.UnreadableRegion as exc:  # edited meanwhile (ADR 211)
                    state.item_failed(photo.file_name,
                                      reason_without_name(str(exc), photo.file_name))
                    state.set_progress(STEPS * (index + 1))
                    continue
                if deliver is not None:
                    deliver(change)
                total += len(found)
                state.item_done()
                state.set_progress(STEPS * (index + 1))
            return total
        finally:
            view.close()
    return work


def open_job(path: Path, photo: repo.Photo, deliver: Callable[[Pyramid], None]) -> Work:
    """Decode a photo for display: a preview, then the full pyramid, each handed to
    ``deliver`` (the job's own result is None: finished jobs stay listed, and must not
    keep hundreds of MB alive). A file changed since import fails the job, saying so."""
    name, size = photo.file_name, (photo.width, photo.height)

    def work(state: JobState) -> None:
        state.set_total(STEPS)
        report = _stage(state, 0, name)
        report(0.0, "reading")
        data = path.read_bytes()
        repo.check_original(photo, data)
        deliver(open_photo(data, name, size, deliver, state.check, report))
        report(1.0, "done")
    return work


def render_job(path: Path, before: Pyramid | None, name: str, specs: Sequence[HideSpec],
               geometry: Geometry, size: tuple[int, int], out_size: tuple[int, int],
               deliver: Callable[[Pyramid], None]) -> Work:
    """Render the After view of a big photo: from a preview level first, then at full
    resolution, each handed to ``deliver``. ``before`` is what is decoded of the photo
    so far; the original at ``path`` is read only for what it lacks."""
    def work(state: JobState) -> None:
        state.set_total(STEPS)
        report = _stage(state, 0, name)
        data = b""
        if before is None or not before.full:
            report(0.0, "reading")
            data = path.read_bytes()
        small = before.level_for(PREVIEW_SIDE / max(size)) if before is not None else \
            decode_rgb(data, name, PREVIEW_SIDE)
        report(0.05, "preview")
        deliver(pyramid_of(render_after(small, specs, geometry, size, state.check),
                           out_size, full=False))
        if before is not None and before.full:
            rgb = before.levels[0]
        else:
            report(0.1, "decoding")
            rgb = decode_full(data, name, size)

        def rendering(fraction: float, stage: str) -> None:
            report(0.2 + 0.7 * fraction, stage)

        full = render_after(rgb, specs, geometry, size, state.check, rendering)
        report(0.9, "pyramid")
        deliver(pyramid_of(full, out_size, check=state.check))
        report(1.0, "done")
    return work


def import_job(view: Project, folder: str | Path) -> Work:
    """Import a folder of photos."""
    def work(state: JobState) -> repo.IntakeReport:
        try:
            return repo.import_folder(view, folder, state)
        finally:
            view.close()
    return work


def release_job(view: Project, photo_id: int, out_dir: str | Path, settings: DetectSettings,
                accept_unhidden: bool) -> Work:
    """Release one photo; returns (path, verification) or the ReleaseRefused."""
    from core.imaging.release import ReleaseRefused, release_photo

    def work(state: JobState) -> tuple[Path, Verification] | ReleaseRefused:
        try:
            state.set_total(1)
            state.set_status("rendering, writing and verifying")
            try:
                result = release_photo(view, photo_id, out_dir, settings, accept_unhidden)
            except ReleaseRefused as exc:
                return exc
            state.advance()
            return result
        finally:
            view.close()
    return work


def release_all_job(view: Project, out_dir: str | Path, settings: DetectSettings,
                    report: BulkRelease) -> Work:
    """Release every reviewed photo; fills ``report`` (a BulkRelease) as it goes."""
    from core.imaging.release_all import release_all

    def work(state: JobState) -> BulkRelease:
        try:
            return release_all(view, out_dir, settings, state, report)
        finally:
            view.close()
    return work
