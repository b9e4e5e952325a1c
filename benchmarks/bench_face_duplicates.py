"""Duplicate face regions and face recall on ../shared/testdata (photofix item 3, ADR 044).

For every annotated dlib face photo, at its own size and enlarged 5× (so the small-face
tile pass runs beside the whole-photo pass), with ``centerface`` and ``centerface+hog``:

- recall: annotated faces that some region covers by ≥ 90 % (what a release hides);
- duplicates: annotated faces holding the centres of two or more regions (a region
  centred on a neighbouring face that its margin half covers is that face's);
- overlapping pairs: pairs of face regions with IoU ≥ 0.3 or one ≥ 60 % inside the other.

Run it on two trees to compare (same run, same machine):

    PYTHONPATH=/tmp/base .venv/bin/python benchmarks/bench_face_duplicates.py
    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_face_duplicates.py
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
from PIL import Image

from core.imaging.boxes import area, intersection, iou
from core.imaging.detect import DetectSettings, detect_faces

FACES = Path(__file__).resolve().parents[2] / "shared" / "testdata" / "faces"


def annotated() -> list[tuple[Path, list[tuple[float, float, float, float]]]]:
    """(photo, [(x, y, w, h)]) of dlib's annotated photos (ignored boxes left out)."""
    folder = FACES if FACES.is_dir() else Path("/work/wt/shared/testdata/faces")
    out = []
    for name in ("training.xml", "testing.xml"):
        for image in ET.parse(folder / name).getroot().iter("image"):
            boxes = [tuple(float(b.get(k)) for k in ("left", "top", "width", "height"))
                     for b in image.iter("box") if b.get("ignore") != "1"]
            out.append((folder / image.get("file"), boxes))
    return out


def centred(region: tuple[float, ...], face: tuple[float, ...]) -> bool:
    """Whether ``region``'s centre lies inside ``face`` (both x, y, w, h)."""
    cx, cy = region[0] + region[2] / 2, region[1] + region[3] / 2
    return face[0] <= cx <= face[0] + face[2] and face[1] <= cy <= face[1] + face[3]


def measure(detector: str, scale: int) -> dict[str, int]:
    settings = DetectSettings(face_detector=detector)
    faces = found = duplicated = pairs = regions_n = 0
    for path, boxes in annotated():
        image = Image.open(path).convert("RGB")
        if scale != 1:
            image = image.resize((image.width * scale, image.height * scale),
                                 Image.Resampling.BICUBIC)
        regions = [d.box for d in detect_faces(np.asarray(image), settings)]
        regions_n += len(regions)
        for box in boxes:
            gt = tuple(v * scale for v in box)
            faces += 1
            cover = [intersection(gt, r) / area(gt) for r in regions]
            found += any(c >= 0.9 for c in cover)
            duplicated += sum(centred(r, gt) for r in regions) >= 2
        for i, a in enumerate(regions):
            for b in regions[i + 1:]:
                small = min(area(a), area(b)) or 1.0
                pairs += iou(a, b) >= 0.3 or intersection(a, b) / small >= 0.6
    return {"faces": faces, "recall_90": found, "duplicated": duplicated,
            "overlapping_pairs": pairs, "regions": regions_n}


def main() -> int:
    result = {f"{detector} ×{scale}": measure(detector, scale)
              for detector in ("centerface", "centerface+hog") for scale in (1, 5)}
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
