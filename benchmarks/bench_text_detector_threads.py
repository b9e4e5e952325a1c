"""The PP-OCR text detector's one run at the working scale (1280 × 704), by intra-op threads
and thread spinning: how far a second core speeds the run that dominates plate detection.

Issue 18: the plate pass costs ~0.55 s of a ~0.7 s detection at 1 MP here, most of it this
run. Two lanes (faces and plates at once, one thread each) help only where two threads
speed one run by much less than 2 (ADR 117); this prints the ratio.

    .venv/bin/python benchmarks/bench_text_detector_threads.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    import numpy as np

    from core.onnx_runtime import onnxruntime

    ort = onnxruntime()

    from core.imaging.ocr import DET_MODEL, ppocr_model_path

    path = ppocr_model_path(DET_MODEL, "det")
    if path is None:
        print("the PP-OCR detector is not installed (pip install '.[anonymize]')")
        return 2
    blob = np.random.default_rng(0).random((1, 3, 704, 1280), dtype=np.float32)
    rows = {}
    for threads in (1, 2):
        for spin in ("0", "1"):
            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.log_severity_level = 3
            options.add_session_config_entry("session.intra_op.allow_spinning", spin)
            session = ort.InferenceSession(str(path), options,
                                           providers=["CPUExecutionProvider"])
            session.run(None, {"x": blob})
            walls, cpus = [], []
            for _ in range(args.runs):
                wall, cpu = time.perf_counter(), time.process_time()
                session.run(None, {"x": blob})
                walls.append(time.perf_counter() - wall)
                cpus.append(time.process_time() - cpu)
            rows[(threads, spin)] = (statistics.median(walls), statistics.median(cpus))
            print(f"threads {threads}, spinning {spin}: wall {rows[(threads, spin)][0]:.3f} s, "
                  f"CPU {rows[(threads, spin)][1]:.3f} s (median of {args.runs})")
    print(f"one thread / two threads, wall (no spinning, Winnow's setting): "
          f"{rows[(1, '0')][0] / rows[(2, '0')][0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
