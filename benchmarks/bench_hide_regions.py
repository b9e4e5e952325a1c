"""``hide_regions`` at 12 MP: this checkout against another's (issue 18, ADR 116).

The 12 MP photo of ``bench_anonymize_speed.py`` (``bald_guys.jpg`` at 4000 × 3000) and
the regions ``detect_all`` finds on it (36 at the default settings), hidden four ways:
default blur (rectangles), blur 0.6 in feathered ellipses, pixelation, feathered fill.
Both trees' ``core/imaging/anonymize.py`` are loaded in one process and called in turn
(so they see the same load). Prints the median wall / CPU seconds per way, the ratio, and
how far the two renders differ (max and mean grey levels over the changed pixels).

    .venv/bin/python benchmarks/bench_hide_regions.py --base /tmp/anon-base [--rounds 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

import numpy as np

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

WAYS = (("blur", None, "rect", 0.0), ("blur", 0.6, "ellipse", 6.0),
        ("pixelate", None, "rect", 0.0), ("fill", None, "ellipse", 3.0))


def load(root: Path, name: str) -> ModuleType:
    """``root``'s ``core/imaging/anonymize.py`` as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, root / "core" / "imaging" /
                                                  "anonymize.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    import cv2

    from core.imaging.detect import DetectSettings, detect_all
    from core.imaging.loading import load_rgb

    trees = {"base": load(args.base.resolve(), "base_anonymize"),
             "this": load(HERE, "this_anonymize")}
    photo = load_rgb(HERE.parent / "shared" / "testdata" / "faces" / "bald_guys.jpg")
    rgb = cv2.resize(photo, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    found = detect_all(rgb, DetectSettings())
    load_before = os.getloadavg()[0]
    print(f"{len(found)} regions on 4000 x 3000; median s [wall, CPU] of {args.rounds}")
    for method, strength, shape, feather in WAYS:
        specs = {name: [mod.HideSpec(d.x, d.y, d.w, d.h, shape, method, strength, feather)
                        for d in found] for name, mod in trees.items()}
        renders = {name: mod.hide_regions(rgb, specs[name]) for name, mod in trees.items()}
        changed = (renders["base"] != rgb).any(axis=2) | (renders["this"] != rgb).any(axis=2)
        diff = np.abs(renders["base"].astype(int) - renders["this"].astype(int))[changed]
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, mod in trees.items():
                wall, cpu = time.perf_counter(), time.process_time()
                mod.hide_regions(rgb, specs[name])
                times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
        med = {name: (statistics.median(r[0] for r in rows),
                      statistics.median(r[1] for r in rows)) for name, rows in times.items()}
        print(f"  {method} {strength or 'default'} {shape} feather {feather:g}: "
              f"base {med['base'][0]:.3f} / {med['base'][1]:.3f}  "
              f"this {med['this'][0]:.3f} / {med['this'][1]:.3f}  "
              f"ratio {med['this'][0] / med['base'][0]:.2f} / "
              f"{med['this'][1] / med['base'][1]:.2f}  "
              f"diff max {int(diff.max()) if diff.size else 0} "
              f"mean {float(diff.mean()) if diff.size else 0:.2f}")
    print(f"load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
