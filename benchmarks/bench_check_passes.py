"""What the release check's CenterFace passes cost (ADR 197, 203), variants side by side.

Per photo, in one process, the variants alternating (a, b, c, a, b, c, …) so all see
the same load:

- ``apart``: the check's face search as before ADR 203: the upright search (whole photo
  + small-face tiles) and the three turned whole-photo passes, each shrinking the photo
  itself;
- ``shared``: :func:`core.imaging.detect.faces_any_way_up` (one shrunk copy for the
  upright and turned whole-photo passes);
- ``runs1`` / ``runs2``: the four whole-photo model runs alone (upright, ½, ¼, ¾ turns
  of the shrunk copy), one image a run, or two a run (upright with ½, ¼ with ¾: the
  same shapes) — whether batching pays on this CPU.

Photos: ``bald_guys.jpg`` at 1000 × 778 (1 MP), the first held-out US plate photo
(1920 × 1080) and ``bald_guys.jpg`` at 4000 × 3000 (12 MP).

    .venv/bin/python benchmarks/bench_check_passes.py [--repeats 7]

Prints medians of wall and CPU seconds (process time, onnxruntime's threads included),
each variant's ratio to the first, and the load average before and after. First, how far
a change reaches in CenterFace's heat map: a 32 px grey square put into the 1 MP photo,
the box of the heat-map cells that change (at all, and by more than 0.001), in pixels.
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

OUTPUTS = ["537", "538", "539", "540"]


def photos() -> dict[str, np.ndarray]:
    """The three photos of the module docstring, by name."""
    from benchmarks.bench_anonymize_speed import photos as bench_photos

    one_mp = bench_photos("1mp")
    return {"1 MP": one_mp[0], "2 MP": one_mp[1], "12 MP": bench_photos("12mp")[0]}


def variants(rgb: np.ndarray) -> dict[str, Callable[[], Any]]:
    """The variants of the module docstring for one photo."""
    from core.imaging import detect, faces
    from core.imaging.lanes import run_tasks

    def apart() -> Any:
        tasks, _finish = detect._centerface_tasks(rgb, 0.2, 20)
        return run_tasks([t.run for t in tasks] + detect._turned_runs(rgb, 0.5))

    small = faces._pad32(detect._whole_copy(rgb)())
    blobs = [np.ascontiguousarray(np.rot90(small, q).transpose(2, 0, 1)[None],
                                  dtype=np.float32) for q in (0, 2, 1, 3)]
    session = faces._centerface_session()

    def runs1() -> Any:
        return [session.run(OUTPUTS, {"input.1": b}) for b in blobs]

    def runs2() -> Any:
        return [session.run(OUTPUTS, {"input.1": np.concatenate(blobs[i:i + 2])})
                for i in (0, 2)]

    return {"apart": apart, "shared": lambda: detect.faces_any_way_up(rgb, 0.2, 20),
            "runs1": runs1, "runs2": runs2}


def reach(rgb: np.ndarray, y: int = 380, x: int = 480, side: int = 32) -> None:
    """Print the box of CenterFace's heat-map cells that a grey square changes."""
    from core.imaging import faces

    session = faces._centerface_session()

    def heat(image: np.ndarray) -> np.ndarray:
        blob = np.ascontiguousarray(faces._pad32(image).transpose(2, 0, 1)[None],
                                    dtype=np.float32)
        return np.asarray(session.run(["537"], {"input.1": blob})[0][0, 0])

    changed = rgb.copy()
    changed[y:y + side, x:x + side] = 128
    diff = np.abs(heat(changed) - heat(rgb))
    print(f"a {side} px square at x={x}, y={y} of a {rgb.shape[1]} × {rgb.shape[0]} photo "
          "changes the heat map (4 px a cell)")
    for above in (0.0, 0.001):
        rows, cols = np.nonzero(diff > above)
        if rows.size:
            print(f"  by more than {above}: x {cols.min() * 4}–{cols.max() * 4 + 4}, "
                  f"y {rows.min() * 4}–{rows.max() * 4 + 4} px")


def timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """(wall s, CPU s) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    shots = photos()
    reach(shots["1 MP"])
    for name, rgb in shots.items():
        runs = variants(rgb)
        for fn in runs.values():  # warm-up: sessions, allocations
            fn()
        samples: dict[str, list[tuple[float, float]]] = {key: [] for key in runs}
        for _ in range(args.repeats):
            for key, fn in runs.items():
                samples[key].append(timed(fn))
        medians = {key: [statistics.median(s[i] for s in rows) for i in (0, 1)]
                   for key, rows in samples.items()}
        print(f"\n{name} ({rgb.shape[1]} × {rgb.shape[0]}): median s [wall, CPU], "
              f"{args.repeats} repeats")
        for first, second in (("apart", "shared"), ("runs1", "runs2")):
            (w1, c1), (w2, c2) = medians[first], medians[second]
            print(f"  {first:6s} {w1:.3f} / {c1:.3f}   {second:6s} {w2:.3f} / {c2:.3f}"
                  f"   {second}/{first} wall {w2 / w1:.3f} CPU {c2 / c1:.3f}")
    print(f"\nload average {load_before:.1f} → {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
