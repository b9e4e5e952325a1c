"""Images prepared in worker processes on a GPU run (ADR 209): same values as threads,
errors that name the image, a dead worker costs no item, inputs still shared."""

from __future__ import annotations

import os
import pickle
import signal
import time
from concurrent.futures import wait
from pathlib import Path

import numpy as np
import pytest
from metrics_helpers import crash_on_model, gradient_image, pair, ref_for, save

from core.metrics.base import PairItem
from core.metrics.imageio import PreparedCache
from core.metrics.prepare_pool import ProcessPreparer, ThreadPreparer, chunks
from core.metrics.registry import get
from core.metrics.runner import evaluate, open_preparer
from core.metrics.settings import MetricSettings


def _items(tmp_path: Path, samples: int, per_input: int) -> list[PairItem]:
    items = []
    for s in range(samples):
        a = save(gradient_image(seed=s), tmp_path / f"in{s}.png")
        for m in range(per_input):
            b = save(gradient_image(seed=1000 + s * 10 + m), tmp_path / f"out{s}_{m}.png")
            items.append(PairItem(f"s{s}", f"m{m}", f"a photo {s}", pair(a, b).inputs,
                                  ref_for(b)))
    return items


@pytest.mark.parametrize(("device", "items", "setting", "least", "expected"), [
    ("cpu", 10_000, None, 100, False),           # the CPU's cores run torch's threads
    ("cuda", 100, None, 100, True),
    ("cuda", 99, None, 100, False),              # a pool's start costs more than it buys
    ("cuda:1", 500, None, 100, True),
    ("cuda", 500, False, 100, False),            # switched off
    ("cpu", 3, True, 100, True),                 # asked for
    ("cuda", 500, True, None, False),            # the metric does not allow it
])
def test_when_a_run_prepares_in_processes(device, items, setting, least, expected) -> None:
    settings = MetricSettings(decode_processes=setting)
    assert settings.uses_processes(device, least, items) is expected


def test_each_metric_starts_processes_where_they_pay_off() -> None:
    """From the H200 run (ADR 209): a pool's start (0.8–1.7 s) against what the processes
    buy per item over 8 threads."""
    least = {n: get(n).process_min_items for n in ("clipscore", "structure_distance",
                                                   "face_identity")}
    assert least == {"clipscore": 1024, "structure_distance": 384, "face_identity": 128}
    settings = MetricSettings()
    assert not settings.uses_processes("cuda", least["clipscore"], 1000)
    assert settings.uses_processes("cuda", least["structure_distance"], 1000)


@pytest.mark.parametrize(("cores", "threads", "expected"), [
    (16, None, 15), (64, None, 16), (2, None, 1), (None, None, 1), (16, 4, 4)])
def test_worker_process_count(monkeypatch, cores, threads, expected) -> None:
    monkeypatch.setattr("core.metrics.settings.os.cpu_count", lambda: cores)
    assert MetricSettings(decode_threads=threads).decode_process_count() == expected


def test_only_metrics_whose_setup_pickles_allow_processes() -> None:
    allowed = {m.name for m in [get(n) for n in ("clipscore", "structure_distance",
                                                  "face_identity", "colour_shift",
                                                  "text_ocr_cer", "judge_overall")]
               if m.process_min_items is not None}
    assert allowed == {"clipscore", "structure_distance", "face_identity"}
    settings = MetricSettings(dino_resolution=32)
    for name in sorted(allowed):
        metric = get(name)
        setup = metric.setup(settings if name != "clipscore" else MetricSettings())
        assert type(pickle.loads(pickle.dumps(setup))) is type(setup)


def test_a_prepared_cache_pickles_empty() -> None:
    cache = PreparedCache(size=5)
    cache.get("a", lambda: 1)
    copy = pickle.loads(pickle.dumps(cache))
    assert copy.size == 5 and not copy._items
    assert copy.get("a", lambda: 2) == 2  # a working cache of its own


def test_items_sharing_an_input_are_chunked_together(tmp_path: Path) -> None:
    items = _items(tmp_path, 3, 4)
    assert chunks(items) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    assert chunks(items, size=3) == [[0, 1, 2], [3], [4, 5, 6], [7], [8, 9, 10], [11]]
    t2i = [PairItem("s", f"m{k}", "p", (), items[k].output) for k in range(3)]
    assert chunks(t2i) == [[0], [1], [2]]


def test_processes_prepare_what_threads_prepare(tmp_path: Path) -> None:
    metric = get("structure_distance")
    settings = MetricSettings(dino_resolution=32)
    items = _items(tmp_path, 3, 3)
    threads = ThreadPreparer(metric, metric.setup(settings), 2)
    procs = ProcessPreparer(metric, metric.setup(settings), 2)
    try:
        a = [f.result(timeout=60) for f in threads.submit_many(items)]
        b = [f.result(timeout=60) for f in procs.submit_many(items)]
    finally:
        threads.close()
        procs.close()
    assert procs.broken is None
    for got, want in zip(b, a, strict=True):
        assert [k for k, _ in got] == [k for k, _ in want]
        for (_, x), (_, y) in zip(got, want, strict=True):
            assert np.array_equal(x, y)


def test_a_broken_image_fails_alone_and_is_named(tmp_path: Path) -> None:
    metric = get("structure_distance")
    items = _items(tmp_path, 2, 2)
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n not really")
    items[1] = PairItem("s0", "m1", "", items[1].inputs, ref_for(bad))
    procs = ProcessPreparer(metric, metric.setup(MetricSettings(dino_resolution=32)), 2)
    try:
        futures = procs.submit_many(items)
        wait(futures, timeout=60)
    finally:
        procs.close()
    with pytest.raises(ValueError, match=ref_for(bad).sha256[:12]):
        futures[1].result()
    assert all(len(f.result()) == 2 for k, f in enumerate(futures) if k != 1)
    assert procs.broken is None  # an image's error is not a dead worker


def test_a_killed_worker_costs_no_item(tmp_path: Path) -> None:
    metric = get("structure_distance")
    settings = MetricSettings(dino_resolution=32)
    items = _items(tmp_path, 4, 2)
    procs = ProcessPreparer(metric, metric.setup(settings), 2)
    try:
        first = procs.submit_many(items[:2])
        wait(first, timeout=60)
        for pid in list(procs._pool._processes):  # kill -9 every worker
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)
        rest = procs.submit_many(items[2:])
        wait(rest, timeout=60)
    finally:
        procs.close()
    assert procs.broken and "BrokenProcessPool" in procs.broken
    fresh = metric.setup(settings)
    for item, fut in zip(items, first + rest, strict=True):
        want = metric.prepare(item, fresh)
        got = fut.result()
        assert all(np.array_equal(x, y) for (_, x), (_, y) in zip(got, want, strict=True))


def test_open_preparer_follows_the_settings(tmp_path: Path) -> None:
    metric = get("clipscore")
    setup = metric.setup(MetricSettings())
    for settings, device, n, kind in [
            (MetricSettings(), "cpu", 1000, "threads"),
            (MetricSettings(), "cuda", 1000, "threads"),  # CLIP: from 1,024 items
            (MetricSettings(), "cuda", 1024, "processes"),
            (MetricSettings(decode_processes=False), "cuda", 5000, "threads")]:
        preparer = open_preparer(metric, setup, settings, device, n)
        try:
            assert preparer.kind == kind
        finally:
            preparer.close()
    colour = get("colour_shift")
    preparer = open_preparer(colour, None, MetricSettings(), "cuda", 1000)
    preparer.close()
    assert preparer.kind == "threads"


def test_a_run_in_processes_gives_the_values_of_a_run_on_threads(
        tiny_dino: Path, tiny_clip: Path, tmp_path: Path, worker) -> None:
    items = _items(tmp_path, 3, 3)
    base = MetricSettings(dino_model=str(tiny_dino), clip_model=str(tiny_clip),
                          dino_resolution=32, device="cpu", batch_size=4)
    for name in ("structure_distance", "clipscore"):
        metric = get(name)
        on_threads = evaluate(metric, items, base, worker=worker)
        from dataclasses import replace

        in_procs = evaluate(metric, items, replace(base, decode_processes=True), worker=worker)
        assert [r.status for r in in_procs] == ["ok"] * len(items)
        # batches may be cut differently (float32 sums in another order): rel 1e-6
        assert [r.value for r in in_procs] == pytest.approx(
            [r.value for r in on_threads], rel=1e-5, abs=1e-6)


def test_images_travel_as_bytes_and_are_normalised_as_before(tmp_path: Path) -> None:
    """Prepared images are ``(3, H, W) uint8``; normalising them on the model's device
    gives bit for bit the floats the CPU made before ADR 209."""
    torch = pytest.importorskip("torch")
    from PIL import Image

    from core.metrics import models
    from core.metrics.clipscore import OPENAI_MEAN, OPENAI_STD
    from core.metrics.imageio import normalize_chw, resize_exact

    im = gradient_image(w=300, h=200, seed=3)
    x = resize_exact(im, (64, 48))
    assert x.dtype == np.uint8 and x.shape == (3, 48, 64) and x.flags.c_contiguous
    before = np.asarray(im.resize((64, 48), Image.Resampling.BICUBIC), dtype=np.float32) / 255.0
    before = ((before - np.asarray(OPENAI_MEAN, dtype=np.float32))
              / np.asarray(OPENAI_STD, dtype=np.float32)).transpose(2, 0, 1)
    assert np.array_equal(normalize_chw(x, OPENAI_MEAN, OPENAI_STD), before)
    on_device = models.normalized([x, x], "cpu", OPENAI_MEAN, OPENAI_STD, torch.float32)
    assert on_device.dtype == torch.float32 and tuple(on_device.shape) == (2, 3, 48, 64)
    assert np.array_equal(on_device[1].numpy(), before)


@pytest.mark.parametrize(("setting", "device", "expected"), [
    (None, "cpu", 8), (None, "cuda", 32), (16, "cuda", 16), (4, "cpu", 4)])
def test_structure_distance_batches_more_on_a_gpu(setting, device, expected) -> None:
    metric = get("structure_distance")
    settings = MetricSettings(batch_size=setting)
    assert settings.batch_for(metric.batch_size, metric.gpu_batch_size, device) == expected
    clip = get("clipscore")
    assert MetricSettings().batch_for(clip.batch_size, clip.gpu_batch_size, "cuda") == 64
    assert MetricSettings().batch_for(clip.batch_size, clip.gpu_batch_size, "cpu") == 32


@pytest.mark.parametrize(("platform", "method"), [("linux", "forkserver"),
                                                  ("darwin", "spawn"), ("win32", "spawn")])
def test_workers_never_fork_from_the_app(monkeypatch, platform, method) -> None:
    """Linux: forked from a clean, preloaded server; elsewhere spawned (ADR 209)."""
    from core.metrics import prepare_pool

    monkeypatch.setattr(prepare_pool.sys, "platform", platform)
    assert prepare_pool.process_context().get_start_method() == method


def test_an_image_that_kills_its_worker_is_named_and_left_out_alone(tmp_path: Path) -> None:
    """The pool's other items are prepared again one at a time; only the item whose
    preparing kills its worker fails, named; the run goes on in a new pool."""
    metric = get("structure_distance")
    settings = MetricSettings(dino_resolution=32)
    items = _items(tmp_path, 4, 3)
    bad = items[4]
    items[4] = PairItem(bad.sample_id, "crash", bad.prompt, bad.inputs, bad.output)
    procs = ProcessPreparer(metric, metric.setup(settings), 2, task=crash_on_model)
    try:
        futures = procs.submit_many(items)
        wait(futures, timeout=120)
        later = procs.submit_many(items[:2])  # after the loss: a new pool serves
        wait(later, timeout=60)
    finally:
        procs.close()
    assert procs.restarts >= 1 and "BrokenProcessPool" in (procs.broken or "")
    with pytest.raises(ValueError, match=r"s1 / crash: preparing its images stopped the "
                       r"worker process"):
        futures[4].result()
    fresh = metric.setup(settings)
    for item, fut in zip(items[:4] + items[5:] + items[:2], futures[:4] + futures[5:] + later,
                         strict=True):
        want = metric.prepare(item, fresh)
        assert all(np.array_equal(x, y) for (_, x), (_, y) in zip(fut.result(), want,
                                                                   strict=True))
    assert procs._fallback is None  # never on the app's own threads


def test_a_pool_lost_again_and_again_ends_on_threads(tmp_path: Path) -> None:
    metric = get("structure_distance")
    settings = MetricSettings(dino_resolution=32)
    items = _items(tmp_path, 2, 2)
    procs = ProcessPreparer(metric, metric.setup(settings), 1)
    try:
        for _ in range(4):  # kill -9 the workers of each new pool
            wait(procs.submit_many(items[:1]), timeout=60)
            pool = procs._pool
            if pool is None:
                break
            for pid in list(pool._processes):
                os.kill(pid, signal.SIGKILL)
            time.sleep(0.3)
        futures = procs.submit_many(items)
        wait(futures, timeout=60)
    finally:
        procs.close()
    assert procs.restarts == 2 and procs._pool is None and procs._fallback is not None
    assert all(len(f.result()) == 2 for f in futures)


def test_a_cancelled_run_stops_its_workers(tiny_dino: Path, tmp_path: Path, worker) -> None:
    """Cancel between batches: pending items are dropped and every worker process ends."""
    import multiprocessing

    from core.jobs import Cancelled
    from core.metrics.runner import iter_results

    metric = get("structure_distance")
    items = _items(tmp_path, 6, 4)
    settings = MetricSettings(dino_model=str(tiny_dino), dino_resolution=32, device="cpu",
                              decode_processes=True, decode_threads=2, batch_size=2)
    seen: list[object] = []
    workers: list[object] = []

    def check() -> None:
        workers.extend(p for p in multiprocessing.active_children() if p not in before)
        if seen:
            raise Cancelled()

    before = set(multiprocessing.active_children())
    with pytest.raises(Cancelled):
        for batch in iter_results(metric, items, settings, "cpu", worker, check):
            seen.append(batch)
    assert len(seen) == 1 and workers  # it ran in worker processes
    assert not [p for p in multiprocessing.active_children() if p not in before]
