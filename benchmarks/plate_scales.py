"""Which plates does each scale of the plate text detector find alone? (issue 18, ADR 119)

For every photo of one split of ../shared/testdata/plates (eu/ and us/) and its synthetic
variants (``plate_eval.variant``: close-up, rotation, night, blur), ``detect_plates`` runs
with the text detector's scales (``plates.SCALES``, fractions of the working side) set to
each configuration below, and a plate counts as found when the regions cover at least
``--covered`` (default 0.9) of its annotated box.  Printed per set and variant: plates
found by each configuration, the plates the coarse scales find that the working scale
alone misses, and the median time of each configuration.

    .venv/bin/python benchmarks/plate_scales.py --split tune [--photos 0:20] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from plates_eval import region_coverage  # noqa: E402

from core.imaging import plates  # noqa: E402
from core.imaging.anonymize import HideSpec  # noqa: E402
from core.imaging.detect import DetectSettings, detect_plates  # noqa: E402
from core.imaging.loading import load_rgb  # noqa: E402
from core.imaging.plate_eval import VARIANTS, annotated, variant  # noqa: E402

TESTDATA = Path(__file__).resolve().parents[2] / "shared" / "testdata" / "plates"
CONFIGS: dict[str, tuple[float, ...]] = {
    "all": plates.SCALES,  # the default: working scale, then 1/2 and 1/4 of it
    "1": (1.0,),
    "1+1/2": (1.0, 0.5),
    "1/2": (0.5,),
    "1/4": (0.25,),
}


def one_case(rgb: Any, quad: Any, settings: DetectSettings) -> dict[str, Any]:
    """Coverage of the annotated plate and ms of detection, per configuration."""
    out: dict[str, Any] = {}
    for name, scales in CONFIGS.items():
        with mock.patch.object(plates, "SCALES", scales):
            started = time.perf_counter()
            found = detect_plates(rgb, settings)
            ms = 1000 * (time.perf_counter() - started)
        specs = [HideSpec(d.x, d.y, d.w, d.h) for d in found]
        out[name] = {"covered": round(region_coverage(rgb.shape, specs, quad), 4),
                     "regions": len(found), "ms": round(ms, 1)}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("eval", "tune", "all"), default="tune")
    parser.add_argument("--sets", default="eu,us")
    parser.add_argument("--variants", default="all", help="all, or a comma-separated list")
    parser.add_argument("--photos", default="", help="slice of each set's photos, e.g. 0:20")
    parser.add_argument("--covered", type=float, default=0.9)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    kinds = ("original", *VARIANTS) if args.variants == "all" else tuple(args.variants.split(","))
    settings = DetectSettings()
    rows: list[dict[str, Any]] = []
    for sub in args.sets.split(","):
        photos = annotated(TESTDATA / sub, args.split)
        start, _, stop = args.photos.partition(":")
        for n, truth in enumerate(photos[int(start or 0):int(stop) if stop else None],
                                  start=int(start or 0)):
            rgb = load_rgb(truth.path)
            for kind in kinds:
                pixels, quad = ((rgb, truth.quad) if kind == "original"
                                else variant(rgb, truth.quad, kind, seed=n))
                row = {"set": sub, "variant": kind, "photo": truth.path.name,
                       "size": [pixels.shape[1], pixels.shape[0]],
                       **one_case(pixels, quad, settings)}
                rows.append(row)
                print(json.dumps(row), flush=True)
    summary: dict[str, Any] = {}
    for group in sorted({(r["set"], r["variant"]) for r in rows}):
        mine = [r for r in rows if (r["set"], r["variant"]) == group]
        found = {c: [r["photo"] for r in mine if r[c]["covered"] >= args.covered]
                 for c in CONFIGS}
        summary["/".join(group)] = {
            "cases": len(mine),
            **{f"found {c}": len(found[c]) for c in CONFIGS},
            "coarse finds, 1 misses": sorted(set(found["all"]) - set(found["1"])),
            "1 finds, all misses": sorted(set(found["1"]) - set(found["all"])),
            "1+1/2 misses, all finds": sorted(set(found["all"]) - set(found["1+1/2"])),
            **{f"ms {c}": round(statistics.median(r[c]["ms"] for r in mine), 1)
               for c in CONFIGS},
        }
    print(json.dumps(summary, indent=1))
    if args.json:
        from core.files import write_text

        write_text(args.json, json.dumps({"summary": summary, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
