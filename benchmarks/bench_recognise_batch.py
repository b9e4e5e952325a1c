"""The PP-OCR recogniser's calls in a release, batched (ADR 168) against one crop a run.

Records every :func:`core.imaging.ocr.recognise` call made while ``detect_all`` and the
verified release (``render_verified``, as ``bench_anonymize_speed.py --stages release``)
run on the first ``--photos`` tune US plate photos of ../shared/testdata/plates, then:

* **crops**: how many calls, crops and runs (a run = one batch of crops of one padded
  width), by caller's padding (320: the plate check; 64: the read pass, ADR 115);
* **same readings**: each call batched against its crops read one at a time (text and
  confidences, exactly);
* **padding**: read-pass crops padded by ``--pad`` more columns (what joining a batch of
  wider crops would do): how many read other characters or other confidences;
* **time**: the recorded calls replayed, alternating, medians of ``--rounds`` (wall and
  CPU per photo): one crop a run on a session with the model threads every other model
  gets (before ADR 168), batched on that session, and as ``recognise`` runs now (batched,
  on :func:`core.imaging.ocr.rec_lanes` lanes of :func:`core.imaging.ocr.rec_threads`
  threads); the readings of the three are compared too.

    .venv/bin/python benchmarks/bench_recognise_batch.py [--photos 8] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))
PLATES = HERE.parent / "shared" / "testdata" / "plates"


def record(photos: int) -> list[tuple[list[Any], int]]:
    """Every ``recognise`` call (crops, min_width) of detecting and releasing the photos."""
    from core.imaging import ocr
    from core.imaging.anonymize import HideSpec
    from core.imaging.detect import DetectSettings, detect_all
    from core.imaging.geometry import Geometry
    from core.imaging.loading import load_rgb
    from core.imaging.plate_eval import annotated
    from core.imaging.release import RenderJob, render_verified

    calls: list[tuple[list[Any], int]] = []
    real = ocr.recognise

    def spy(crops: Any, min_width: int = 320) -> Any:
        calls.append(([c.copy() for c in crops], min_width))
        return real(crops, min_width)

    ocr.recognise = spy  # a benchmark's recorder, restored below
    try:
        settings = DetectSettings()
        for truth in annotated(PLATES / "us", "tune")[:photos]:
            rgb = load_rgb(truth.path)
            found = detect_all(rgb, settings)
            job = RenderJob(rgb, [HideSpec(d.x, d.y, d.w, d.h, "rect", "blur") for d in found],
                            [f"#{i + 1} ({d.kind})" for i, d in enumerate(found)], Geometry())
            render_verified(job, settings)
    finally:
        ocr.recognise = real
    return calls


def one_by_one(crops: list[Any], min_width: int) -> list[Any]:
    """One run per crop (what ``recognise`` did before ADR 168)."""
    from core.imaging.ocr import recognise

    return [recognise([crop], min_width)[0] for crop in crops]


def shared_session() -> Any:
    """A recogniser session with the options every other model session gets."""
    from core.onnx_runtime import onnxruntime

    ort = onnxruntime()

    from core.imaging import ocr
    from core.imaging.faces import session_options

    path = str(ocr.ppocr_model_path(ocr.REC_MODEL, "rec"))
    return ort.InferenceSession(path, session_options(), providers=["CPUExecutionProvider"])


def using(session: Any, lanes: int, fn: Callable[[], Any]) -> Any:
    """``fn()`` with ``session`` as the recogniser's and ``lanes`` lanes."""
    from core.imaging import ocr

    saved = ocr._sessions.get(ocr.REC_MODEL), ocr.rec_lanes
    ocr._sessions[ocr.REC_MODEL] = session
    ocr.rec_lanes = lambda: lanes
    try:
        return fn()
    finally:
        ocr._sessions[ocr.REC_MODEL], ocr.rec_lanes = saved


def timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """(wall s, CPU s) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    """Record, compare and time (see the module docstring)."""
    from core.imaging import ocr
    from core.imaging.faces import model_threads
    from core.imaging.ocr import BATCH_COLUMNS, rec_lanes, rec_threads, rec_width, recognise

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pad", type=int, default=16, help="columns added in the padding check")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")
    calls = record(args.photos)

    for width in sorted({mw for _crops, mw in calls}, reverse=True):
        mine = [crops for crops, mw in calls if mw == width]
        widths = [[max(rec_width(c), width, 16) for c in crops if rec_width(c)] for crops in mine]
        runs = sum(-(-row.count(w) // max(1, BATCH_COLUMNS // w))
                   for row in widths for w in set(row))
        print(f"min_width {width}: {len(mine)} calls, {sum(map(len, widths))} crops "
              f"(one run each before), {runs} runs batched; "
              f"padded widths {min(map(min, filter(None, widths)), default=0)}–"
              f"{max(map(max, filter(None, widths)), default=0)}")

    same = crops_n = chars = 0
    for crops, mw in calls:
        batched, alone = recognise(crops, mw), one_by_one(crops, mw)
        crops_n += len(crops)
        chars += sum(len(r.text) for r in alone)
        same += sum(a == b for a, b in zip(batched, alone, strict=True))
    print(f"same readings batched and alone: {same} of {crops_n} crops ({chars} characters)")

    short = [(c, mw) for crops, mw in calls if mw < 320 for c in crops if rec_width(c)]
    other_chars = other_conf = 0
    for crop, mw in short:
        width = max(rec_width(crop), mw, 16)
        (plain,), (padded,) = recognise([crop], mw), recognise([crop], width + args.pad)
        other_chars += plain.text != padded.text
        other_conf += plain.text == padded.text and plain.confidences != padded.confidences
    print(f"padded by {args.pad} columns: {other_chars} of {len(short)} read-pass crops read "
          f"other characters, {other_conf} the same characters with other confidences")

    shared = shared_session()  # the session every other model gets (model_threads)
    before = f"one crop a run, one lane, {model_threads()} threads (before)"
    ways: dict[str, tuple[Any, int, Callable[[], Any]]] = {
        before: (shared, 1, lambda: [one_by_one(crops, mw) for crops, mw in calls]),
        f"batched, one lane, {model_threads()} threads": (
            shared, 1, lambda: [recognise(crops, mw) for crops, mw in calls]),
        f"batched, {rec_lanes()} lanes, {rec_threads()} thread(s) (now)": (
            ocr.ppocr_session(ocr.REC_MODEL, "rec"), rec_lanes(),
            lambda: [recognise(crops, mw) for crops, mw in calls]),
    }
    readings = {name: using(session, lanes, fn) for name, (session, lanes, fn) in ways.items()}
    print("readings the same every way:", len({repr(r) for r in readings.values()}) == 1)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
    for _ in range(args.rounds):
        for name, (session, lanes, fn) in ways.items():
            times[name].append(timed(partial(using, session, lanes, fn)))
    base_wall = statistics.median(t[0] for t in times[before])
    base_cpu = statistics.median(t[1] for t in times[before])
    for name, rows in times.items():
        wall, cpu = (statistics.median(t[i] for t in rows) for i in (0, 1))
        print(f"{name:>50}: {1000 * wall / args.photos:6.1f} ms wall, "
              f"{1000 * cpu / args.photos:6.1f} ms CPU per photo "
              f"({wall / base_wall:.2f} × / {cpu / base_cpu:.2f} ×)")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
