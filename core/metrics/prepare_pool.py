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
items of that pool are prepared again one at a time in a separate worker, so an image
that crashes its decoder is named and left out alone, and the run goes on in a new pool.
"""

from __future__ import annotations

import multiprocessing
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any, Protocol

from core.metrics.base import Metric, PairItem

#: at most this many consecutive items sharing an input are prepared in one task
CHUNK = 8
#: new pools a run starts after losing one, before it goes on on threads
MAX_RESTARTS = 2
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
    """``metric.prepare`` in worker processes (see the module docstring).

    When a worker dies, every task of its pool fails at once; those items are then
    prepared again one at a time in a separate one-worker pool, so an image that kills
    its worker again is named and left out, alone.  The run goes on in a new pool (at
    most :data:`MAX_RESTARTS` times, then on threads of this process)."""

    kind = "processes"

    def __init__(self, metric: Metric, setup: Any, workers: int,
                 task: Callable[[list[PairItem]], list[tuple[bool, Any]]] | None = None,
                 fallback_threads: int = 2) -> None:
        self.metric, self.setup, self.workers = metric, setup, workers
        #: decode threads the run goes on with once its pools are lost
        self.fallback_threads = fallback_threads
        #: what a worker runs on a chunk (a module-level function; tests swap it)
        self.task = task or _prepare_chunk
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = self._new_pool(workers)
        self._probe: ProcessPoolExecutor | None = None
        self._isolator = ThreadPoolExecutor(1, thread_name_prefix="winnow-isolate")
        self._fallback: ThreadPreparer | None = None
        self._closed = False
        self.restarts = 0
        #: why a pool was last lost (None while the first one runs)
        self.broken: str | None = None

    def _new_pool(self, workers: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(workers, mp_context=process_context(),
                                   initializer=_start_worker,
                                   initargs=(self.metric.name, self.setup))

    def submit_many(self, items: Sequence[PairItem]) -> list[Future[Any]]:
        futures: list[Future[Any]] = [Future() for _ in items]
        for group in chunks(items):
            self._submit([items[k] for k in group], [futures[k] for k in group])
        return futures

    def _submit(self, items: list[PairItem], futures: list[Future[Any]]) -> None:
        for _ in range(MAX_RESTARTS + 2):
            pool = self._pool
            if pool is None:
                self._on_threads(items, futures)
                return
            try:
                task = pool.submit(self.task, items)
            except (BrokenProcessPool, RuntimeError) as exc:  # broken, or shut down
                self._lost(pool, exc)
                continue
            task.add_done_callback(partial(self._deliver, pool=pool, items=items,
                                           futures=futures))
            return
        self._on_threads(items, futures)

    def _deliver(self, task: Future[Any], *, pool: ProcessPoolExecutor,
                 items: list[PairItem], futures: list[Future[Any]]) -> None:
        if task.cancelled():
            for fut in futures:
                fut.cancel()
            return
        exc = task.exception()
        if exc is not None:  # a worker died (BrokenProcessPool), or pickling failed
            self._lost(pool, exc)
            with self._lock:
                if not self._closed:
                    self._isolator.submit(self._isolate, items, futures)
                    return
            for fut in futures:
                fut.cancel()
            return
        for fut, (ok, value) in zip(futures, task.result(), strict=True):
            _settle(fut, ok, value)

    def _lost(self, pool: ProcessPoolExecutor, exc: BaseException) -> None:
        """``pool`` failed: the run goes on in a new one, or on threads."""
        with self._lock:
            if pool is not self._pool:
                return  # already replaced
            self.broken = f"{type(exc).__name__}: {exc}"
            pool.shutdown(wait=False, cancel_futures=True)
            if self._closed or self.restarts >= MAX_RESTARTS:
                self._pool = None
            else:
                self.restarts += 1
                self._pool = self._new_pool(self.workers)

    def _isolate(self, items: list[PairItem], futures: list[Future[Any]]) -> None:
        """Prepare each item alone in the one-worker pool (on the isolating thread)."""
        for item, fut in zip(items, futures, strict=True):
            if self._closed:
                fut.cancel()
                continue
            if self._probe is None:
                self._probe = self._new_pool(1)
            try:
                (ok, value), = self._probe.submit(self.task, [item]).result()
            except BrokenProcessPool:
                self._probe.shutdown(wait=False)
                self._probe = None
                ok, value = False, (f"{item.label}: preparing its images stopped the worker "
                                    "process (a crash in an image decoder, or out of "
                                    "memory); left out of this run")
            except Exception as exc:  # shut down meanwhile, or the result did not pickle
                ok, value = False, f"{item.label}: {type(exc).__name__}: {exc}"
            _settle(fut, ok, value)

    def _on_threads(self, items: Iterable[PairItem], futures: Iterable[Future[Any]]) -> None:
        with self._lock:
            if self._closed:
                for fut in futures:
                    fut.cancel()
                return
            if self._fallback is None:
                self._fallback = ThreadPreparer(self.metric, self.setup,
                                                self.fallback_threads)
            fallback = self._fallback
        for item, fut in zip(items, futures, strict=True):
            if not fut.set_running_or_notify_cancel():
                continue
            _chain(fallback.submit_many([item])[0], fut)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        self._isolator.shutdown(wait=True, cancel_futures=True)
        if self._probe is not None:
            self._probe.shutdown(wait=True)
        if self._fallback is not None:
            self._fallback.close()


def _settle(fut: Future[Any], ok: bool, value: Any) -> None:
    if not fut.set_running_or_notify_cancel():
        return
    if ok:
        fut.set_result(value)
    else:
        fut.set_exception(PrepareError(value))


def _chain(source: Future[Any], target: Future[Any]) -> None:
    def copy(done: Future[Any]) -> None:
        if done.cancelled():
            target.set_exception(PrepareError("cancelled"))
        elif done.exception() is not None:
            target.set_exception(done.exception())
        else:
            target.set_result(done.result())
    source.add_done_callback(copy)
