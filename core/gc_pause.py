"""Pausing Python's cyclic garbage collector around bulk building of plain data.

Building millions of small containers (the rows of a 2,000,000-line CSV, an import's
records) triggers the cyclic collector again and again, and each older-generation pass
walks every container built so far: 4/5 of the stdlib CSV parse of 2M lines was the
collector (docs/performance.md, "Issue 18, measured again").  Such data holds no
reference cycles, so nothing is lost by collecting once at the end instead.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_active = 0  # paused_gc blocks running now, on any thread


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Run the block with the cyclic collector off (as it was afterwards; nests)."""
    global _active
    was = gc.isenabled()
    gc.disable()
    with _lock:
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
        if was:
            gc.enable()


def bulk_building() -> bool:
    """Whether a :func:`paused_gc` block runs now on some thread (a collector run by hand,
    such as the GUI's, waits until it ends)."""
    return _active > 0
