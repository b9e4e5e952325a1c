"""The pixels the Anonymize view shows: decoded photos and After renders (ADR 048).

A photo up to ``INLINE_PIXELS`` is decoded and rendered at once, on the GUI thread (well
inside the event loop's 100-ms budget); a bigger one in background jobs that hand over
a preview first and the full resolution when it is ready, with progress. Only the
photo and render last asked for are shown (an older job is cancelled, its late result
dropped); decoded photos stay in a small cache, so going back is instant. A photo that
cannot be shown (its original missing or changed since import) is reported once, not
on every redraw, until another photo is asked for (ADR 188).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from core.imaging import photos as repo
from core.imaging.anonymize import HideSpec
from core.imaging.geometry import Geometry
from core.imaging.pyramid import (
    INLINE_PIXELS,
    Pyramid,
    after_size,
    open_photo,
    pyramid_of,
    render_after,
)
from core.jobs import Job
from core.store.project import Project
from ui.anonymize.workers import Work, open_job, render_job
from ui.context import AppContext

#: memory for decoded photos kept for going back (the one on screen is always kept)
CACHE_BYTES = 1 << 30
#: what an After render depends on: the photo, how each region is hidden, the geometry
RenderKey = tuple[str, tuple[HideSpec, ...], str]


class PyramidCache:
    """Decoded photos by content hash; the least recently used go past the budget."""

    def __init__(self, budget: int = CACHE_BYTES) -> None:
        self.budget = budget
        self._items: OrderedDict[str, Pyramid] = OrderedDict()

    def get(self, key: str) -> Pyramid | None:
        """The pyramid of ``key`` (marked as just used), or None."""
        pyramid = self._items.get(key)
        if pyramid is not None:
            self._items.move_to_end(key)
        return pyramid

    def put(self, key: str, pyramid: Pyramid) -> None:
        """Keep ``pyramid`` (a preview never replaces the full resolution)."""
        old = self._items.get(key)
        if old is not None and old.full and not pyramid.full:
            return
        self._items[key] = pyramid
        self._items.move_to_end(key)
        while len(self._items) > 1 and sum(p.nbytes for p in self._items.values()) > \
                self.budget:
            self._items.popitem(last=False)

    def clear(self) -> None:
        """Forget everything."""
        self._items.clear()


@dataclass
class _Running:
    generation: int
    key: str | RenderKey
    job: Job


class _Bridge(QObject):
    """Carries pixels from a worker thread to the GUI thread (queued signal)."""

    arrived = Signal(int, object)  # job generation, Pyramid (a preview or the result)


class PhotoPixels(QObject):
    """Decodes photos and renders their After view for the canvas."""

    #: ("before" | "after", Pyramid): new pixels for what was last asked for
    arrived = Signal(str, object)
    #: the progress text (:meth:`busy_text`) changed
    progress_changed = Signal()

    def __init__(self, context: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.cache = PyramidCache()
        self._after: tuple[RenderKey, Pyramid] | None = None
        self._running: dict[str, _Running] = {}  # "before" / "after"
        self._generation = 0
        self._bridge = _Bridge(self)
        self._bridge.arrived.connect(self._delivered)
        self._ticker = QTimer(self)
        self._ticker.setInterval(150)
        self._ticker.timeout.connect(self.progress_changed.emit)
        self._photo_key: tuple[int, str] | None = None  # the photo last asked for
        self._warned = False  # … and whether its problem was reported already

    def _original(self, photo: repo.Photo) -> Path:
        project: Project | None = self.context.project
        assert project is not None
        return repo.original_path(project, photo)

    # -- asking for pixels ----------------------------------------------------------------
    def before(self, photo: repo.Photo) -> Pyramid | None:
        """What is decoded of ``photo`` now (None: nothing yet); starts what is missing,
        whose pixels then come through :attr:`arrived`."""
        self._asked_for(photo)
        pyramid = self.cache.get(photo.sha256)
        if pyramid is not None and pyramid.full:
            return pyramid
        if photo.width * photo.height <= INLINE_PIXELS:
            try:
                pyramid = open_photo(self._read(photo), photo.file_name,
                                     (photo.width, photo.height))
            except (OSError, ValueError) as exc:
                self._warn("Cannot show photo", _reason(photo, exc))
                return None
            self.cache.put(photo.sha256, pyramid)
            return pyramid
        running = self._running.get("before")
        if running is None or running.key != photo.sha256:
            self.cancel("before")
            try:
                path = self._original(photo)
            except OSError as exc:
                self._warn("Cannot show photo", _reason(photo, exc))
                return pyramid
            self._start("before", photo.sha256, f"Open {photo.file_name}",
                        lambda deliver: open_job(path, photo, deliver))
        return pyramid

    def after(self, photo: repo.Photo, specs: list[HideSpec], geometry: Geometry
              ) -> Pyramid | None:
        """The release of ``photo`` as far as it is rendered (None: nothing yet)."""
        self._asked_for(photo)
        key: RenderKey = (photo.sha256, tuple(specs), json.dumps(geometry.to_json()))
        if self._after is not None and self._after[0] == key:
            running = self._running.get("after")
            if self._after[1].full or (running is not None and running.key == key):
                return self._after[1]
        self.cancel("after")
        size = (photo.width, photo.height)
        out_size = after_size(geometry, *size)
        if photo.width * photo.height <= INLINE_PIXELS:
            before = self.before(photo)
            if before is None:
                return None
            try:
                rendered = pyramid_of(render_after(before.levels[0], specs, geometry, size),
                                      out_size)
            except (ImportError, ValueError) as exc:  # e.g. OpenCV not installed
                self._warn("Cannot show the release", _reason(photo, exc))
                return None
            self._after = (key, rendered)
            return rendered
        name, before, original = photo.file_name, self.cache.get(photo.sha256), \
            self._original(photo)
        self._start("after", key, f"Render the release of {name}", lambda deliver: render_job(
            original, before, name, specs, geometry, size, out_size, deliver))
        return None

    def cancel(self, kind: str | None = None) -> None:
        """Stop the work for "before", "after" or (None) both."""
        for name in ([kind] if kind else list(self._running)):
            running = self._running.pop(name, None)
            if running is not None:
                running.job.state.cancel()
        if not self._running:
            self._ticker.stop()
        self.progress_changed.emit()

    def forget(self) -> None:
        """The project closed: stop everything, drop every decoded pixel."""
        self.cancel()
        self.cache.clear()
        self._after = None
        self._photo_key = None

    def busy_text(self) -> str:
        """"loading full resolution 40 %" while a job runs ("" otherwise)."""
        for kind, running in self._running.items():
            done = running.job.state.fraction or 0.0
            what = "rendering at full resolution" if kind == "after" else \
                "loading full resolution"
            return f"{what} {round(100 * done)} %"
        return ""

    # -- reporting once per photo -------------------------------------------------------
    def _read(self, photo: repo.Photo) -> bytes:
        project: Project | None = self.context.project
        assert project is not None
        return repo.read_original(project, photo)

    def _asked_for(self, photo: repo.Photo) -> None:
        """Another photo (or the same one changed) may be reported on again."""
        key = (photo.id, photo.sha256)
        if key != self._photo_key:
            self._photo_key, self._warned = key, False

    def _warn(self, title: str, text: str) -> None:
        """Show why the photo asked for cannot be shown, once for that photo."""
        if not self._warned:
            self._warned = True
            self.context.message(title, text)

    # -- jobs ----------------------------------------------------------------------------
    def _start(self, kind: str, key: str | RenderKey, title: str,
               build: Callable[[Callable[[Pyramid], None]], Work]) -> None:
        self._generation += 1
        generation = self._generation

        def deliver(pyramid: Pyramid) -> None:  # on the worker thread: queued to ours
            self._bridge.arrived.emit(generation, pyramid)

        job: Job = self.context.start_job(
            title, build(deliver), lambda job: self._finished(kind, generation, job))
        if not job.state.cancelled():  # (a closing app cancels new jobs at once)
            self._running[kind] = _Running(generation, key, job)
            self._ticker.start()

    def _kind_of(self, generation: int) -> str | None:
        return next((kind for kind, running in self._running.items()
                     if running.generation == generation), None)

    def _delivered(self, generation: int, pyramid: Pyramid) -> None:
        """Pixels from a job (a preview, or the full resolution as its last step)."""
        kind = self._kind_of(generation)
        if kind is None:  # a job no longer wanted
            return
        running = self._running[kind]
        if kind == "before":  # (a preview too: a redraw meanwhile keeps showing it)
            self.cache.put(str(running.key), pyramid)
        elif kind == "after":
            # the "after" job is keyed by a RenderKey, never by a cache string
            self._after = (running.key, pyramid)  # type: ignore[assignment]
        self.arrived.emit(kind, pyramid)

    def _finished(self, kind: str, generation: int, job: Job) -> None:
        if self._kind_of(generation) == kind:  # (its pixels came through _delivered)
            del self._running[kind]
            if not self._running:
                self._ticker.stop()
            if job.outcome == "failed":
                self._warn("Cannot show photo", job.error)
        self.progress_changed.emit()


def _reason(photo: repo.Photo, exc: Exception) -> str:
    text = str(exc)
    return text if photo.file_name in text else f"{photo.file_name}: {text}"
