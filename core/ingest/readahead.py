"""Run an iterator in a thread of its own, a bounded number of items ahead of its reader.

The import parses batch N+1 while the caller's SQLite statements write batch N: Python's
``sqlite3`` releases the GIL inside ``sqlite3_step``, so the two use both cores
(ADR 029).  :class:`ReadAhead` is the whole mechanism:

* at most ``depth`` items wait in a bounded queue, so memory stays bounded;
* an exception raised by the iterator reaches the reader, with its message, at the
  point where the item would have come;
* the thread never outlives the ``with`` block: leaving it early (an error, a cancel)
  sets a stop flag the iterator can poll (:attr:`ReadAhead.stopping`), wakes the
  thread if it waits on a full queue, closes the iterator and joins the thread.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Generic, TypeVar

T = TypeVar("T")

_ITEM, _ERROR, _DONE = range(3)
_POLL_S = 0.05  # how often a producer blocked on a full queue looks at the stop flag


class ReadAhead(Generic[T]):
    """``with ReadAhead(make) as items: for item in items: …`` — ``make(stopping)``
    returns the iterator to run in the thread; ``stopping()`` turns true once the
    reader has left the block, so a long iterator can end early."""

    def __init__(self, make: Callable[[Callable[[], bool]], Iterator[T]], depth: int = 2,
                 name: str = "winnow-read-ahead") -> None:
        self._make = make
        self._queue: queue.Queue[tuple[int, object]] = queue.Queue(maxsize=max(1, depth))
        self._stop = threading.Event()
        self._running = threading.Event()  # cleared while the reader wants the GIL alone
        self._running.set()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def stopping(self) -> bool:
        """True once the reader no longer wants items; while the reader has paused the
        producer (:meth:`pause`), waits until it resumes (or leaves)."""
        if not self._running.is_set():
            self._running.wait()
        return self._stop.is_set()

    def pause(self) -> None:
        """Ask the producer to wait at its next :meth:`stopping` call, e.g. while the
        reader runs Python code and short SQLite steps that need the GIL every few
        microseconds (a running producer would make each wait up to the switch interval)."""
        self._running.clear()

    def resume(self) -> None:
        """Let the producer run again, e.g. while the reader waits in one long SQLite
        step (bulk index insert, commit) with the GIL released."""
        self._running.set()

    def __enter__(self) -> ReadAhead[T]:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Stop the producer and wait for its thread to end (idempotent)."""
        self._stop.set()
        self._running.set()
        while self._thread.is_alive():
            try:  # a producer blocked on a full queue gets room to notice the flag
                while True:
                    self._queue.get_nowait()
            except queue.Empty:
                pass
            self._thread.join(_POLL_S)

    def __iter__(self) -> Iterator[T]:
        while True:
            if self._queue.empty():
                self.resume()  # the reader would only wait: let the producer run
            kind, value = self._queue.get()
            if kind == _DONE:
                return
            if kind == _ERROR:
                assert isinstance(value, BaseException)
                raise value
            yield value  # type: ignore[misc]  # _ITEM entries hold a T (see _run)

    # -- the producer's thread -------------------------------------------------------
    def _run(self) -> None:
        items: Iterator[T] | None = None
        try:
            items = self._make(self.stopping)
            for item in items:
                if not self._put(_ITEM, item):
                    return
        except BaseException as exc:  # noqa: BLE001 - handed to the reader, who raises it
            self._put(_ERROR, exc)
            return
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()  # a generator's ``finally``/``with`` (the open file) runs here
        self._put(_DONE, None)

    def _put(self, kind: int, value: object) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put((kind, value), timeout=_POLL_S)
                return True
            except queue.Full:
                continue
        return False
