"""Anonymize speed per stage, against another checkout's code and the deface CLI's detector.

Photos (from ../shared/testdata): ``1mp`` = dlib's ``bald_guys.jpg`` at 1000 × 778 plus
the first 4 held-out US plate photos (1280 × 720); ``12mp`` = ``bald_guys.jpg`` upscaled
to 4000 × 3000. Stages, per photo, with the default ``DetectSettings()``:

- faces = ``detect_faces``; plates = ``detect_plates``; detect = ``detect_all``;
- release = ``render_verified`` of what ``detect_all`` found (blur, encode, decode, the
  face check and the plate text check of ADR 112).

Wall and CPU (process time: onnxruntime's threads included) are measured in a fresh
worker process per code tree; the trees alternate (this checkout, ``--base``, this, …)
so both see the same load.  ``deface`` = the ``deface`` package's own CenterFace at its
default 0.2 threshold on the same photos, faces only (what its CLI runs per image,
without the file reading and writing).

    .venv/bin/python benchmarks/bench_anonymize_speed.py --base /tmp/anon-base [--rounds 3] \\
        [--variant threads1:WINNOW_MODEL_THREADS=1]

(``git worktree add --detach /tmp/anon-base main`` makes the base checkout.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
TESTDATA = HERE.parent / "shared" / "testdata"
STAGES = ("faces", "plates", "detect", "release")


def photos(case: str) -> list[Any]:
    """The RGB arrays of one case (see the module docstring)."""
    import cv2

    from core.imaging.loading import load_rgb

    base = load_rgb(TESTDATA / "faces" / "bald_guys.jpg")
    if case == "12mp":
        return [cv2.resize(base, (4000, 3000), interpolation=cv2.INTER_CUBIC)]
    from core.imaging.plate_eval import annotated

    held_out = [t.path for t in annotated(TESTDATA / "plates" / "us", "eval")[:4]]
    small = cv2.resize(base, (1000, 778), interpolation=cv2.INTER_AREA)
    return [small, *(load_rgb(Path(p)) for p in held_out)]


def timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """(wall s, CPU s) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def worker(case: str, repeats: int, stages: tuple[str, ...] = STAGES
           ) -> dict[str, list[list[float]]]:
    """Per stage, [wall, cpu] of every photo × repeat (after a warm-up)."""
    sys.path.insert(0, str(HERE))
    from core.imaging.anonymize import HideSpec
    from core.imaging.detect import DetectSettings, detect_all, detect_faces, detect_plates
    from core.imaging.geometry import Geometry
    from core.imaging.release import RenderJob, render_verified

    settings = DetectSettings()
    images = photos(case)
    detect_all(images[0][:640, :640].copy(), settings)  # warm-up: sessions, allocations
    out: dict[str, list[list[float]]] = {stage: [] for stage in stages}
    for _ in range(repeats):
        for rgb in images:
            if "faces" in stages:
                out["faces"].append(list(timed(lambda rgb=rgb: detect_faces(rgb, settings))))
            if "plates" in stages:
                out["plates"].append(list(timed(lambda rgb=rgb: detect_plates(rgb, settings))))
            found: list[Any] = []
            timing = timed(lambda rgb=rgb, found=found: found.extend(detect_all(rgb, settings)))
            if "detect" in stages:
                out["detect"].append(list(timing))
            if "release" not in stages:
                continue
            job = RenderJob(
                rgb,
                [HideSpec(d.x, d.y, d.w, d.h, "rect", "blur") for d in found],
                [f"#{i + 1} ({d.kind})" for i, d in enumerate(found)],
                Geometry(),
            )
            out["release"].append(list(timed(lambda job=job: render_verified(job, settings))))
    return out


def deface_worker(case: str, repeats: int) -> dict[str, Any]:
    """The deface package's CenterFace (threshold 0.2) on the same photos."""
    sys.path.insert(0, str(HERE))
    from deface.centerface import CenterFace

    images = photos(case)
    net = CenterFace(backend="auto")  # what the CLI uses: OpenCV's DNN without ``onnx``
    net(images[0], threshold=0.2)
    rows = []
    for _ in range(repeats):
        for rgb in images:
            rows.append(list(timed(lambda rgb=rgb: net(rgb, threshold=0.2))))
    return {"faces": rows, "backend": net.backend}


def run_worker(root: Path, case: str, repeats: int, deface: bool = False,
               extra_env: dict[str, str] | None = None,
               stages: tuple[str, ...] = STAGES) -> dict[str, Any]:
    """One worker process with ``root``'s code first on the path (and ``extra_env``)."""
    # this file's worker, importing ``root``'s code (the base may predate this file)
    env = {**os.environ, "PYTHONPATH": str(root), "BENCH_ROOT": str(root), **(extra_env or {})}
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        case,
        "--repeats",
        str(repeats),
        "--stages",
        ",".join(stages),
    ] + (["--deface"] if deface else [])
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"worker ({root}, {case}) failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.splitlines()[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="checkout of the code to compare against")
    parser.add_argument("--cases", default="1mp,12mp")
    parser.add_argument("--rounds", type=int, default=2, help="alternations of the trees")
    parser.add_argument("--repeats", type=int, default=2, help="repeats per worker")
    parser.add_argument("--stages", default=",".join(STAGES),
                        help="stages to time (default all: faces,plates,detect,release)")
    parser.add_argument("--no-deface", action="store_true", help="no deface column")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--deface", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--variant", action="append", default=[],
                        metavar="NAME:KEY=VALUE[,KEY=VALUE]",
                        help="also this checkout with environment variables set "
                             "(e.g. threads1:WINNOW_MODEL_THREADS=1); repeatable")
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=PATH",
                        help="also another checkout (e.g. a proposed change); repeatable")
    parser.add_argument("--hog", type=int, default=0, metavar="N",
                        help="keep N busy-looping processes running during the run "
                             "(a loaded machine)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.worker:
        global HERE
        HERE = Path(os.environ.get("BENCH_ROOT", HERE))
        stages = tuple(args.stages.split(","))
        result = (deface_worker(args.worker, args.repeats) if args.deface
                  else worker(args.worker, args.repeats, stages))
        print(json.dumps(result))
        return 0
    trees: dict[str, tuple[Path, dict[str, str]]] = {"this": (HERE, {})}
    if args.base:
        trees["base"] = (args.base.resolve(), {})
    for spec in args.tree:
        name, _, path = spec.partition("=")
        if not name or not path or name in trees:
            parser.error(f"--tree {spec!r}: expected a new NAME=PATH")
        trees[name] = (Path(path).resolve(), {})
    for spec in args.variant:
        name, _, assignments = spec.partition(":")
        pairs = [a.partition("=") for a in assignments.split(",")]
        if not name or name in trees or any(not key or not eq for key, eq, _v in pairs):
            parser.error(f"--variant {spec!r}: expected a new NAME:KEY=VALUE[,KEY=VALUE]")
        trees[name] = (HERE, {key: value for key, _eq, value in pairs})
    unknown = set(args.stages.split(",")) - set(STAGES)
    if unknown:
        parser.error(f"--stages: unknown {', '.join(sorted(unknown))}")
    try:
        import deface  # noqa: F401

        has_deface = not args.no_deface and "faces" in args.stages.split(",")
    except ImportError:
        has_deface = False
        print("deface is not installed: no deface column")
    hogs = [subprocess.Popen([sys.executable, "-c", "while 1: pass"])
            for _ in range(args.hog)]
    try:
        report = measure(args, trees, has_deface)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    report["hogs"] = args.hog
    print(f"\nload average {report['load_before']:.1f} → {report['load_after']:.1f}"
          f"{f', {args.hog} CPU hog(s) running' if args.hog else ''}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


def measure(args: argparse.Namespace, trees: dict[str, tuple[Path, dict[str, str]]],
            has_deface: bool) -> dict[str, Any]:
    """Alternate the trees' workers over the cases; print and return the medians."""
    report: dict[str, Any] = {"load_before": os.getloadavg()[0]}
    for case in args.cases.split(","):
        samples: dict[str, dict[str, list[list[float]]]] = {}
        for _ in range(args.rounds):
            for name, (root, extra_env) in trees.items():
                got = run_worker(root, case, args.repeats, extra_env=extra_env,
                                 stages=tuple(args.stages.split(",")))
                for stage, rows in got.items():
                    samples.setdefault(name, {}).setdefault(stage, []).extend(rows)
            if has_deface:
                got = run_worker(HERE, case, args.repeats, deface=True)
                samples.setdefault("deface", {}).setdefault("faces", []).extend(got["faces"])
                report["deface_backend"] = got["backend"]
        medians = {
            name: {
                stage: [round(statistics.median(r[i] for r in rows), 3) for i in (0, 1)]
                for stage, rows in per.items()
            }
            for name, per in samples.items()
        }
        report[case] = medians
        print(f"\n{case}: median s per photo [wall, CPU]")
        for stage in STAGES:
            row = {name: medians[name][stage] for name in medians if stage in medians[name]}
            if "this" not in row:
                continue
            line = f"  {stage:8s} " + "  ".join(
                f"{n} {w:.3f} / {c:.3f}" for n, (w, c) in row.items()
            )
            if "base" in row:
                line += (f"  this/base wall {row['this'][0] / row['base'][0]:.2f}"
                         f" CPU {row['this'][1] / row['base'][1]:.2f}")
            if stage == "faces" and "deface" in row:
                line += f"  this/deface wall {row['this'][0] / row['deface'][0]:.2f}"
            print(line)
        if "deface" in medians and "detect" in medians["this"]:
            ratio = medians["this"]["detect"][0] / medians["deface"]["faces"][0]
            print(f"  detect (faces + plates) / deface (faces only), wall: {ratio:.2f}")
    report["load_after"] = os.getloadavg()[0]
    return report


if __name__ == "__main__":
    raise SystemExit(main())
