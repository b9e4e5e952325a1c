"""What ADR 159's dialect handling costs when reading vote CSVs: old code against new.

Each round runs ``tables.read_votes`` in a fresh process for each code tree, alternating,
on a 2,000,000-vote comma file (the split parser's path, now also sniffed for the
separator and scanned for NUL bytes) and on a 200,000-vote ';' file with a BOM and CRLF
(the stdlib csv path; the old code refuses it, so only the new one is timed there).

    python benchmarks/bench_csv_dialects.py --base /tmp/newvotes-base --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parents[1]
CHILD = """
import sys, time, resource
from core.stats import tables
t0, c0 = time.perf_counter(), time.process_time()
v = tables.read_votes(sys.argv[1])
print(time.perf_counter() - t0, time.process_time() - c0, len(v))
"""


def _write(path: Path, n: int, sep: str, eol: str, bom: bool) -> None:
    rng = np.random.default_rng(0)
    models = [f"model-{k:02d}" for k in range(40)]
    a = rng.integers(0, 40, n)
    b = (a + rng.integers(1, 40, n)) % 40
    w = rng.choice(["a", "b", "tie"], n)
    lines = [sep.join(("a", "b", "winner"))]
    lines += [f"{models[x]}{sep}{models[y]}{sep}{z}" for x, y, z in zip(a, b, w, strict=True)]
    data = (eol.join(lines) + eol).encode()
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)


def _time(tree: Path, path: Path) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", CHILD, str(path)], env=env, cwd=tree,
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", type=Path, required=True, help="the old code tree")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    comma, semi = tmp / "comma.csv", tmp / "semi.csv"
    _write(comma, 2_000_000, ",", "\n", False)
    _write(semi, 200_000, ";", "\r\n", True)
    runs: dict[str, list[tuple[float, float]]] = {"old comma": [], "new comma": [],
                                                  "new semicolon": []}
    for _ in range(args.rounds):
        runs["old comma"].append(_time(args.base, comma))
        runs["new comma"].append(_time(HERE, comma))
        runs["new semicolon"].append(_time(HERE, semi))
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
           for k, v in runs.items()}
    med["ratio new/old comma"] = (med["new comma"][0] / med["old comma"][0],
                                  med["new comma"][1] / med["old comma"][1])
    print(json.dumps({k: {"wall_s": round(w, 3), "cpu_s": round(c, 3)} for k, (w, c)
                      in med.items()}, indent=2))
    print("load average:", os.getloadavg())


if __name__ == "__main__":
    main()
