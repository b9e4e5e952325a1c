"""core.task_pool.run_bounded: every item once, never more than ``width`` alive, and a
failure or a cancel stops the rest without leaving a task behind."""

from __future__ import annotations

import asyncio

import pytest

from core.task_pool import run_bounded


def test_every_item_runs_once_and_width_is_reached_but_never_passed() -> None:
    alive, most, seen = 0, 0, []

    async def work(item: int) -> None:
        nonlocal alive, most
        alive += 1
        most = max(most, alive)
        await asyncio.sleep(0.001 * (item % 3))
        seen.append(item)
        alive -= 1

    asyncio.run(run_bounded(range(50), 4, work))
    assert sorted(seen) == list(range(50)) and most == 4


def test_a_failing_task_cancels_the_rest_and_raises() -> None:
    cancelled, started = [], []

    async def work(item: int) -> None:
        started.append(item)
        if item == 2:
            raise ValueError("bad item")
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.append(item)
            raise

    with pytest.raises(ValueError, match="bad item"):
        asyncio.run(run_bounded(range(100), 3, work))
    assert sorted(started) == [0, 1, 2] and sorted(cancelled) == [0, 1]


def test_a_tick_that_raises_stops_the_run() -> None:
    started: list[int] = []

    async def work(item: int) -> None:
        started.append(item)
        await asyncio.sleep(10)

    def tick() -> None:
        raise RuntimeError("cancelled by the user")

    with pytest.raises(RuntimeError, match="cancelled"):
        asyncio.run(run_bounded(range(100), 2, work, tick, poll_s=0.01))
    assert started == [0, 1]
