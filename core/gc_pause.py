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
from collections.abc import Iterator


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Run the block with the cyclic collector off (as it was afterwards; nests)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
