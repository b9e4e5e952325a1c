"""The longest GIL hold of the HOG face fallback on a 10,000-px photo: old code against new.

The photo is ``bald_guys.jpg`` of the shared testdata (a 24-face collage) scaled up to
10,000 px wide.  Each tree in ``--trees`` (a folder holding ``core/``, e.g. a ``git
archive`` of main and this worktree) runs ``core.imaging.faces.hog_faces`` on it in a
worker thread of a fresh process, ``--repeats`` times alternating the order, while the
main thread wakes every millisecond, as the GUI's event loop would, and records the
longest gap between its wake-ups: the longest time the worker held the GIL.  Then the
same loop runs as long beside a worker that only sleeps: the floor the machine's own
scheduling gives; and beside a worker known to hold the GIL (one ``list.sort`` of 2M
floats), to show the probe sees a hold.  Reports medians of the gaps, of the call's wall time, the worker's
CPU time, the faces found, and the load average.

Usage:  .venv/bin/python benchmarks/bench_hog_gil.py --trees /tmp/main-tree . [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

TESTDATA = Path(__file__).resolve().parents[2] / "shared" / "testdata" / "faces"

_CHILD = """
import json, sys, threading, time
import numpy as np
from PIL import Image
from core.imaging import faces

src = Image.open(sys.argv[1]).convert("RGB")
width = int(sys.argv[2])
rgb = np.asarray(src.resize((width, round(src.height * width / src.width)), Image.BICUBIC))
faces.hog_faces(rgb[:64, :64])  # load the detector outside the measurement
out = {}


def longest_gap(target, *args):
    # run target(*args) in a worker; the longest gap between this thread's 1 ms wake-ups
    worker = threading.Thread(target=target, args=args)
    longest, last = 0.0, time.perf_counter()
    worker.start()
    while worker.is_alive():
        time.sleep(0.001)
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    worker.join()
    return longest


def work():
    t, c = time.perf_counter(), time.thread_time()
    found = faces.hog_faces(rgb)
    out.update(wall=time.perf_counter() - t, cpu=time.thread_time() - c, faces=len(found))


out["longest_gap"] = longest_gap(work)
# the floor: a worker that only sleeps as long (the machine's own scheduling jitter)
out["floor"] = longest_gap(time.sleep, out["wall"])
# the probe's check: a worker that does hold the GIL (list.sort of 2M floats, one C call)
out["control"] = longest_gap(list(np.random.default_rng(0).random(2_000_000)).sort)
print(json.dumps(out))
"""


def one(tree: Path, photo: Path, width: int) -> dict[str, float]:
    """One measurement in a fresh process of ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    done = subprocess.run([sys.executable, "-c", _CHILD, str(photo), str(width)], env=env,
                          capture_output=True, text=True, cwd=tree)
    if done.returncode:
        raise SystemExit(f"{tree}: failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=Path, nargs="+", required=True)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--width", type=int, default=10_000)
    parser.add_argument("--photo", type=Path, default=TESTDATA / "bald_guys.jpg")
    args = parser.parse_args()
    runs: dict[Path, list[dict[str, float]]] = {tree: [] for tree in args.trees}
    for k in range(args.repeats):
        for tree in args.trees if k % 2 == 0 else reversed(args.trees):
            runs[tree].append(one(tree, args.photo, args.width))
        print(f"round {k + 1}: " + "; ".join(
            f"{tree}: hold {v[-1]['longest_gap']:.3f} s, wall {v[-1]['wall']:.2f} s, "
            f"floor {v[-1]['floor']:.3f} s, control {v[-1]['control']:.3f} s, "
            f"{v[-1]['faces']:.0f} faces"
            for tree, v in runs.items()))
    med = statistics.median
    first = med(r["longest_gap"] for r in runs[args.trees[0]])
    print(f"\nHOG on {args.photo.name} at {args.width:,} px wide, medians of {args.repeats}, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores:")
    for tree, values in runs.items():
        hold = med(r["longest_gap"] for r in values)
        print(f"  {tree}: longest GIL hold {hold:.3f} s ({first / hold:.1f}× shorter than the "
              f"first tree's; floor {med(r['floor'] for r in values):.3f} s, a GIL-holding "
              f"control {med(r['control'] for r in values):.3f} s), wall "
              f"{med(r['wall'] for r in values):.2f} s, CPU "
              f"{med(r['cpu'] for r in values):.2f} s, faces {med(r['faces'] for r in values):.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
