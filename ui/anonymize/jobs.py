"""Background job functions of the Anonymize workspace (run on a worker thread).

Each takes its own ``worker_view()`` connection and closes it when done.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.imaging import photos as repo
from core.imaging.detect import DetectSettings, detect_all


def detect_job(view: Any, photo_ids: list[int], settings: DetectSettings
               ) -> Callable[[Any], int]:
    """Detect faces/plates in each photo; replaces detector regions; returns the count."""
    def work(state: Any) -> int:
        try:
            state.set_total(len(photo_ids))
            total = 0
            for photo_id in photo_ids:
                state.check()
                photo = repo.get_photo(view, photo_id)
                state.set_status(photo.file_name)
                rgb = repo.load_original(view, photo)
                found = detect_all(rgb, settings, state.check)
                repo.replace_detections(view, photo_id, found, settings.to_json())
                total += len(found)
                state.advance()
            return total
        finally:
            view.close()
    return work


def import_job(view: Any, folder: str | Path) -> Callable[[Any], Any]:
    """Import a folder of photos."""
    def work(state: Any) -> Any:
        try:
            return repo.import_folder(view, folder, state)
        finally:
            view.close()
    return work


def release_job(view: Any, photo_id: int, out_dir: str | Path, settings: DetectSettings,
                accept_unhidden: bool) -> Callable[[Any], Any]:
    """Release one photo; returns (path, verification) or the ReleaseRefused."""
    from core.imaging.release import ReleaseRefused, release_photo

    def work(state: Any) -> Any:
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


def release_all_job(view: Any, out_dir: str | Path, settings: DetectSettings,
                    report: Any) -> Callable[[Any], Any]:
    """Release every reviewed photo; fills ``report`` (a BulkRelease) as it goes."""
    from core.imaging.release_all import release_all

    def work(state: Any) -> Any:
        try:
            return release_all(view, out_dir, settings, state, report)
        finally:
            view.close()
    return work
