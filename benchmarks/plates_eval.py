"""Plates hidden whole and verified after release (issue 18; measures and split: ADR 110).

For every photo of one split of ../shared/testdata/plates (eu/ and us/; ``eval`` = the
held-out half, never tuned on; ``tune`` = the other half) and its synthetic variants
(close-up, rotation, night, blur): detect the plates (``detect_plates``), release them
through the real path (``render_verified``: blur, encode, decode, verify faces and plate
text, extend/strengthen, re-render), then measure on the released pixels:

* detail removed inside the annotated plate (``plate_eval.detail_hidden``);
* region coverage of the annotated box (share inside the final regions);
* OCR legibility before (the photo as given) and after release (``plate_eval.ocr_legible``);
* plates missed entirely (no region touches the annotated box);
* the area of the regions on the plate over the plate's area (how much more is hidden);
* ms per photo for detection and for the verified release (medians).

    .venv/bin/python benchmarks/plates_eval.py --split eval --json /tmp/plates_eval.json
    .venv/bin/python benchmarks/plates_eval.py --split tune --variants closeup --limit 10
    .venv/bin/python benchmarks/plates_eval.py --timing 10   # speed only, one run
    .venv/bin/python benchmarks/plates_eval.py --split tune --variants street --detect-only
    .venv/bin/python benchmarks/plates_eval.py --timing 10 --timing-variant night
    (the dark pass off and on, over a whole split: benchmarks/plates_dark_pass.py)

Under load the split can be run in slices (``--photos 0:20``, ``--photos 20:``: the
same cases, each variant seeded by the photo's index in its split) and the printed rows
summarised together: ``plates_eval.py --summarize slice1.log slice2.log``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.files import write_text  # noqa: E402
from core.imaging.anonymize import HideSpec  # noqa: E402
from core.imaging.detect import DetectSettings, detect_plates  # noqa: E402
from core.imaging.geometry import Geometry  # noqa: E402
from core.imaging.loading import decode_rgb, load_rgb  # noqa: E402
from core.imaging.plate_eval import (  # noqa: E402
    STRESS,
    VARIANTS,
    annotated,
    detail_hidden,
    ocr_legible,
    quad_mask,
    stress_variant,
    variant,
)
from core.imaging.release import RenderJob, render_verified  # noqa: E402

TESTDATA = Path(__file__).resolve().parents[2] / "shared" / "testdata" / "plates"


def region_coverage(shape: tuple[int, ...], specs: list[HideSpec], quad: np.ndarray) -> float:
    """Share of the annotated plate (quad) inside the union of the final regions."""
    mask = np.zeros(shape[:2], bool)
    for s in specs:
        mask[
            max(0, int(s.y)) : int(np.ceil(s.y + s.h)), max(0, int(s.x)) : int(np.ceil(s.x + s.w))
        ] = True
    inside = quad_mask(shape, quad)
    return float(mask[inside].mean()) if inside.any() else 1.0


def run_case(
    rgb: np.ndarray, quad: np.ndarray, text: str, settings: DetectSettings, verify: bool
) -> dict:
    """Detect, release and measure one photo."""
    started = time.perf_counter()
    found = detect_plates(rgb, settings)
    ms_detect = 1000 * (time.perf_counter() - started)
    specs = [HideSpec(d.x, d.y, d.w, d.h) for d in found]
    labels = [f"#{i + 1} (plate)" for i in range(len(found))]
    started = time.perf_counter()
    job = RenderJob(rgb, specs, labels, Geometry())
    data, result = render_verified(job, settings, max_rounds=4 if verify else 1)
    ms_release = 1000 * (time.perf_counter() - started)
    released = decode_rgb(data)
    final = [HideSpec(*r["box"]) for r in result.raised.values()] + [
        s for label, s in zip(labels, specs, strict=True) if label not in result.raised
    ]
    before, _ = ocr_legible(rgb, quad, text)
    after, chars = ocr_legible(released, quad, text)
    coverage = region_coverage(rgb.shape, final, quad)
    (x1, y1), (x2, y2) = quad.min(axis=0), quad.max(axis=0)
    on_plate = [
        s for s in final if min(s.x + s.w, x2) > max(s.x, x1) and min(s.y + s.h, y2) > max(s.y, y1)
    ]
    # the annotation holds one plate a photo: a region touching none is a false region
    # (or another plate); the regions release added (ADR 114) are counted too
    plate_area = float(quad_mask(rgb.shape, quad).sum()) or 1.0
    return {
        "detail_hidden": round(detail_hidden(rgb, released, quad), 4),
        "region_coverage": round(coverage, 4),
        "missed": coverage == 0.0,
        "region_area_ratio": round(sum(s.w * s.h for s in on_plate) / plate_area, 2),
        "legible_before": before,
        "legible_after": after,
        "chars_after": chars,
        "regions": len(found),
        "false_regions": len(final) - len(on_plate),
        "raised": len(result.raised),
        "text_left": len(result.to_json().get("text_inside", [])),
        "ms_detect": round(ms_detect, 1),
        "ms_release": round(ms_release, 1),
    }


def detect_case(rgb: np.ndarray, quad: np.ndarray, settings: DetectSettings) -> dict:
    """Detection alone (``--detect-only``): how much of the plate the regions cover."""
    started = time.perf_counter()
    found = detect_plates(rgb, settings)
    ms = 1000 * (time.perf_counter() - started)
    coverage = region_coverage(rgb.shape, [HideSpec(d.x, d.y, d.w, d.h) for d in found], quad)
    return {"region_coverage": round(coverage, 4), "missed": coverage == 0.0,
            "regions": len(found), "ms_detect": round(ms, 1)}


def summary(rows: list[dict]) -> dict:
    """Figures of one group of cases."""
    if not rows:
        return {"cases": 0}
    if "detail_hidden" not in rows[0]:  # --detect-only rows
        return {
            "cases": len(rows),
            "plates_90pct_region_covered": round(
                sum(r["region_coverage"] >= 0.9 for r in rows) / len(rows), 4
            ),
            "missed": sum(r["missed"] for r in rows),
            "ms_detect_median": round(statistics.median(r["ms_detect"] for r in rows), 1),
        }
    detail = [r["detail_hidden"] for r in rows]
    return {
        "cases": len(rows),
        "plates_90pct_detail_hidden": round(sum(d >= 0.9 for d in detail) / len(rows), 4),
        "mean_detail_hidden": round(float(np.mean(detail)), 4),
        "min_detail_hidden": round(float(np.min(detail)), 4),
        "plates_90pct_region_covered": round(
            sum(r["region_coverage"] >= 0.9 for r in rows) / len(rows), 4
        ),
        "missed": sum(r["missed"] for r in rows),
        "median_region_area_ratio": statistics.median(r["region_area_ratio"] for r in rows),
        "false_regions_per_photo": round(
            statistics.mean(r.get("false_regions", float("nan")) for r in rows), 2
        ),
        "legible_before": sum(r["legible_before"] for r in rows),
        "legible_after": sum(r["legible_after"] for r in rows),
        "regions_raised_by_verification": sum(r["raised"] for r in rows),
        "ms_detect_median": round(statistics.median(r["ms_detect"] for r in rows), 1),
        "ms_release_median": round(statistics.median(r["ms_release"] for r in rows), 1),
    }


def timing(photos: list, settings: DetectSettings, repeats: int = 3) -> dict:
    """Medians (ms, wall and CPU) over ``photos`` × ``repeats`` in one run: detection with
    the working scale only (as before issue 18) and with every scale; the verified
    release with and without the plate text check; detection and release without the
    finder's second source (ADR 115) and with it (now)."""
    from unittest import mock

    from core.imaging import plate_check, plates

    def run(fn: Callable[[np.ndarray], object]) -> tuple[float, float]:
        times, cpus = [], []
        for rgb in photos:
            for _ in range(repeats):
                started, cpu = time.perf_counter(), time.process_time()
                fn(rgb)
                times.append(1000 * (time.perf_counter() - started))
                cpus.append(1000 * (time.process_time() - cpu))
        return statistics.median(times), statistics.median(cpus)

    def release(rgb: np.ndarray) -> None:
        found = detect_plates(rgb, settings)
        specs = [HideSpec(d.x, d.y, d.w, d.h) for d in found]
        render_verified(
            RenderJob(rgb, specs, [f"#{i} (plate)" for i in range(len(specs))], Geometry()),
            settings,
        )

    def detect(rgb: np.ndarray) -> None:
        detect_plates(rgb, settings)

    for rgb in photos[:2]:
        release(rgb)  # warm-up: sessions, allocations
    out = {}

    def record(name: str, fn: Callable[[np.ndarray], object]) -> None:
        out[f"ms_{name}"], out[f"cpu_ms_{name}"] = run(fn)

    with mock.patch.object(plates, "SCALES", (1.0,)):
        record("detect_one_scale", detect)
    with mock.patch.object(plates, "read_pass", lambda *_a, **_k: []):
        record("detect_without_read_pass", detect)
        record("detect_and_release_without_read_pass", release)
    record("detect_all_scales", detect)
    with mock.patch.object(plate_check, "text_check_available", lambda: False):
        record("detect_and_release_faces_only_check", release)
    record("detect_and_release_with_plate_check", release)
    out["ratio_detect"] = out["ms_detect_all_scales"] / out["ms_detect_one_scale"]
    out["ratio_release"] = (
        out["ms_detect_and_release_with_plate_check"]
        / out["ms_detect_and_release_faces_only_check"]
    )
    out["ratio_detect_read_pass"] = (
        out["ms_detect_all_scales"] / out["ms_detect_without_read_pass"]
    )
    out["ratio_release_read_pass"] = (
        out["ms_detect_and_release_with_plate_check"]
        / out["ms_detect_and_release_without_read_pass"]
    )
    return {k: round(v, 2 if k.startswith("ratio") else 1) for k, v in out.items()}


def grouped(cases: list[dict]) -> dict:
    """:func:`summary` per set and variant, of originals, of variants and of all."""
    sets = sorted({c["set"] for c in cases})
    kinds = [k for k in ("original", *VARIANTS, *STRESS) if any(c["variant"] == k for c in cases)]
    groups: dict[str, Any] = {
        f"{sub}/{kind}": summary([c for c in cases if c["set"] == sub and c["variant"] == kind])
        for sub in sets
        for kind in kinds
    }
    groups["all/original"] = summary([c for c in cases if c["variant"] == "original"])
    groups["all/variants"] = summary([c for c in cases if c["variant"] != "original"])
    groups["all"] = summary(cases)
    groups["failures"] = [
        {k: c[k] for k in ("set", "photo", "variant", "detail_hidden", "region_coverage",
                           "missed", "legible_after") if k in c}
        for c in cases
        if c.get("detail_hidden", c["region_coverage"]) < 0.9 or c["missed"]
        or c.get("legible_after")
    ]
    return groups


def read_rows(logs: list[Path]) -> list[dict]:
    """The case rows printed by earlier runs (one JSON object a line); a case measured
    twice counts once (the later row)."""
    rows: dict[tuple, dict] = {}
    for log in logs:
        for line in log.read_text(encoding="utf-8").splitlines():
            if line.startswith(('{"detail_hidden"', '{"region_coverage"')):
                row = json.loads(line)
                rows[(row["set"], row["variant"], row["photo"])] = row
    return list(rows.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("eval", "tune", "all"), default="eval")
    parser.add_argument(
        "--variants",
        default="all",
        help="comma-separated of original,"
        + ",".join(VARIANTS + STRESS)
        + " or all (the stress variants only on the tune split: for finding failure modes)",
    )
    parser.add_argument("--limit", type=int, default=0, help="photos per set (0 = all)")
    parser.add_argument(
        "--photos", default="", metavar="A:B", help="a slice of each set's photos (as Python's)"
    )
    parser.add_argument(
        "--summarize", type=Path, nargs="+", metavar="LOG", help="only summarise printed rows"
    )
    parser.add_argument("--sets", default="eu,us")
    parser.add_argument(
        "--no-verify", action="store_true", help="one render, no plate/face verification rounds"
    )
    parser.add_argument(
        "--timing",
        type=int,
        default=0,
        metavar="N",
        help="only time N photos per set (see timing())",
    )
    parser.add_argument(
        "--timing-variant",
        default="original",
        choices=("original", *VARIANTS),
        help="time this variant of the photos (night: the dark pass runs)",
    )
    parser.add_argument(
        "--detect-only", action="store_true",
        help="detection alone: region coverage and misses (no release, no reading)",
    )
    parser.add_argument(
        "--no-fine-scale", action="store_true",
        help="no fine scale for big photos (as before ADR 171), for comparison",
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.summarize:
        print(json.dumps(grouped(read_rows(args.summarize)), indent=1))
        return 0
    if not TESTDATA.is_dir():
        print(f"no plate testdata at {TESTDATA}", file=sys.stderr)
        return 2
    if args.json and args.json.exists():
        print(f"{args.json} already exists (choose another name)", file=sys.stderr)
        return 2
    if args.timing:
        timed = [
            load_rgb(t.path)
            if args.timing_variant == "original"
            else variant(load_rgb(t.path), t.quad, args.timing_variant, seed=n)[0]
            for sub in args.sets.split(",")
            for n, t in enumerate(annotated(TESTDATA / sub, args.split)[: args.timing])
        ]
        figures = {
            "loadavg_at_start": [round(v, 2) for v in os.getloadavg()],
            "photos": len(timed),
            **timing(timed, DetectSettings()),
            "loadavg_at_end": [round(v, 2) for v in os.getloadavg()],
        }
        print(json.dumps(figures, indent=1))
        return 0
    if args.no_fine_scale:
        from core.imaging import plates

        plates.FINE_FROM = float("inf")
    kinds = ("original", *VARIANTS) if args.variants == "all" else tuple(args.variants.split(","))
    settings = DetectSettings()
    cases: list[dict] = []
    result = {
        "split": args.split,
        "cpu_count": os.cpu_count(),
        "loadavg_at_start": [round(v, 2) for v in os.getloadavg()],
        "verify": not args.no_verify,
        "settings": settings.to_json(),
    }
    for sub in args.sets.split(","):
        photos = annotated(TESTDATA / sub, args.split)
        start, _, stop = args.photos.partition(":")
        first = int(start or 0)
        last = int(stop) if stop else (first + args.limit if args.limit else len(photos))
        for n, truth in enumerate(photos[first:last], start=first):
            rgb = load_rgb(truth.path)
            for kind in kinds:
                if kind == "original":
                    pixels, quad = rgb, truth.quad
                elif kind in STRESS:
                    pixels, quad = stress_variant(rgb, truth.quad, kind, seed=n)
                else:
                    pixels, quad = variant(rgb, truth.quad, kind, seed=n)
                row = (
                    detect_case(pixels, quad, settings)
                    if args.detect_only
                    else run_case(pixels, quad, truth.text, settings, not args.no_verify)
                )
                row.update({"set": sub, "variant": kind, "photo": truth.path.name})
                cases.append(row)
                print(json.dumps(row), flush=True)
    groups = grouped(cases)
    result["summary"] = groups
    result["loadavg_at_end"] = [round(v, 2) for v in os.getloadavg()]
    print(json.dumps(groups, indent=1))
    if args.json:
        result["cases"] = cases
        write_text(args.json, json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
