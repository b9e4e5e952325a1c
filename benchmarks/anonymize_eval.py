"""Evaluate anonymization on ../shared/testdata (issue 4, item 8).

Faces (dlib's 9 annotated photos, 43 faces) and plates (OpenALPR eu/ + us/, one
annotated plate each): recall at IoU 0.3, mean fraction of each annotated box
hidden, false (or unmatched) regions per image, ms per photo (median / p95); after
anonymization (the release pipeline: render, encode, decode, verify, raise) the
fraction of annotated faces the detector still finds; and the full pipeline on a
12 MP photo (faces tiled + plates).

    .venv/bin/python benchmarks/anonymize_eval.py [--plates N] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.imaging.anonymize import HideSpec  # noqa: E402
from core.imaging.boxes import iou  # noqa: E402
from core.imaging.detect import (  # noqa: E402
    DetectSettings,
    centerface_faces,
    detect_all,
    detect_faces,
    detect_plates,
)
from core.imaging.geometry import Geometry  # noqa: E402
from core.imaging.loading import decode_rgb, load_rgb  # noqa: E402
from core.imaging.release import RenderJob, render_verified  # noqa: E402

TESTDATA = Path(__file__).resolve().parents[2] / "shared" / "testdata"


def hidden_fraction(shape, regions, box) -> float:  # type: ignore[no-untyped-def]
    """Fraction of ``box`` (x, y, w, h) inside the union of the regions."""
    mask = np.zeros(shape[:2], bool)
    for r in regions:
        mask[int(r.y):int(np.ceil(r.y + r.h)), int(r.x):int(np.ceil(r.x + r.w))] = True
    x, y, w, h = box
    return float(mask[y:y + h, x:x + w].mean())


def p95(values: list[float]) -> float:
    return float(np.percentile(values, 95)) if values else float("nan")


def eval_faces(settings: DetectSettings, label: str) -> dict:
    folder = TESTDATA / "faces"
    items = []
    for name in ("training.xml", "testing.xml"):
        for image in ET.parse(folder / name).getroot().iter("image"):
            boxes = [tuple(int(b.get(k)) for k in ("left", "top", "width", "height"))
                     for b in image.iter("box") if b.get("ignore") != "1"]
            items.append((folder / image.get("file"), boxes))
    raw_hits = grown_hits = total = false_regions = still_found = 0
    fractions, times, release_times = [], [], []
    for path, boxes in items:
        rgb = load_rgb(path)
        started = time.perf_counter()
        regions = detect_faces(rgb, settings)
        times.append(1000 * (time.perf_counter() - started))
        raw = (centerface_faces(rgb, settings.face_threshold, settings.min_face_px)
               if "centerface" in settings.face_detector else regions)
        for box in boxes:
            total += 1
            raw_hits += any(iou(box, r.box) >= 0.3 for r in raw)
            grown_hits += any(iou(box, r.box) >= 0.3 for r in regions)
            fractions.append(hidden_fraction(rgb.shape, regions, box))
        false_regions += sum(1 for r in regions if not any(
            hidden_fraction(rgb.shape, [r], b) > 0.3 for b in boxes))
        specs = [HideSpec(r.x, r.y, r.w, r.h) for r in regions]
        labels = [f"#{i}" for i in range(len(regions))]
        started = time.perf_counter()
        data, _ = render_verified(RenderJob(rgb, specs, labels, Geometry()), settings)
        release_times.append(1000 * (time.perf_counter() - started))
        after = centerface_faces(decode_rgb(data), settings.face_threshold)
        still_found += sum(1 for b in boxes if any(iou(b, d.box) >= 0.3 or
                                                   hidden_fraction(rgb.shape, [d], b) > 0.5
                                                   for d in after))
    dogs = load_rgb(folder / "dogs.jpg")
    return {
        "detector": label, "images": len(items), "faces": total,
        "recall_iou03_raw": raw_hits / total, "recall_iou03_regions": grown_hits / total,
        "mean_hidden_fraction": float(np.mean(fractions)),
        "min_hidden_fraction": float(np.min(fractions)),
        "faces_99pct_hidden": sum(f >= 0.99 for f in fractions) / total,
        "false_regions_per_image": false_regions / len(items),
        "regions_on_dogs_jpg": len(detect_faces(dogs, settings)),
        "ms_detect_median": statistics.median(times), "ms_detect_p95": p95(times),
        "ms_release_median": statistics.median(release_times),
        "faces_still_found_after_release": still_found / total,
    }


def eval_plates(settings: DetectSettings, limit: int) -> dict:
    out = {}
    for sub in ("eu", "us"):
        files = sorted((TESTDATA / "plates" / sub).glob("*.jpg"))[:limit or None]
        hits = 0
        fractions, times, unmatched = [], [], 0
        for path in files:
            x, y, w, h = map(int, path.with_suffix(".txt").read_text().split("\t")[1:5])
            rgb = load_rgb(path)
            started = time.perf_counter()
            regions = detect_plates(rgb, settings)
            times.append(1000 * (time.perf_counter() - started))
            hits += any(iou((x, y, w, h), r.box) >= 0.3 for r in regions)
            fractions.append(hidden_fraction(rgb.shape, regions, (x, y, w, h)))
            unmatched += sum(1 for r in regions
                             if hidden_fraction(rgb.shape, [r], (x, y, w, h)) == 0)
        n = len(files)
        out[sub] = {"images": n, "recall_iou03": hits / n,
                    "mean_hidden_fraction": float(np.mean(fractions)),
                    "plates_90pct_hidden": sum(f >= 0.9 for f in fractions) / n,
                    "unmatched_regions_per_image": unmatched / n,
                    "ms_median": statistics.median(times), "ms_p95": p95(times)}
    return out


def eval_12mp(settings: DetectSettings, runs: int = 3) -> dict:
    import cv2

    base = load_rgb(TESTDATA / "faces" / "bald_guys.jpg")
    big = cv2.resize(base, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    detect_all(big, settings)  # warm-up (sessions, allocations)
    times, count = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        found = detect_all(big, settings)
        times.append(time.perf_counter() - started)
        count = len(found)
    small = cv2.resize(base, (1000, 778), interpolation=cv2.INTER_AREA)
    t_small = []
    for _ in range(runs):
        started = time.perf_counter()
        detect_all(small, settings)
        t_small.append(time.perf_counter() - started)
    return {"pixels": "4000x3000", "regions": count, "s_median": statistics.median(times),
            "s_max": max(times), "s_median_0.78MP_same_photo": statistics.median(t_small),
            "ratio_12MP_vs_0.78MP": statistics.median(times) / statistics.median(t_small)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plates", type=int, default=0, help="images per plate set (0=all)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not TESTDATA.is_dir():
        print(f"no testdata at {TESTDATA}", file=sys.stderr)
        return 2
    load = os.getloadavg()
    settings = DetectSettings()
    result = {"cpu_count": os.cpu_count(), "loadavg_at_start": [round(v, 2) for v in load],
              "settings": settings.to_json()}
    result["faces_centerface"] = eval_faces(DetectSettings(plates=False), "centerface")
    print(json.dumps(result["faces_centerface"], indent=1), flush=True)
    result["faces_hog_fallback"] = eval_faces(
        DetectSettings(face_detector="hog", plates=False), "hog")
    print(json.dumps(result["faces_hog_fallback"], indent=1), flush=True)
    result["photo_12mp"] = eval_12mp(settings)
    print(json.dumps(result["photo_12mp"], indent=1), flush=True)
    result["plates"] = eval_plates(settings, args.plates)
    print(json.dumps(result["plates"], indent=1), flush=True)
    result["loadavg_at_end"] = [round(v, 2) for v in os.getloadavg()]
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
