"""ReadAhead: a bounded producer thread that never outlives its ``with`` block."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest

from core.ingest.readahead import ReadAhead


def counting(n: int, log: list[int]) -> Callable[[Callable[[], bool]], Iterator[int]]:
    def make(stopping: Callable[[], bool]) -> Iterator[int]:
        for k in range(n):
            if stopping():
                return
            log.append(k)
            yield k
    return make


def test_items_arrive_in_order_and_the_thread_ends() -> None:
    with ReadAhead(counting(1000, []), depth=3, name="t-order") as items:
        assert list(items) == list(range(1000))
    assert not [t for t in threading.enumerate() if t.name == "t-order"]


def test_the_producer_stays_at_most_depth_items_ahead() -> None:
    produced: list[int] = []
    with ReadAhead(counting(100, produced), depth=2, name="t-depth") as items:
        first = next(iter(items))
        time.sleep(0.2)
        assert first == 0 and len(produced) <= 1 + 2 + 1  # taken, queued, one in hand


def test_leaving_early_stops_a_producer_blocked_on_a_full_queue() -> None:
    produced: list[int] = []
    finished = threading.Event()

    def make(stopping: Callable[[], bool]) -> Iterator[int]:
        try:
            yield from counting(10**9, produced)(stopping)
        finally:
            finished.set()  # the generator was closed in its own thread

    with pytest.raises(KeyError), ReadAhead(make, depth=1, name="t-early") as items:
        for _ in items:
            time.sleep(0.05)  # the producer fills the queue and blocks
            raise KeyError("the reader failed")
    assert finished.is_set() and len(produced) < 10
    assert not [t for t in threading.enumerate() if t.name == "t-early"]


def test_an_error_in_the_producer_reaches_the_reader_after_the_items_before_it() -> None:
    def make(stopping: Callable[[], bool]) -> Iterator[int]:
        yield 1
        yield 2
        raise OSError("the disk went away after item 2")

    got: list[int] = []
    with (pytest.raises(OSError, match="went away after item 2"),
          ReadAhead(make, name="t-error") as items):
        got.extend(items)
    assert got == [1, 2]
    assert not [t for t in threading.enumerate() if t.name == "t-error"]


def test_a_paused_producer_waits_until_resumed_or_closed() -> None:
    produced: list[int] = []
    reader = ReadAhead(counting(10**6, produced), depth=10**6, name="t-pause")
    with reader:
        time.sleep(0.05)
        reader.pause()
        time.sleep(0.05)  # at most one more item after the pause took effect
        paused_at = len(produced)
        time.sleep(0.2)
        assert len(produced) <= paused_at + 1
        reader.resume()
        deadline = time.monotonic() + 5
        while len(produced) <= paused_at + 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(produced) > paused_at + 1
        reader.pause()
    assert not [t for t in threading.enumerate() if t.name == "t-pause"]  # closed while paused
