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

from PySide6.QtCore import QObject, QTimer

from core.gc_pause import bulk_building

INTERVAL_MS = 200


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
        """Collect the oldest generation whose count passed its threshold, as CPython
        would (a full collection only once the oldest generation has grown by a quarter
        since the last one, CPython's guard against quadratic work on a big heap);
        nothing while a bulk build (:func:`core.gc_pause.paused_gc`) runs."""
        if bulk_building():
            return
        counts, thresholds = gc.get_count(), gc.get_threshold()
        generation = -1
        for gen in range(3):
            if thresholds[gen] and counts[gen] > thresholds[gen]:
                generation = gen
        if generation == 2:
            grown = len(gc.get_objects(generation=2)) - self._long_lived
            if grown <= self._long_lived // 4:
                generation = 1
        if generation < 0:
            return
        gc.collect(generation)
        self.collections[generation] += 1
        if generation == 2:
            self._long_lived = len(gc.get_objects(generation=2))
