"""Run metrics on a selection: cache check, overlapped decoding, batching, storing.

Pipeline per metric (ADR 060):

1. every item's inputs hash is compared with the stored row for (sample, model,
   metric, parameters); a row with the same metric version and hash is skipped;
2. decode threads (worker processes on a GPU, ADR 209) run ``metric.prepare`` a few
   batches ahead of the model;
3. the model thread (:mod:`core.metrics.worker`) scores one batch at a time; a
   batch that fails is retried item by item so one bad image costs one error;
4. each batch is stored in one transaction; cancel is checked between batches.

Judge metrics go through :func:`core.metrics.judges.judge_items` (asyncio + httpx).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from core import extras
from core.jobs import Cancelled, JobState
from core.metrics import store
from core.metrics.base import Metric, MetricResult, PairItem, inputs_hash, params_hash
from core.metrics.judges import JudgeMetric, judge_items
from core.metrics.prepare_pool import CHUNK, Preparer, ProcessPreparer, ThreadPreparer
from core.metrics.settings import MetricSettings
from core.metrics.worker import ModelWorker, shared_worker
from core.store.project import Project

PREFETCH_BATCHES = 2


@dataclass
class RunSummary:
    """What a run did, per metric and in total."""

    device: str = "cpu"
    computed: int = 0
    cached: int = 0
    not_applicable: int = 0
    errors: int = 0
    failed_metrics: dict[str, str] = field(default_factory=dict)
    per_metric: dict[str, dict[str, int]] = field(default_factory=dict)
    seconds: float = 0.0

    def count(self, metric: str, key: str, n: int = 1) -> None:
        entry = self.per_metric.setdefault(
            metric, {"computed": 0, "cached": 0, "not_applicable": 0, "errors": 0})
        entry[key] += n
        setattr(self, key, getattr(self, key) + n)

    def to_json(self) -> dict[str, Any]:
        return {"device": self.device, "computed": self.computed, "cached": self.cached,
                "not_applicable": self.not_applicable, "errors": self.errors,
                "failed_metrics": self.failed_metrics, "per_metric": self.per_metric,
                "seconds": round(self.seconds, 3)}


def _run_async(coro: Any) -> Any:
    """Run ``coro`` on a plain selector loop of this thread: under the GUI, qasync's
    policy would make ``asyncio.run``'s loop a Qt loop, which fails off the GUI thread
    (ADR 002, ADR 142)."""
    with asyncio.Runner(loop_factory=asyncio.SelectorEventLoop) as runner:
        return runner.run(coro)


def resolve_device(metrics: Sequence[Metric], settings: MetricSettings) -> str:
    """The device a run uses (imports torch only when a torch metric is among them)."""
    if not any(m.uses_torch for m in metrics) or not extras.available("metrics"):
        return "cpu"  # without torch its metrics fail one by one, naming the extra
    from core.metrics.models import select_device

    return select_device(settings.device)


def iter_results(metric: Metric, items: Sequence[PairItem], settings: MetricSettings,
                 device: str, worker: ModelWorker,
                 check: Callable[[], None] = lambda: None,
                 ) -> Iterator[list[tuple[PairItem, MetricResult, float]]]:
    """Score ``items`` (all applicable) batch by batch: yields ``[(item, result, seconds)]``."""
    setup = metric.setup(settings)
    if metric.model_based:
        worker.call(worker.model, metric, settings, device)  # load errors surface here
    size = max(1, settings.batch_for(metric.batch_size, metric.gpu_batch_size, device))
    todo = iter(items)
    pending: deque[tuple[PairItem, Future[Any]]] = deque()
    preparer = open_preparer(metric, setup, settings, device, len(items))
    # enough in flight for the next batches, and for every worker process (ADR 209)
    depth = max(size * (PREFETCH_BATCHES + 1),
                preparer.workers * CHUNK * 2 if preparer.kind == "processes" else 0)

    def fill() -> None:
        new = list(islice(todo, max(0, depth - len(pending))))
        pending.extend(zip(new, preparer.submit_many(new), strict=True))

    try:
        fill()
        while pending:
            check()
            ready: list[tuple[PairItem, Any]] = []
            out: list[tuple[PairItem, MetricResult, float]] = []
            # wait for the next item only; then take the items already prepared behind
            # it, up to a full batch: the model never idles waiting for a batch to fill
            # (batches grow by themselves when the model is the slower side)
            while pending and len(ready) + len(out) < size:
                item, fut = pending[0]
                if (ready or out) and not fut.done():
                    break
                pending.popleft()
                try:
                    ready.append((item, fut.result()))
                except Exception as exc:
                    out.append((item, MetricResult.fail(str(exc)), 0.0))
            fill()  # a batch's worth at a time: items sharing an input stay together
            if ready:
                out += _compute(worker, metric, settings, device, ready)
            yield out
    finally:
        for _, fut in pending:
            fut.cancel()
        preparer.close()


def open_preparer(metric: Metric, setup: Any, settings: MetricSettings, device: str,
                  items: int) -> Preparer:
    """Decode threads, or worker processes where the run is worth them (ADR 209)."""
    if settings.uses_processes(device, metric.process_min_items, items):
        return ProcessPreparer(metric, setup, settings.decode_process_count(),
                               fallback_threads=settings.decode_workers(device))
    return ThreadPreparer(metric, setup, settings.decode_workers(device))


def _finite(metric: Metric, result: MetricResult) -> MetricResult:
    """An 'ok' result whose value is NaN or infinite is an error (ADR 208): a checkpoint
    whose weights hold NaN (a diverged run, an fp16 overflow) loads like any other, and
    its scores were stored as 'ok' and averaged into nothing."""
    if result.status != "ok" or result.value is None or math.isfinite(result.value):
        return result
    return MetricResult.fail(
        f"{metric.title} gave {result.value} (not a number): the model's weights hold NaN "
        "or infinite values, or this image made it overflow; check the model folder in "
        "Metrics → Settings")


def _compute(worker: ModelWorker, metric: Metric, settings: MetricSettings, device: str,
             ready: list[tuple[PairItem, Any]]) -> list[tuple[PairItem, MetricResult, float]]:
    t0 = time.perf_counter()
    try:
        results = worker.call(worker.compute, metric, settings, device, [p for _, p in ready])
        per = (time.perf_counter() - t0) / len(ready)
        return [(item, _finite(metric, r), per)
                for (item, _), r in zip(ready, results, strict=True)]
    except Exception as exc:
        if len(ready) == 1:
            return [(ready[0][0], MetricResult.fail(f"{type(exc).__name__}: {exc}"),
                     time.perf_counter() - t0)]
    out = []
    for pair in ready:  # isolate the item that broke the batch
        out += _compute(worker, metric, settings, device, [pair])
    return out


def evaluate(metric: Metric, items: Sequence[PairItem], settings: MetricSettings, *,
             device: str | None = None, worker: ModelWorker | None = None,
             state: JobState | None = None) -> list[MetricResult]:
    """Score items without a project (``winnow metrics pair``, benchmarks); order kept."""
    settings = settings.with_key_from_env()
    worker = worker or shared_worker()
    device = device or resolve_device([metric], settings)
    results: dict[int, MetricResult] = {}
    index = {id(item): k for k, item in enumerate(items)}
    runnable = []
    for k, item in enumerate(items):
        reason = metric.applicable(item)
        if reason:
            results[k] = MetricResult.na(reason)
        else:
            runnable.append(item)
    check = state.check if state else (lambda: None)
    if isinstance(metric, JudgeMetric):
        def keep(item: PairItem, result: MetricResult) -> None:
            results[index[id(item)]] = result
        with ThreadPoolExecutor(settings.decode_workers(device)) as pool:
            _run_async(judge_items(metric, settings, runnable, keep,
                                   state.cancelled if state else (lambda: False),
                                   executor=pool))
        check()
    else:
        for batch in iter_results(metric, runnable, settings, device, worker, check):
            for item, result, _ in batch:
                results[index[id(item)]] = result
    return [results[k] for k in range(len(items)) if k in results]


def run_metrics(state: JobState, project: Project, metrics: Sequence[Metric],
                items: Sequence[PairItem], settings: MetricSettings, *,
                worker: ModelWorker | None = None) -> RunSummary:
    """Score every item with every metric, skipping cached results; store as it goes.

    Raises :class:`core.jobs.Cancelled` when cancelled (what was stored stays).  A
    metric whose model cannot be loaded is reported in ``failed_metrics``; the
    others still run.
    """
    t_start = time.perf_counter()
    settings = settings.with_key_from_env()
    worker = worker or shared_worker()
    summary = RunSummary(device=resolve_device(metrics, settings))
    plans = []
    for metric in metrics:
        params = metric.params(settings)
        ph = params_hash(metric, params)
        have = store.cached(project, metric.name, ph)
        todo: list[tuple[PairItem, str]] = []
        na_rows = []
        for item in items:
            h = inputs_hash(metric, item)
            row = have.get((item.sample_id, item.model))
            if row and row.version == metric.version and row.inputs_hash == h \
                    and row.status != "error" and not row.incomplete:
                summary.count(metric.name, "cached")
                continue
            reason = metric.applicable(item)
            if reason:
                na_rows.append((item.sample_id, item.model, h, MetricResult.na(reason), None))
            else:
                todo.append((item, h))
        store.save_results(project, metric.name, metric.version, params, ph, na_rows)
        summary.count(metric.name, "not_applicable", len(na_rows))
        plans.append((metric, params, ph, todo))
    state.set_total(len(items) * len(metrics))
    state.set_progress(summary.cached + summary.not_applicable)
    run_id = store.start_run(project, [m.name for m in metrics],
                             sorted({i.model for i in items}), len({i.sample_id for i in items}),
                             summary.device)
    outcome = "done"
    try:
        for metric, params, ph, todo in plans:
            if not todo:
                continue
            state.set_status(f"{metric.title}: {len(todo)} to compute")
            try:
                _run_one(state, project, metric, params, ph, todo, settings, summary, worker)
            except Cancelled:
                raise
            except extras.ExtraMissingError as exc:  # its message names the install command
                summary.failed_metrics[metric.name] = str(exc)
                state.advance(len(todo))
            except Exception as exc:  # e.g. model not available: report, go on
                summary.failed_metrics[metric.name] = f"{type(exc).__name__}: {exc}"
                state.advance(len(todo))
    except Cancelled:
        outcome = "cancelled"
        raise
    except BaseException:
        outcome = "failed"
        raise
    finally:
        summary.seconds = time.perf_counter() - t_start
        store.finish_run(project, run_id, summary.computed, summary.cached, summary.errors,
                         outcome)
    return summary


def _run_one(state: JobState, project: Project, metric: Metric, params: dict[str, Any],
             ph: str, todo: list[tuple[PairItem, str]], settings: MetricSettings,
             summary: RunSummary, worker: ModelWorker) -> None:
    hashes = {id(item): h for item, h in todo}
    done = 0

    def save(batch: Sequence[tuple[PairItem, MetricResult, float | None]]) -> None:
        nonlocal done
        rows = [(i.sample_id, i.model, hashes[id(i)], r, sec) for i, r, sec in batch]
        store.save_results(project, metric.name, metric.version, params, ph, rows)
        for _, r, _ in batch:
            key = {"ok": "computed", "error": "errors"}.get(r.status, "not_applicable")
            summary.count(metric.name, key)
        done += len(batch)
        state.advance(len(batch))
        state.set_status(f"{metric.title}: {done}/{len(todo)}")

    items = [item for item, _ in todo]
    if isinstance(metric, JudgeMetric):
        with ThreadPoolExecutor(settings.decode_workers(summary.device)) as pool:
            _run_async(judge_items(
                metric, settings, items,
                lambda item, result: save([(item, result, None)]),
                state.cancelled, executor=pool))
        state.check()
        return
    for batch in iter_results(metric, items, settings, summary.device, worker, state.check):
        save(batch)
