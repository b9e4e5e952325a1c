"""Decode threads per device, and images shared by several pairs prepared once (ADR 196)."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from metrics_helpers import gradient_image, pair, ref_for, save

from core.metrics import structure
from core.metrics.base import PairItem
from core.metrics.imageio import PreparedCache
from core.metrics.registry import get
from core.metrics.runner import evaluate
from core.metrics.settings import MetricSettings


@pytest.mark.parametrize(("cores", "cpu", "cuda"), [(16, 2, 8), (64, 2, 8), (4, 2, 3),
                                                   (2, 2, 2), (None, 2, 2)])
def test_default_decode_threads_follow_the_device(monkeypatch, cores, cpu, cuda) -> None:
    monkeypatch.setattr("core.metrics.settings.os.cpu_count", lambda: cores)
    settings = MetricSettings()
    assert settings.decode_workers("cpu") == cpu
    assert settings.decode_workers("cuda") == cuda
    assert settings.decode_workers("cuda:1") == cuda


def test_explicit_decode_threads_win_on_every_device() -> None:
    settings = MetricSettings(decode_threads=5)
    assert settings.decode_workers("cpu") == settings.decode_workers("cuda") == 5


def test_prepared_cache_keeps_the_last_used_and_makes_each_key_once() -> None:
    cache = PreparedCache(size=2)
    made: list[str] = []

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    assert [cache.get(k, lambda k=k: make(k)) for k in "abab"] == ["A", "B", "A", "B"]
    assert made == ["a", "b"]
    cache.get("c", lambda: make("c"))  # evicts "a", the least recently used
    cache.get("b", lambda: make("b"))
    cache.get("a", lambda: make("a"))
    assert made == ["a", "b", "c", "a"]
    cache.clear()
    cache.get("b", lambda: make("b"))
    assert made[-1] == "b"


def test_prepared_cache_from_many_threads() -> None:
    cache = PreparedCache(size=8)
    errors: list[BaseException] = []

    def hammer(seed: int) -> None:
        rng = np.random.default_rng(seed)
        try:
            for k in rng.integers(0, 20, 500):
                assert cache.get(str(k), lambda k=k: int(k) * 2) == int(k) * 2
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=hammer, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(cache._items) <= 8


def _shared_input_items(tmp_path: Path, outputs: int) -> list[PairItem]:
    a = save(gradient_image(seed=1), tmp_path / "in.png")
    items = []
    for k in range(outputs):
        b = save(gradient_image(seed=10 + k), tmp_path / f"out{k}.png")
        item = pair(a, b)
        items.append(PairItem("s", f"m{k}", "", item.inputs, ref_for(b)))
    return items


def test_structure_decodes_an_input_shared_by_several_outputs_once(
        tmp_path: Path, monkeypatch) -> None:
    items = _shared_input_items(tmp_path, 4)
    opened: list[Path] = []
    real = structure.open_rgb

    def counting(ref, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(ref.path)
        return real(ref, *args, **kwargs)

    monkeypatch.setattr(structure, "open_rgb", counting)
    metric = get("structure_distance")
    setup = metric.setup(MetricSettings(dino_resolution=32))
    cached = [metric.prepare(item, setup) for item in items]
    assert opened.count(tmp_path / "in.png") == 1
    assert sorted(p.name for p in opened if p.name != "in.png") == [
        f"out{k}.png" for k in range(4)]
    # the same arrays as preparing every pair afresh
    for item, got in zip(items, cached, strict=True):
        setup.clear()
        fresh = metric.prepare(item, setup)
        for (key_a, x_a), (key_b, x_b) in zip(got, fresh, strict=True):
            assert key_a == key_b
            assert np.array_equal(x_a, x_b)


def test_structure_values_unchanged_by_the_shared_input(tiny_dino: Path, tmp_path: Path,
                                                        worker) -> None:
    """Each pair scored alone gives the value it gets in a run sharing the input."""
    items = _shared_input_items(tmp_path, 3)
    settings = MetricSettings(dino_model=str(tiny_dino), dino_resolution=32, device="cpu",
                              batch_size=2)
    together = evaluate(get("structure_distance"), items, settings, worker=worker)
    alone = [evaluate(get("structure_distance"), [item], settings, worker=worker)[0]
             for item in items]
    assert [r.value for r in together] == pytest.approx([r.value for r in alone], abs=1e-6)
    assert all(r.status == "ok" and r.value > 0 for r in together)
