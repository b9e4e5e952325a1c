"""Run one coroutine per item with at most ``width`` of them alive at a time.

Each task is started as another finishes, so a large job (tens of thousands of URLs or
posts) never holds an idle task per item, as a semaphore-gated task per item would.
Used by the image fetch (core/ingest/fetch.py) and the proposal job (core/propose/job.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from itertools import islice
from typing import TypeVar

T = TypeVar("T")


async def run_bounded(items: Iterable[T], width: int, work: Callable[[T], Awaitable[None]],
                      tick: Callable[[], None] | None = None, poll_s: float = 0.05) -> None:
    """Await ``work(item)`` for every item, ``width`` at a time.

    ``tick`` runs after every wake-up (a task finished, or ``poll_s`` passed): it may raise
    to stop the run (a cancel). An exception from a task or from ``tick`` cancels the
    tasks still running, waits for them, and propagates.
    """
    pending = iter(items)
    running: set[asyncio.Future[None]] = set()

    def top_up() -> None:
        for item in islice(pending, max(0, width - len(running))):
            running.add(asyncio.ensure_future(work(item)))

    try:
        top_up()
        while running:
            done, _ = await asyncio.wait(running, timeout=poll_s if tick else None,
                                         return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                running.discard(task)
                task.result()
            if tick is not None:
                tick()
            top_up()
    finally:
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)

