"""Faces a viewer still sees after ``winnow anonymize`` on photos stored turned by any
angle (ADR 197 and its amendment): each dlib test photo is turned (PIL, canvas expanded,
grey corners), saved without an orientation tag, anonymized with faces only, turned back
and searched with CenterFace at 0.5 (whole photo and small-face tiles).

    .venv/bin/python benchmarks/turned_faces_left.py --angles 45,90,120,135,150,225,315
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.imaging.batch import anonymize_folder  # noqa: E402
from core.imaging.detect import DetectSettings, centerface_faces  # noqa: E402
from core.imaging.loading import decode_rgb  # noqa: E402

FACES = Path(__file__).resolve().parents[2] / "shared" / "testdata" / "faces"
GREY = (128, 128, 128)


def faces_left(angle: int, names: list[str], work: Path) -> dict[str, list[float]]:
    """Scores of the faces found on each output turned back upright (refused: absent)."""
    folder, out = work / f"in{angle}", work / f"out{angle}"
    folder.mkdir(parents=True)
    for name in names:
        with Image.open(FACES / name) as image:
            image.convert("RGB").rotate(angle, expand=True, fillcolor=GREY,
                                        resample=Image.Resampling.BICUBIC).save(
                folder / name, quality=95)
    anonymize_folder(folder, out, settings=DetectSettings(plates=False))
    left: dict[str, list[float]] = {}
    for name in names:
        written = out / name
        if not written.exists():
            continue  # refused by the check: nothing leaks
        back = Image.fromarray(decode_rgb(written.read_bytes())).rotate(
            -angle, expand=True, fillcolor=GREY, resample=Image.Resampling.BICUBIC)
        scores = [round(d.score, 2) for d in centerface_faces(np.asarray(back), 0.5, 12)]
        if scores:
            left[name] = scores
    return left


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--angles", default="45,90,120,135,150,180,225,270,315")
    args = parser.parse_args()
    names = sorted(p.name for p in FACES.glob("*.jpg"))
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for angle in (int(a) for a in args.angles.split(",")):
            start = time.perf_counter()
            left = faces_left(angle, names, Path(tmp))
            total += sum(map(len, left.values()))
            print(f"{angle:>4}°  faces left {sum(map(len, left.values()))}  "
                  f"({time.perf_counter() - start:.1f} s)  {left or ''}")
    print(f"total faces left over {len(names)} photos: {total}")


if __name__ == "__main__":
    main()
