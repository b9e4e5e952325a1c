"""Where a metric run's time goes: the preparing pipeline alone, and the model alone.

For each metric, in one process (ADR 209):

* **pipeline**: :func:`core.metrics.runner.iter_results` with the model left out (each
  batch scored as 0 at once): prepared items per second on decode threads and in worker
  processes, and the seconds until the first batch (a pool's start);
* **prepare alone**: milliseconds per item of ``metric.prepare`` on this thread;
* **model alone** (``--device cuda`` or cpu): milliseconds per pair of the model on
  items prepared beforehand, at each batch size, features not reused.

The runner can go no faster than the slower of pipeline and model::

    python3 benchmarks/bench_prepare_pipeline.py --device cuda --real-size --pairs 2048
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_metrics as bm  # noqa: E402

from core.metrics import models as model_utils  # noqa: E402
from core.metrics.base import MetricResult  # noqa: E402
from core.metrics.registry import get  # noqa: E402
from core.metrics.runner import iter_results  # noqa: E402
from core.metrics.settings import MetricSettings  # noqa: E402
from core.metrics.worker import ModelWorker  # noqa: E402


def without_model(metric):  # type: ignore[no-untyped-def]
    """The same metric (same name: worker processes find its ``prepare``) scoring 0."""
    cls = type(metric)
    blank = type(f"Blank{cls.__name__}", (cls,), {
        "model_based": False,
        "compute": lambda self, model, prepared, device: [MetricResult.ok(0.0)
                                                           for _ in prepared]})
    return blank()


def pipeline(metric, items, settings, device, worker, repeats):  # type: ignore[no-untyped-def]
    """Median items/s and seconds to the first batch."""
    blank = without_model(metric)
    rates, firsts = [], []
    for _ in range(repeats):
        t0, first, n = time.perf_counter(), None, 0
        for batch in iter_results(blank, items, settings, device, worker):
            n += len(batch)
            first = first if first is not None else time.perf_counter() - t0
        rates.append(n / (time.perf_counter() - t0))
        firsts.append(first or 0.0)
    return statistics.median(rates), statistics.median(firsts)


def model_alone(metric, items, settings, device, worker, batches):  # type: ignore[no-untyped-def]
    """Milliseconds per pair of the model at each batch size (prepared beforehand)."""
    setup = metric.setup(settings)
    prepared = [metric.prepare(item, setup) for item in items]
    worker.call(worker.model, metric, settings, device)
    out = {}
    for b in batches:
        worker.call(worker.compute, metric, settings, device, prepared[:b])  # warm
        t0 = time.perf_counter()
        for k in range(0, len(prepared), b):
            worker.clear_caches()
            worker.call(worker.compute, metric, settings, device, prepared[k:k + b])
        if device != "cpu":
            import torch

            torch.cuda.synchronize()
        out[b] = (time.perf_counter() - t0) / len(prepared) * 1e3
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--real-size", action="store_true")
    ap.add_argument("--pairs", type=int, default=256)
    ap.add_argument("--per-input", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workers", default="0", help="decode workers to try (0 = default)")
    ap.add_argument("--batches", default="8,32,64", help="model batch sizes to time")
    ap.add_argument("--faces", type=Path, default=bm.FACES)
    ap.add_argument("--metrics", default="clipscore,structure_distance")
    args = ap.parse_args()
    device = model_utils.select_device(args.device)
    worker = ModelWorker("bench-models")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        clip, dino = bm.build_models(root, "real" if args.real_size else "small")
        base = MetricSettings(clip_model=str(clip), dino_model=str(dino), device=device)
        for name in args.metrics.split(","):
            metric = get(name)
            items = bm.make_pairs(root, name, args.pairs, args.per_input, args.faces)
            setup = metric.setup(base)
            t0 = time.perf_counter()
            for item in items[:64]:
                metric.prepare(item, setup)
            print(f"{name}: prepare alone {(time.perf_counter() - t0) / 64 * 1e3:.1f} ms/item "
                  f"(one thread)", flush=True)
            for workers in (int(w) for w in args.workers.split(",")):
                for procs in (False, True):
                    settings = MetricSettings(
                        clip_model=str(clip), dino_model=str(dino), device=device,
                        decode_threads=workers or None, decode_processes=procs)
                    n = (settings.decode_process_count() if procs
                         else settings.decode_workers(device))
                    pipeline(metric, items[:64], settings, device, worker, 1)  # warm
                    rate, first = pipeline(metric, items, settings, device, worker,
                                           args.repeats)
                    print(f"{name}: pipeline, {n:2d} {'processes' if procs else 'threads  '}"
                          f": {rate:7.1f} items/s, first batch after {first:.2f} s",
                          flush=True)
            if metric.model_based:
                times = model_alone(metric, items[:256], base, device, worker,
                                    [int(b) for b in args.batches.split(",")])
                print(f"{name}: model alone " + ", ".join(
                    f"batch {b}: {ms:.2f} ms/pair ({1e3 / ms:.0f} pairs/s)"
                    for b, ms in times.items()), flush=True)
    # the model thread is left to end with the process (stopping it just before exit
    # aborted in torch's thread teardown: "terminate called without an active exception")


if __name__ == "__main__":
    main()
