"""The model thread: one long-lived thread that owns every loaded model and the device.

torch models (and dlib/onnx/OCR engines) are created, kept and run only on this
thread, so a CUDA context never crosses threads and models stay loaded between
runs.  Jobs submit callables and wait on a :class:`concurrent.futures.Future`.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from core.metrics import models
from core.metrics.base import Metric, MetricResult
from core.metrics.settings import MetricSettings


class ModelWorker:
    """A daemon thread running submitted callables in order, with a model cache."""

    def __init__(self, name: str = "winnow-models") -> None:
        self.name = name
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._models: dict[tuple[str, str, str], Any] = {}
        self.loads = 0  # how many models were loaded (tests check reuse)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        """Run ``fn(*args)`` on the model thread."""
        with self._start_lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
                self._thread.start()
        fut: Future[Any] = Future()
        self._queue.put((fut, fn, args))
        return fut

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run on the model thread and wait for the result."""
        if threading.current_thread() is self._thread:
            return fn(*args)
        return self.submit(fn, *args).result()

    def _loop(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            fut, fn, args = job
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(fn(*args))
            except BaseException as exc:  # delivered to the waiting job
                fut.set_exception(exc)

    # -- models (call on the model thread only) ------------------------------------------
    def model(self, metric: Metric, settings: MetricSettings, device: str) -> Any:
        """The loaded model for ``metric`` with these settings on ``device`` (cached)."""
        key = (metric.name, json.dumps(metric.params(settings), sort_keys=True), device)
        if key not in self._models:
            if metric.model_based:
                from core.extras import require

                require("metrics", f"The metric {metric.title!r}")
            if metric.uses_torch:
                models.configure_torch(device, settings.cpu_threads)
            self._models[key] = metric.load(settings, device)
            self.loads += 1
        return self._models[key]

    def compute(self, metric: Metric, settings: MetricSettings, device: str,
                prepared: list[Any]) -> list[MetricResult]:
        """Score one batch (on the model thread; torch metrics under ``inference_mode``)."""
        model = self.model(metric, settings, device)
        if metric.uses_torch:
            import torch

            with torch.inference_mode():
                results = metric.compute(model, prepared, device)
        else:
            results = metric.compute(model, prepared, device)
        if len(results) != len(prepared):
            raise RuntimeError(f"{metric.name} returned {len(results)} results for "
                               f"{len(prepared)} items")
        return results

    def clear_caches(self) -> None:
        """Empty the per-image feature caches of loaded models (keeps the models)."""
        def _clear() -> None:
            for model in self._models.values():
                cache = getattr(model, "cache", None)
                if cache is not None:
                    cache.clear()
        self.call(_clear)

    def clear(self) -> None:
        """Forget every loaded model (frees GPU memory)."""
        def _clear() -> None:
            self._models.clear()
            import sys

            if "torch" in sys.modules:
                torch = sys.modules["torch"]
                if torch.cuda.is_available():
                    torch.cuda.empty_cache()
        self.call(_clear)

    def stop(self) -> None:
        """End the thread after the queued work (a new submit starts it again)."""
        self._queue.put(None)


_shared: ModelWorker | None = None
_shared_lock = threading.Lock()


def shared_worker() -> ModelWorker:
    """The process-wide model thread used by the app and the CLI."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = ModelWorker()
        return _shared
