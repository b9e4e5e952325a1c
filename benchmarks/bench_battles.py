"""Benchmark: reading large arena vote files (ADRs 022, 023); not a test.

    .venv/bin/python benchmarks/bench_battles.py [--battles 200000] [--repeats 3]

Writes, into a temporary folder, N battles over 40 models in the shape of FastChat's
``clean_battle_conv_*.json`` (``question_id``, ``model_a``, ``model_b``, ``winner``,
``judge``, ``conversation_a``/``conversation_b`` of ~1 KB, ``turn``, ``anony``,
``language``, ``tstamp``), as

* a JSON array (the form that reaches hundreds of MB),
* JSON Lines,
* a pairwise CSV table with a winner column (no conversations),
* a vote-count table (``model_a, model_b, wins_a, wins_b, ties, bothbad``),

and reads each with :func:`core.stats.votefiles.read_vote_file` (what ``winnow stats
bt|elo|winrate FILE`` and Analyze → Open Data File… do first) in a fresh subprocess,
reporting the median wall time and the median growth of peak RSS over the child's state
after its imports.  The reference is the straightforward way, ``json.load`` of the
array followed by a Python loop over the battles, in the same kind of child, for ratios
from one run.  Then ``winnow stats elo FILE --bootstrap 100`` end to end on the array.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[3])
from core.stats.votefiles import read_vote_file
mode, path = sys.argv[1], sys.argv[2]
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
if mode == "winnow":
    n = len(read_vote_file(path).votes)
else:  # the straightforward way
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    words = {"model_a": 0, "model_b": 1, "tie": 2, "tie (bothbad)": 2}
    rows = [(b["model_a"], b["model_b"], words[b["winner"]]) for b in data]
    n = len(rows)
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "n": n, "growth_mb": (peak - base) / 1024}))
"""


def write_files(folder: Path, n: int, seed: int = 0) -> dict[str, Path]:
    """The four files of ``n`` battles; returns their paths by kind."""
    rng = np.random.default_rng(seed)
    models = [f"model-{k:02d}" for k in range(40)]
    a = rng.integers(0, 40, n)
    b = (a + rng.integers(1, 40, n)) % 40
    u = rng.random(n)
    winner = np.where(u < 0.06, 3, np.where(u < 0.14, 2, np.where(u < 0.57, 0, 1)))
    words = ["model_a", "model_b", "tie", "tie (bothbad)"]
    turn = [
        {"role": "user", "content": "a red fox in fresh snow, golden hour " * 6},
        {"role": "assistant", "content": "<image>" * 80},
    ]
    paths = {
        k: folder / name
        for k, name in (
            ("array", "clean_battle_conv.json"),
            ("lines", "battles.jsonl"),
            ("table", "pairwise.csv"),
            ("counts", "counts.csv"),
        )
    }
    with (
        open(paths["array"], "w", encoding="utf-8") as arr,
        open(paths["lines"], "w", encoding="utf-8") as lines,
        open(paths["table"], "w", encoding="utf-8") as table,
    ):
        arr.write("[\n")
        table.write("question_id,model_a,model_b,winner,judge,anony,tstamp\n")
        for i in range(n):
            rec = {
                "question_id": f"{i:032x}",
                "model_a": models[a[i]],
                "model_b": models[b[i]],
                "winner": words[winner[i]],
                "judge": f"arena_user_{i % 9973}",
                "conversation_a": turn,
                "conversation_b": turn,
                "turn": 1,
                "anony": bool(i % 5),
                "language": "English",
                "tstamp": 1.7e9 + 7.3 * i,
            }
            text = json.dumps(rec)
            arr.write(("  " if i == 0 else ",\n  ") + text)
            lines.write(text + "\n")
            table.write(
                f"{rec['question_id']},{rec['model_a']},{rec['model_b']},"
                f"{rec['winner']},{rec['judge']},{rec['anony']},{rec['tstamp']}\n"
            )
        arr.write("\n]\n")
    counts = np.zeros((40, 40, 4), dtype=np.int64)
    np.add.at(counts, (a, b, winner), 1)
    with open(paths["counts"], "w", encoding="utf-8") as fh:
        fh.write("model_a,model_b,wins_a,wins_b,ties,bothbad\n")
        for i, j in zip(*np.nonzero(counts.sum(axis=2)), strict=True):
            fh.write(f"{models[i]},{models[j]},{','.join(str(c) for c in counts[i, j])}\n")
    return paths


def child(mode: str, path: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(path), str(REPO)],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
    )
    return json.loads(out.stdout)


def medians(runs: list[dict[str, float]]) -> tuple[float, float]:
    return (
        statistics.median(r["seconds"] for r in runs),
        statistics.median(r["growth_mb"] for r in runs),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--battles", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--no-reference",
        action="store_true",
        help="skip json.load (it needs several GB for big files)",
    )
    args = parser.parse_args()
    print(
        f"# {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    )
    with tempfile.TemporaryDirectory(prefix="bench-battles-") as tmp:
        t0 = time.perf_counter()
        paths = write_files(Path(tmp), args.battles)
        print(f"# wrote {args.battles:,} battles in {time.perf_counter() - t0:.0f} s")
        rows = []
        for kind in ("array", "lines", "table", "counts"):
            runs = [child("winnow", paths[kind]) for _ in range(args.repeats)]
            rows.append((kind, paths[kind].stat().st_size, *medians(runs)))
        ref = None
        if not args.no_reference:
            ref = medians([child("json.load", paths["array"]) for _ in range(args.repeats)])
        print("| file | size | read, wall (median) | peak RSS growth (median) |")
        print("|---|---|---|---|")
        for kind, size, seconds, growth in rows:
            print(f"| {kind} | {size / 2**20:,.0f} MB | {seconds:.2f} s | {growth:,.0f} MB |")
        if ref is not None:
            print(f"| array, json.load + loop (reference) | | {ref[0]:.2f} s | {ref[1]:,.0f} MB |")
            print(
                f"\nreference / Winnow on the array: time {ref[0] / rows[0][2]:.2f}x, "
                f"memory {ref[1] / max(rows[0][3], 1):.1f}x"
            )
        t0 = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "app",
                "stats",
                "elo",
                str(paths["array"]),
                "--bootstrap",
                "100",
                "--seed",
                "0",
            ],
            check=True,
            cwd=REPO,
            capture_output=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        print(
            f"winnow stats elo ARRAY --bootstrap 100 --seed 0: "
            f"{time.perf_counter() - t0:.1f} s end to end"
        )


if __name__ == "__main__":
    main()
