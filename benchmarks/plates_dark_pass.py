"""The dark pass (ADR 113) off and on, photo by photo, alternating in one run: regions
found, plates missed, false regions per photo and detection time (medians).

    .venv/bin/python benchmarks/plates_dark_pass.py --split tune --variants original,night

"Off" is the finder without :func:`core.imaging.plates.dark_copy` (as before ADR 113,
the frame margin aside); "every" searches the dark copy at every scale (ADR 113); "on"
only at the scales where the plain copy found no plate-shaped line (ADR 118, the
default).  The finder's second source (ADR 115) runs in every mode where no plate-shaped
line is found.  A false region is a detected region touching no annotated plate (the
sets annotate one plate a photo, so another real plate counts as false too).  Times
are medians of wall and CPU (process) time per photo.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.imaging import plates  # noqa: E402
from core.imaging.detect import DetectSettings, detect_plates  # noqa: E402
from core.imaging.loading import load_rgb  # noqa: E402
from core.imaging.plate_eval import VARIANTS, annotated, variant  # noqa: E402

TESTDATA = Path(__file__).resolve().parents[2] / "shared" / "testdata" / "plates"
MODES = ("off", "every", "on")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("eval", "tune", "all"), default="tune")
    parser.add_argument("--variants", default="original,night",
                        help="comma-separated of original," + ",".join(VARIANTS))
    parser.add_argument("--sets", default="eu,us")
    args = parser.parse_args()
    if not TESTDATA.is_dir():
        print(f"no plate testdata at {TESTDATA}", file=sys.stderr)
        return 2
    settings = DetectSettings()
    rows: dict[tuple[str, str], dict[str, list[float]]] = {}
    load = [round(v, 2) for v in os.getloadavg()]
    for sub in args.sets.split(","):
        for n, truth in enumerate(annotated(TESTDATA / sub, args.split)):
            rgb = load_rgb(truth.path)
            for kind in args.variants.split(","):
                pixels, quad = (rgb, truth.quad) if kind == "original" else variant(
                    rgb, truth.quad, kind, seed=n)
                (x1, y1), (x2, y2) = quad.min(axis=0), quad.max(axis=0)
                for mode in MODES:
                    patch = (lambda *_a: None) if mode == "off" else plates.dark_copy
                    with mock.patch.object(plates, "dark_copy", patch), mock.patch.object(
                        plates, "DARK_EVERY_SCALE", mode == "every"
                    ):
                        started, cpu = time.perf_counter(), time.process_time()
                        found = detect_plates(pixels, settings)
                        ms = 1000 * (time.perf_counter() - started)
                        cpu_ms = 1000 * (time.process_time() - cpu)
                    hit = [d for d in found
                           if d.x < x2 and d.x + d.w > x1 and d.y < y2 and d.y + d.h > y1]
                    row = rows.setdefault((f"{sub}/{kind}", mode), {"ms": [], "cpu": [],
                                                                   "false": [], "missed": []})
                    row["ms"].append(ms)
                    row["cpu"].append(cpu_ms)
                    row["false"].append(len(found) - len(hit))
                    row["missed"].append(float(not hit))
    out = {"split": args.split, "loadavg_at_start": load, "groups": {}}
    for (group, mode), row in sorted(rows.items()):
        out["groups"].setdefault(group, {})[mode] = {
            "photos": len(row["ms"]),
            "missed": int(sum(row["missed"])),
            "false_regions_per_photo": round(statistics.mean(row["false"]), 2),
            "ms_detect_median": round(statistics.median(row["ms"]), 1),
            "cpu_ms_detect_median": round(statistics.median(row["cpu"]), 1),
        }
    for group in out["groups"].values():
        for mode in ("every", "on"):
            group[f"ratio_ms_{mode}_off"] = round(group[mode]["ms_detect_median"]
                                                  / group["off"]["ms_detect_median"], 2)
        group["ratio_ms_on_every"] = round(group["on"]["ms_detect_median"]
                                           / group["every"]["ms_detect_median"], 2)
    out["loadavg_at_end"] = [round(v, 2) for v in os.getloadavg()]
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
