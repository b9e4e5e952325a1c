"""Import with local images: the time to store them, by how many there are.

Each sample line names one small PNG as input and output; the JSONL and images are
made once per size, then imported in a fresh subprocess per run (this tree, and with
``--compare DIR`` another source tree, alternating), so the ratio is measured in one run
under the same load.  Prints medians of the whole import and of the storing step.

    .venv/bin/python benchmarks/bench_import_images.py --sizes 1000,4000 --runs 3 [--compare DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

CHILD = """
import sys, time, json
sys.path.insert(0, sys.argv[1])
from core.store import Project
from core.ingest import attach
from core.ingest.importer import import_jsonl
store = attach._store
spent = {}
def timed(*a, **k):
    t = time.perf_counter()
    try:
        return store(*a, **k)
    finally:
        spent["store"] = time.perf_counter() - t
attach._store = timed
p = Project.create(sys.argv[3])
t = time.perf_counter()
r = import_jsonl(p, sys.argv[2])
print(json.dumps({"seconds": time.perf_counter() - t, "store": spent.get("store", 0.0),
                  "imported": r.imported}))
"""


def make_source(root: Path, n: int) -> Path:
    """``n`` sample lines, each naming its own 8-px PNG as input and output."""
    (root / "img").mkdir(parents=True)
    with open(root / "s.jsonl", "w") as f:
        for k in range(n):
            Image.new("RGB", (8, 8), (k % 256, k // 256 % 256, 7)).save(root / "img" / f"{k}.png")
            f.write(json.dumps({"id": f"s{k}", "prompt": "p", "input_images": [f"img/{k}.png"],
                                "output_images": [f"img/{k}.png"]}) + "\n")
    return root / "s.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,4000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--compare", metavar="DIR", help="another source tree to measure too")
    args = ap.parse_args()
    trees = {"this tree": str(Path(__file__).resolve().parents[1])}
    if args.compare:
        trees["compare"] = str(Path(args.compare).resolve())
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(v) for v in args.sizes.split(",")):
            source = make_source(Path(tmp) / f"src{n}", n)
            got: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
            for run in range(args.runs):
                for name, tree in trees.items():
                    out = Path(tmp) / f"p{n}-{run}-{len(got[name])}-{name[0]}.winnow"
                    res = subprocess.run([sys.executable, "-c", CHILD, tree, str(source),
                                          str(out)], capture_output=True, text=True,
                                         check=True)
                    got[name].append(json.loads(res.stdout.strip().splitlines()[-1]))
            for name, rows in got.items():
                total = statistics.median(r["seconds"] for r in rows)
                store = statistics.median(r["store"] for r in rows)
                print(f"{n:6d} images  {name:10s} import {total:7.2f} s, storing {store:7.2f} s",
                      flush=True)


if __name__ == "__main__":
    main()
