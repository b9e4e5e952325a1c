"""How to run CenterFace's small-face tiles: batched or one by one, and which onnxruntime
session options (issue 18, ADR 116).

The 12 MP photo of ``bench_anonymize_speed.py`` (``bald_guys.jpg`` at 4000 × 3000) at
the tile pass's scale (0.6 at the default ``min_face_px`` 20: 2400 × 1800, 20 tiles of
544 × 512).  Variants, each its own session, run in turn (round-robin, so they see the
same load) after a warm-up:

- ``batchN``: the tiles stacked N to a ``run`` (the model's batch axis is dynamic);
- ``threadsN``: N intra-op threads (Winnow: one per core, at most 4), threads asleep;
- ``spin``: Winnow's threads allowed to spin between operators;
- ``basic`` / ``extended``: graph optimisation level below Winnow's (all);
- ``iobind``: inputs and outputs bound once per tile shape (``run_with_iobinding``);
- ``whole``: no tiles, one run over the whole photo at the tile scale (its heat map is
  not comparable, so no difference is printed for it).

Every variant's heat maps are compared with one run per tile (max abs difference).
Prints the median wall / CPU seconds of the whole tile pass per variant and the ratio to
Winnow's way (``batch1``).

    .venv/bin/python benchmarks/bench_centerface_runs.py [--rounds 5] [--variants ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from core.imaging import faces  # noqa: E402
from core.imaging.detect import TILE, _tile_plan  # noqa: E402

NAMES = ["537", "538", "539", "540"]
VARIANTS = ("batch1", "batch2", "batch4", "batch20", "threads1", "spin", "basic",
            "extended", "iobind", "whole")


def tiles() -> tuple[list[np.ndarray], np.ndarray]:
    """The (1, 3, h, w) float blobs of the 12 MP photo's small-face tiles, and of the
    whole photo at the tile scale."""
    import cv2

    from core.imaging.loading import load_rgb

    base = load_rgb(HERE.parent / "shared" / "testdata" / "faces" / "bald_guys.jpg")
    rgb = cv2.resize(base, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    _global, scale, overlap = _tile_plan(3000, 4000, 20)
    small = faces.resize_by(rgb, scale)
    grid = faces.tile_grid(small.shape[0], small.shape[1], TILE, overlap)
    def blob(part: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(faces._pad32(part).transpose(2, 0, 1)[None]
                                    .astype(np.float32))

    return [blob(small[y:y + h, x:x + w]) for y, x, h, w in grid], blob(small)


def session(variant: str) -> Any:
    """An onnxruntime session of CenterFace with the variant's options."""
    from core.onnx_runtime import onnxruntime

    ort = onnxruntime()

    options = faces.session_options()
    options.log_severity_level = 3  # re-setting the spinning entry warns
    if variant == "threads1":
        options.intra_op_num_threads = 1
    elif variant == "spin":
        options.add_session_config_entry("session.intra_op.allow_spinning", "1")
    elif variant == "basic":
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    elif variant == "extended":
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    path = faces.centerface_model_path()
    assert path is not None, "CenterFace is not installed"
    return ort.InferenceSession(path.read_bytes(), options,
                                providers=["CPUExecutionProvider"])


def runner(variant: str, blobs: list[np.ndarray], whole: np.ndarray
           ) -> Callable[[], np.ndarray]:
    """A call running every tile the variant's way; returns the stacked heat maps."""
    sess = session(variant)
    if variant == "whole":
        return lambda: np.asarray(sess.run(NAMES, {"input.1": whole})[0])
    size = int(variant[5:]) if variant.startswith("batch") else 1
    if variant == "iobind":
        from core.onnx_runtime import onnxruntime

        ort = onnxruntime()

        binding = sess.io_binding()
        feed = ort.OrtValue.ortvalue_from_numpy(blobs[0])
        binding.bind_ortvalue_input("input.1", feed)
        for name in NAMES:
            binding.bind_output(name)

        def bound() -> np.ndarray:
            heat = []
            for blob in blobs:
                feed.update_inplace(blob)
                sess.run_with_iobinding(binding)
                heat.append(binding.get_outputs()[0].numpy().copy())
            return np.concatenate(heat)

        return bound

    def plain() -> np.ndarray:
        heat = []
        for i in range(0, len(blobs), size):
            batch = blobs[i] if size == 1 else np.concatenate(blobs[i:i + size])
            heat.append(sess.run(NAMES, {"input.1": batch})[0])
        return np.concatenate(heat)

    return plain


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args()
    blobs, whole = tiles()
    names = args.variants.split(",")
    runs = {name: runner(name, blobs, whole) for name in names}
    reference = runner("batch1", blobs, whole)()
    for name, run in runs.items():  # warm-up, and every variant finds the same
        heat = run()
        if name != "whole":
            diff = float(np.abs(heat - reference).max())
            print(f"{name}: max |heat - one run per tile| = {diff:.2e}")
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    load = os.getloadavg()[0]
    for _ in range(args.rounds):
        for name, run in runs.items():
            wall, cpu = time.perf_counter(), time.process_time()
            run()
            times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    print(f"\n{len(blobs)} tiles of {blobs[0].shape[3]} x {blobs[0].shape[2]}, "
          f"{args.rounds} rounds; median s [wall, CPU] and / batch1")
    base = times.get("batch1")
    for name, rows in times.items():
        wall = statistics.median(r[0] for r in rows)
        cpu = statistics.median(r[1] for r in rows)
        line = f"  {name:9s} {wall:.3f} / {cpu:.3f}"
        if base:
            line += (f"   {wall / statistics.median(r[0] for r in base):.2f} / "
                     f"{cpu / statistics.median(r[1] for r in base):.2f}")
        print(line)
    print(f"load average {load:.1f} -> {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
