"""Model runs on two lanes: the calling thread and one shared helper thread (ADR 117).

onnxruntime releases the GIL while a model runs, so the face and plate passes of one
photo (and the small-face tiles of a big one) can run at the same time on two cores,
each session with half the cores' threads (:func:`core.imaging.faces.model_threads`):
the same work in less wall time, and less CPU time than one run spread over every core.
The helper is one thread for the whole process, so two detections at once (a Detect
job and a release) still use at most two lanes.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_in_helper = threading.local()


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity, e.g. under ``taskset``), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def lanes() -> int:
    """Model runs at once: 2 where 4 cores or more are usable, else 1 (on 2 cores one
    lane with two-thread sessions was faster on a quiet machine, ADR 117);
    ``WINNOW_DETECT_LANES`` = 1 or 2 chooses."""
    value = os.environ.get("WINNOW_DETECT_LANES", "").strip()
    if value in ("1", "2"):
        return int(value)
    return 2 if usable_cores() >= 4 else 1


def _helper() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="winnow-model")
        return _pool


def run_tasks(tasks: Sequence[Callable[[], T]], check: Callable[[], None] | None = None,
              done: Callable[[int], None] | None = None, ways: int | None = None) -> list[T]:
    """Run every task once and return their results in the order of ``tasks``.

    With two lanes the helper takes tasks from the front of the list and the caller
    from the back (put the longest at the ends); with one, the caller runs them in
    order. A task may call this itself: on the caller's lane its tasks share both lanes
    once the helper is free (the caller never waits for a helper that has not started
    on them); on the helper's lane they run in order.
    ``check()`` runs before each task on either lane (Cancel); ``done(index)`` after
    each, from either lane but never two at once. The first exception stops both lanes
    taking more and is raised here once the helper's running task has finished.
    ``ways``: the lanes to use (1 or 2) instead of :func:`lanes` (the recogniser's many
    small runs use two on 2 cores, ADR 168).
    """
    results: list[Any] = [None] * len(tasks)
    pending = deque(range(len(tasks)))
    lock = threading.Lock()
    report = threading.Lock()
    errors: list[BaseException] = []

    def lane(front: bool) -> None:
        while True:
            with lock:
                if errors or not pending:
                    return
                index = pending.popleft() if front else pending.pop()
            try:
                if check is not None:
                    check()
                results[index] = tasks[index]()
                if done is not None:
                    with report:
                        done(index)
            except BaseException as exc:  # handed to the caller below
                with lock:
                    errors.append(exc)
                return

    def helper_lane() -> None:
        _in_helper.active = True
        try:
            lane(front=True)
        finally:
            _in_helper.active = False

    helper = None
    wanted = lanes() if ways is None else ways
    if len(tasks) > 1 and wanted > 1 and not getattr(_in_helper, "active", False):
        helper = _helper().submit(helper_lane)
    lane(front=helper is None)
    if helper is not None and not helper.cancel():  # cancel(): still queued, never ran
        helper.result()  # its running task has finished; nothing is left for it
    if errors:
        raise errors[0]
    return results
