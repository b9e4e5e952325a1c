"""Benchmark: dlib's face ResNet run by dlib vs its torch port (not a test).

    .venv/bin/python benchmarks/bench_dlib_resnet.py [--repeats 3] [--faces DIR]

Every face that dlib's HOG detector + 5-point predictor find in the photos of
``--faces`` (default: the shared test photos) is aligned once with
``dlib.get_face_chips(…, size=150, padding=0.25)``; then, in this one process, the
same chips are embedded by

* dlib's own network (``face_recognition_model_v1.compute_face_descriptor`` on the
  list of chips: dlib batches 16 at a time), and
* the torch port (:mod:`core.metrics.dlib_resnet`) with 1 and 2 torch threads, one
  face per forward and all faces in forwards of 64 (what face_identity does).

Faces per second are medians over the repeats (wall clock); the agreement of the
descriptors (cosine, max |difference|) is printed too.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.metrics.dlib_resnet import build_net, embed_chips  # noqa: E402
from core.metrics.face_identity import (  # noqa: E402
    RESNET_FILE,
    TORCH_CHUNK,
    UPSAMPLE_BELOW,
    dlib_model_dir,
)

FACES = Path(__file__).resolve().parents[2] / "shared" / "testdata" / "faces"


def chips_of(folder: Path) -> np.ndarray:
    """All faces of the photos in ``folder`` as dlib's 150-px chips."""
    import dlib
    from PIL import Image

    detector = dlib.get_frontal_face_detector()
    shapes = dlib.shape_predictor(os.path.join(dlib_model_dir(),
                                               "shape_predictor_5_face_landmarks.dat"))
    chips = []
    for path in sorted(folder.glob("*.jpg")):
        img = np.asarray(Image.open(path).convert("RGB"))
        found = dlib.full_object_detections()
        for d in detector(img, 1 if max(img.shape[:2]) < UPSAMPLE_BELOW else 0):
            found.append(shapes(img, d))
        if len(found):
            chips += [np.asarray(c) for c in dlib.get_face_chips(img, found, 150, 0.25)]
    return np.stack(chips)


def rate(fn: Callable[[], object], n: int, repeats: int) -> float:
    """Median faces per second of ``fn`` (which embeds ``n`` faces)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return n / statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--faces", type=Path, default=FACES)
    args = ap.parse_args()

    import dlib
    import torch

    chips = chips_of(args.faces)
    n = len(chips)
    path = os.path.join(dlib_model_dir(), RESNET_FILE)
    rec = dlib.face_recognition_model_v1(path)
    net = build_net(path)
    chip_list = list(chips)

    print(f"{n} faces from {args.faces}; {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; torch {torch.__version__}, "
          f"dlib {dlib.__version__}; median of {args.repeats}")

    ref = np.asarray([np.asarray(v) for v in rec.compute_face_descriptor(chip_list)])
    out = embed_chips(net, chips, TORCH_CHUNK)
    cos = (ref * out).sum(1) / np.linalg.norm(ref, axis=1) / np.linalg.norm(out, axis=1)
    print(f"agreement: min cosine {cos.min():.9f}, max |diff| {np.abs(ref - out).max():.2e} "
          f"(descriptor values up to {np.abs(ref).max():.2f})")

    dlib_rate = rate(lambda: rec.compute_face_descriptor(chip_list), n, args.repeats)
    print(f"{'dlib (dlib-bin, no BLAS)':34s} {dlib_rate:8.1f} faces/s")
    for threads in (1, 2):
        torch.set_num_threads(threads)
        embed_chips(net, chips[:2])  # warm-up (oneDNN primitive creation)
        one = rate(lambda: [embed_chips(net, chips[i:i + 1]) for i in range(n)], n,
                   args.repeats)
        batched = rate(lambda: embed_chips(net, chips, TORCH_CHUNK), n, args.repeats)
        print(f"torch, {threads} thread(s), 1 face/forward  {one:8.1f} faces/s "
              f"({one / dlib_rate:.1f}× dlib)")
        print(f"torch, {threads} thread(s), {TORCH_CHUNK}/forward      {batched:8.1f} faces/s "
              f"({batched / dlib_rate:.1f}× dlib)")


if __name__ == "__main__":
    main()
