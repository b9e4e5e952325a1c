"""Whether two code trees find and release the same: a speed change must change no outcome.

Each tree, in a worker process of its own, dumps:

- the release check's faces (``detect.faces_any_way_up`` at 0.2) on each face test photo
  (``../shared/testdata/faces``) turned 0, ¼ and ½, scaled up to 1.7 MP (so the check
  shrinks it);
- ``detect_plates`` and ``plate_check.outside_regions`` on the first 12 plate photos of
  ``us/`` and of ``eu/``;
- ``render_verified``'s bytes (SHA-256) and verification of what ``detect_all`` finds on
  ``bench_anonymize_speed.py``'s 1 MP and 12 MP photos.

    .venv/bin/python benchmarks/compare_check_outcomes.py --base <checkout>

Prints the count of each kind compared and every key whose outcome differs; exits 1 if any.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
TESTDATA = HERE.parent / "shared" / "testdata"


def dump() -> dict[str, Any]:
    """This process's tree's outcomes (see the module docstring), by key."""
    import cv2
    import numpy as np

    from benchmarks.bench_anonymize_speed import photos
    from core.imaging import plate_check
    from core.imaging.anonymize import HideSpec
    from core.imaging.detect import DetectSettings, detect_all, detect_plates, faces_any_way_up
    from core.imaging.geometry import Geometry
    from core.imaging.loading import load_rgb
    from core.imaging.release import RenderJob, render_verified

    def rows(found: list[Any]) -> list[list[float]]:
        return [[round(float(v), 4) for v in (*d.box, d.score)] for d in found]

    out: dict[str, Any] = {}
    for path in sorted((TESTDATA / "faces").glob("*.jpg")):
        for quarters in (0, 1, 2):
            img = np.ascontiguousarray(np.rot90(load_rgb(path), quarters))
            high, wide = img.shape[:2]
            grow = max(1.0, 1_700_000 / (high * wide)) ** 0.5
            img = cv2.resize(img, (round(wide * grow), round(high * grow)),
                             interpolation=cv2.INTER_CUBIC)
            out[f"faces {path.name} {quarters}"] = rows(faces_any_way_up(img, 0.2, 20))
    settings = DetectSettings()
    for folder in ("us", "eu"):
        for path in sorted((TESTDATA / "plates" / folder).glob("*.jpg"))[:12]:
            rgb = load_rgb(path)
            out[f"plates {path.name}"] = rows(detect_plates(rgb, settings))
            out[f"text outside {path.name}"] = [
                f.to_json() for f in plate_check.outside_regions(rgb, [], 1280)]
    for case in ("1mp", "12mp"):
        for index, rgb in enumerate(photos(case)):
            found = detect_all(rgb, settings)
            job = RenderJob(rgb, [HideSpec(d.x, d.y, d.w, d.h, "rect", "blur") for d in found],
                            [f"#{i + 1} ({d.kind})" for i, d in enumerate(found)], Geometry())
            data, result = render_verified(job, settings)
            out[f"release {case} {index}"] = [hashlib.sha256(data).hexdigest(),
                                              result.to_json()]
    return out


def run(root: Path) -> dict[str, Any]:
    """:func:`dump` of ``root``'s code, in a worker process."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker"],
                          env=env, capture_output=True, text=True, check=False, cwd=root)
    if done.returncode:
        raise SystemExit(f"worker ({root}) failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.splitlines()[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="checkout of the code to compare against")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        sys.path.insert(0, os.getcwd())
        print(json.dumps(dump()))
        return 0
    if args.base is None:
        parser.error("--base is required")
    this, base = run(HERE), run(args.base.resolve())
    kinds: dict[str, int] = {}
    for key in this:
        kind = key.split(" ")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    print("compared: " + ", ".join(f"{n} {kind}" for kind, n in kinds.items()))
    detections = sum(len(v) for k, v in this.items() if k.startswith("faces "))
    print(f"  ({detections} faces found by the check, "
          f"{sum(len(v) for k, v in this.items() if k.startswith('plates '))} plates)")
    differ = sorted(k for k in set(this) | set(base) if this.get(k) != base.get(k))
    for key in differ:
        print(f"  differs: {key}")
    print("identical" if not differ else f"{len(differ)} outcome(s) differ")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
