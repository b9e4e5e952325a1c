"""Where a run prepares its images: decode threads, or worker processes on a GPU.

Preparing a pair (JPEG decode, resize, normalise; face detection) takes 14–130 ms of
a core, the model 1–2 ms of an H200 (ADR 196); threads share the interpreter's lock, so
past ~8 of them the GPU still idles most of a run.  Worker processes scale with the
cores (ADR 209).  Both kinds give every item a :class:`~concurrent.futures.Future` of
what ``metric.prepare`` returns, or of the error that names its image.

Worker processes are never forked from the app (it has Qt and model threads): on Linux
they fork from a *forkserver* (a clean process started once, with numpy, Pillow and the
metrics imported), so a later run's pool starts in tens of milliseconds; elsewhere they
are spawned.  Each holds the metric and a copy of the run's setup; consecutive items sharing their first
input go to the same worker in one task, so the setup's cache of prepared inputs keeps
working.  If a worker dies (killed, out of memory, a crash in a native decoder), the
items it had not finished are prepared again on threads of this process, as before
ADR 209, and the run goes on.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from core.metrics.base import Metric, PairItem

#: at most this many consecutive items sharing an input are prepared in one task
CHUNK = 8
#: what the forkserver imports once, so that its workers start with it (Linux)
PRELOAD = ("numpy", "PIL.Image", "core.metrics.registry")


def process_context() -> multiprocessing.context.BaseContext:
    """Forkserver on Linux (preloaded; measured: a 2-worker pool's first item 0.27 s
    spawned, 0.03 s forked from the running server), spawn elsewhere (macOS's system
    libraries are not safe to fork; Windows has no fork)."""
    if sys.platform.startswith("linux"):
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(list(PRELOAD))
        return ctx
    return multiprocessing.get_context("spawn")


class PrepareError(ValueError):
    """What ``prepare`` raised in a worker process (its message, which names the image)."""


class Preparer(Protocol):
    """Prepares items ahead of the model (see the module docstring)."""

    kind: str
    workers: int

    def submit_many(self, items: Sequence[PairItem]) -> list[Future[Any]]:
        """One future per item, in order."""

    def close(self) -> None:
        """Stop: unstarted work is dropped, running work finishes."""


class ThreadPreparer:
    """``metric.prepare`` on decode threads of this process."""

    kind = "threads"

    def __init__(self, metric: Metric, setup: Any, workers: int) -> None:
        self.metric, self.setup, self.workers = metric, setup, workers
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="winnow-decode")

    def submit_many(self, items: Sequence[PairItem]) -> list[Future[Any]]:
        return [self._pool.submit(self.metric.prepare, item, self.setup) for item in items]

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _shared_key(item: PairItem) -> str | None:
    return item.inputs[0].key() if item.inputs else None


def chunks(items: Sequence[PairItem], size: int = CHUNK) -> list[list[int]]:
    """Indices of ``items`` grouped: consecutive items with the same first input share a
    group (at most ``size``); any other item is a group of its own."""
    groups: list[list[int]] = []
    last: str | None = None
    for k, item in enumerate(items):
        key = _shared_key(item)
        if groups and key is not None and key == last and len(groups[-1]) < size:
            groups[-1].append(k)
        else:
            groups.append([k])
        last = key
    return groups


# --- in the worker process ----------------------------------------------------------
_WORKER: tuple[Metric, Any] | None = None


def _start_worker(name: str, setup: Any) -> None:
    global _WORKER
    from core.metrics.registry import get

    _WORKER = (get(name), setup)


def _prepare_chunk(items: list[PairItem]) -> list[tuple[bool, Any]]:
    """``(True, prepared)`` or ``(False, message)`` for each item (never raises for one)."""
    assert _WORKER is not None, "worker process not initialised"
    metric, setup = _WORKER
    out: list[tuple[bool, Any]] = []
    for item in items:
        try:
            out.append((True, metric.prepare(item, setup)))
        except Exception as exc:  # the message names the image; the type stays here
            out.append((False, str(exc) or type(exc).__name__))
    return out


# --- in this process ----------------------------------------------------------------
class ProcessPreparer:
    """``metric.prepare`` in spawned worker processes; threads once a worker has died."""

    kind = "processes"

    def __init__(self, metric: Metric, setup: Any, workers: int) -> None:
        self.metric, self.setup, self.workers = metric, setup, workers
        self._pool = ProcessPoolExecutor(
            workers, mp_context=process_context(),
            initializer=_start_worker, initargs=(metric.name, setup))
        self._lock = threading.Lock()
        self._fallback: ThreadPreparer | None = None
        self._closed = False
        #: why the workers were given up (None while they run)
        self.broken: str | None = None

    def submit_many(self, items: Sequence[PairItem]) -> list[Future[Any]]:
        futures: list[Future[Any]] = [Future() for _ in items]
        for group in chunks(items):
            self._submit([items[k] for k in group], [futures[k] for k in group])
        return futures

    def _submit(self, items: list[PairItem], futures: list[Future[Any]]) -> None:
        if self.broken is not None:
            self._on_threads(items, futures)
            return
        try:
            task = self._pool.submit(_prepare_chunk, items)
        except (BrokenProcessPool, RuntimeError) as exc:  # broken, or shut down meanwhile
            self._give_up(exc)
            self._on_threads(items, futures)
            return
        task.add_done_callback(lambda done: self._deliver(done, items, futures))

    def _deliver(self, task: Future[Any], items: list[PairItem],
                 futures: list[Future[Any]]) -> None:
        if task.cancelled():
            for fut in futures:
                fut.cancel()
            return
        exc = task.exception()
        if exc is not None:  # a worker died (BrokenProcessPool), or pickling failed
            self._give_up(exc)
            self._on_threads(items, futures)
            return
        for fut, (ok, value) in zip(futures, task.result(), strict=True):
            if not fut.set_running_or_notify_cancel():
                continue
            if ok:
                fut.set_result(value)
            else:
                fut.set_exception(PrepareError(value))

    def _give_up(self, exc: BaseException) -> None:
        with self._lock:
            if self.broken is None:
                self.broken = f"{type(exc).__name__}: {exc}"

    def _on_threads(self, items: Iterable[PairItem], futures: Iterable[Future[Any]]) -> None:
        with self._lock:
            if self._closed:
                for fut in futures:
                    fut.cancel()
                return
            if self._fallback is None:
                self._fallback = ThreadPreparer(self.metric, self.setup,
                                                min(self.workers, thread_workers()))
            fallback = self._fallback
        for item, fut in zip(items, futures, strict=True):
            if not fut.set_running_or_notify_cancel():
                continue
            _chain(fallback.submit_many([item])[0], fut)

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self._pool.shutdown(wait=True, cancel_futures=True)
        if self._fallback is not None:
            self._fallback.close()


def _chain(source: Future[Any], target: Future[Any]) -> None:
    def copy(done: Future[Any]) -> None:
        if done.cancelled():
            target.set_exception(PrepareError("cancelled"))
        elif done.exception() is not None:
            target.set_exception(done.exception())
        else:
            target.set_result(done.result())
    source.add_done_callback(copy)


def thread_workers() -> int:
    """Decode threads a GPU run falls back to (ADR 196's default there)."""
    from core.metrics.settings import GPU_DECODE_THREADS

    return max(2, min(GPU_DECODE_THREADS, (os.cpu_count() or 2) - 1))
