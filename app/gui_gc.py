"""Python's cyclic garbage collector runs on the GUI thread only (ADR 167).

CPython runs a collection on whichever thread happens to allocate when a generation's
count passes its threshold: often a worker thread (a detection, an import parse).
A reference cycle that holds a Qt object — a widget and a slot bound to it, a QTimer
connected to its owner's method — is then destroyed on that worker thread while the
GUI thread may be using it, and Qt crashes (a freed QTimer in
``QTimerInfoList::activateTimers`` was seen in the test suite). The known remedy, as in
pyqtgraph's ``GarbageCollector``: turn the automatic collector off and run the same
generational collections from a GUI-thread timer.
"""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QObject, QTimer

from core.gc_pause import bulk_building

INTERVAL_MS = 200
GUARD_RECHECK_S = 5.0


class GuiThreadCollector(QObject):
    """While installed, cycles are collected on the GUI thread, by generation, when the
    counts pass CPython's own thresholds (checked every ``INTERVAL_MS``)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._was_enabled = gc.isenabled()
        self._timer = QTimer(self)
        self._timer.setInterval(INTERVAL_MS)
        self._timer.timeout.connect(self.check)
        self.collections = [0, 0, 0]  # runs per generation (for tests and curiosity)
        self._long_lived = 0  # objects in the oldest generation after its last collection
        self._recheck_at = 0.0  # when the oldest generation may be counted again
        self.clock = time.monotonic

    def install(self) -> GuiThreadCollector:
        """Turn the automatic collector off and start the timer."""
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer.start()
        return self

    def uninstall(self) -> None:
        """Stop the timer, collect once here, and give the collector back as it was."""
        self._timer.stop()
        gc.collect()
        if self._was_enabled:
            gc.enable()

    def check(self) -> None:
        """Collect as CPython would: nothing until allocations pass the youngest
        generation's threshold, then the oldest generation whose count passed its own —
        a full collection only once the oldest generation has grown by a quarter since
        the last one (CPython's guard against quadratic work on a big heap); nothing
        while a bulk build (:func:`core.gc_pause.paused_gc`) runs."""
        if bulk_building():
            return
        counts, thresholds = gc.get_count(), gc.get_threshold()
        if not thresholds[0] or counts[0] <= thresholds[0]:
            return
        generation = 1 if counts[1] > thresholds[1] else 0
        if counts[2] > thresholds[2] and self._oldest_grew():
            generation = 2
        gc.collect(generation)
        self.collections[generation] += 1
        if generation == 2:
            self._long_lived = len(gc.get_objects(generation=2))

    def _oldest_grew(self) -> bool:
        """Whether the oldest generation grew by more than a quarter since its last
        collection. Counting it walks the whole heap, so after a "no" it is not counted
        again for ``GUARD_RECHECK_S`` (CPython keeps the count as it goes; Python
        code cannot)."""
        now = self.clock()
        if now < self._recheck_at:
            return False
        if len(gc.get_objects(generation=2)) - self._long_lived > self._long_lived // 4:
            return True
        self._recheck_at = now + GUARD_RECHECK_S
        return False
