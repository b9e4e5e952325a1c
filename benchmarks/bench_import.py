"""Import benchmark, no images (each import in a fresh subprocess so peak RSS is its own).

Two workloads:

* ``posts`` (foundation issue): 68,000 synthetic posts (ECHO's raw scale); also the time
  to open the project and the latency of a full-text query;
* ``samples`` (issue 18): 30,500 post lines, each with one reply (61,000 posts), then
  30,500 sample lines with image references, feedback and a tag.

Prints the import call's wall time and CPU time (medians over runs) and the process's
peak RSS.  ``--compare DIR`` also runs the same children with another source tree
(e.g. a checkout of main) first on ``PYTHONPATH``, alternating runs, so the ratio is
measured in one run under the same load.

    .venv/bin/python benchmarks/bench_import.py [--workload samples] [--runs 5] [--compare ../main]
        [--sequential]

``--sequential`` (samples workload) also runs this tree with ``read_ahead=False``: parsing
and writing in turn on one thread, as before ADR 029.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_WORDS_TEXT = ("ghibli cat portrait neon sign poster edit colour yellow tint style photo "
               "turn make this into anime watercolour sketch logo text renders car house dog "
               "sunset night snow polaroid vintage cinematic lighting background remove add")
WORDS = _WORDS_TEXT.split()

CHILD = """
import sys, time, json, resource
from core.store import Project
from core.ingest.importer import import_jsonl
p = Project.create(sys.argv[1])
kwargs = {"read_ahead": False} if sys.argv[3:] == ["sequential"] else {}
t0, c0 = time.perf_counter(), time.process_time()
r = import_jsonl(p, sys.argv[2], fetch_images=False, **kwargs)
t1 = time.perf_counter()
p.close()  # a checkpoint left to closing (ADR 025) is counted here
print(json.dumps({"seconds": t1 - t0, "cpu": time.process_time() - c0,
                  "with_close": time.perf_counter() - t0,
                  "imported": r.imported, "errors": len(r.errors),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def make_posts(path: Path, n: int, seed: int = 0) -> None:
    """Write ``n`` raw posts with reply context, like ECHO's scraped threads."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as fh:
        for k in range(n):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40)))
            post = {"id": f"post-{k}", "text": text, "timestamp": 1_740_000_000 + k * 37,
                    "keyword": rng.choice(["gpt-4o image", "ghibli", "nano banana"]),
                    "url": f"https://x.com/u{k % 5000}/status/{k}",
                    "author": f"@user{k % 5000}",
                    "engagement": {"likes": rng.randint(0, 9999), "views": rng.randint(0, 10**6)},
                    "image_urls": []}
            fh.write(json.dumps(post) + "\n")


def make_samples(path: Path, n: int = 30_500, seed: int = 0) -> None:
    """``n`` posts with one reply each, then ``n`` samples on them (issue 18's workload)."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as fh:
        for k in range(n):
            post = {"id": f"post-{k}", "text": " ".join(rng.choice(WORDS)
                                                        for _ in range(rng.randint(8, 40))),
                    "timestamp": 1_740_000_000 + k * 37,
                    "keyword": rng.choice(["gpt-4o image", "ghibli", "nano banana"]),
                    "url": f"https://x.com/u{k % 5000}/status/{k}", "author": f"@user{k % 5000}",
                    "engagement": {"likes": rng.randint(0, 9999), "views": rng.randint(0, 10**6)},
                    "image_urls": [{"url": f"https://pbs.example/media/{k}-in.jpg",
                                    "alt": "input"}, f"https://pbs.example/media/{k}-out.jpg"],
                    "replies_below": [{"id": f"reply-{k}", "author": f"@user{(k * 7) % 5000}",
                                       "text": " ".join(rng.choice(WORDS)
                                                        for _ in range(rng.randint(3, 20)))}]}
            fh.write(json.dumps(post) + "\n")
        for k in range(n):
            sample = {"id": f"sample-{k}", "post_id": f"post-{k}",
                      "prompt": " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 30))),
                      "quality": rng.choice(["Benchmark", "Analysis", "Trash", None]),
                      "input_images": [0], "output_images": [1], "is_screenshot": False,
                      "community_feedback": [{"post_id": f"reply-{k}", "text": "too yellow"}],
                      "tags": [rng.choice(["colour", "identity", "text"])]}
            fh.write(json.dumps(sample) + "\n")


def _child(tree: Path, target: Path, src: Path, *extra: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(target), str(src), *extra],
                         cwd=tree, capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout)


def _summary(name: str, runs: list[dict]) -> str:
    secs, cpus, peaks, closed = ([r[k] for r in runs]
                                 for k in ("seconds", "cpu", "peak_mb", "with_close"))
    return (f"{name}: wall median {statistics.median(secs):.2f} s (runs "
            f"{', '.join(f'{s:.2f}' for s in secs)}), with closing the project "
            f"{statistics.median(closed):.2f} s, CPU median {statistics.median(cpus):.2f} s, "
            f"peak RSS median {statistics.median(peaks):.0f} MB")


def compare_samples(args: argparse.Namespace) -> None:
    here = Path(__file__).resolve().parent.parent
    trees: dict[str, tuple[Path, tuple[str, ...]]] = {"this tree": (here, ())}
    if args.compare:
        trees = {f"baseline ({args.compare})": (Path(args.compare).resolve(), ()), **trees}
    if args.sequential:  # this tree without the read-ahead thread (ADR 029)
        trees["this tree, sequential"] = (here, ("sequential",))
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "samples.jsonl"
        make_samples(src)
        print(f"source: 30,500 post lines (61,000 posts) + 30,500 sample lines, "
              f"{src.stat().st_size / 2**20:.1f} MiB")
        runs: dict[str, list[dict]] = {name: [] for name in trees}
        for k in range(args.runs):
            for name, (tree, extra) in trees.items():  # alternate: all see the same load
                target = Path(tmp) / f"{k}-{len(runs[name])}-{abs(hash(name))}.winnow"
                result = _child(tree, target, src, *extra)
                assert result["imported"] == 61_000 and result["errors"] == 0, result
                runs[name].append(result)
        for name in trees:
            print(_summary(name, runs[name]))
        first = next(iter(runs))
        for name in list(runs)[1:]:
            base, new = (statistics.median(r["seconds"] for r in runs[n]) for n in (first, name))
            base_cpu, new_cpu = (statistics.median(r["cpu"] for r in runs[n])
                                 for n in (first, name))
            print(f"ratio {first} / {name}: wall {base / new:.2f}x, CPU "
                  f"{base_cpu / new_cpu:.2f}x")
        print(f"load average at the end: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workload", choices=("posts", "samples"), default="posts")
    parser.add_argument("--posts", type=int, default=68_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--compare", metavar="DIR", help="another source tree to measure too")
    parser.add_argument("--sequential", action="store_true",
                        help="samples workload: also this tree without the read-ahead thread")
    args = parser.parse_args()
    if args.workload == "samples":
        compare_samples(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "posts.jsonl"
        make_posts(src, args.posts)
        print(f"source: {args.posts:,} posts, {src.stat().st_size / 2**20:.1f} MiB")
        runs = []
        for k in range(args.runs):
            target = Path(tmp) / f"p{k}.winnow"
            out = subprocess.run([sys.executable, "-c", CHILD, str(target), str(src)],
                                 capture_output=True, text=True, check=True)
            runs.append(json.loads(out.stdout))
        assert all(r["imported"] == args.posts and r["errors"] == 0 for r in runs)
        secs = [r["seconds"] for r in runs]
        peaks = [r["peak_mb"] for r in runs]
        print(f"import: median {statistics.median(secs):.2f} s (runs: "
              f"{', '.join(f'{s:.2f}' for s in secs)}), peak RSS median "
              f"{statistics.median(peaks):.0f} MB (whole process, Python + Qt-free app)")

        from core.store import Project

        opens = []
        for _ in range(7):
            t0 = time.perf_counter()
            project = Project.open(Path(tmp) / "p0.winnow")
            counts = project.counts()
            opens.append(time.perf_counter() - t0)
            project.close()
        print(f"open + count ({counts['posts']:,} posts): median "
              f"{statistics.median(opens) * 1000:.1f} ms")

        project = Project.open(Path(tmp) / "p0.winnow", readonly=True)
        queries = ["ghibli", "yellow tint", "neon sign poster", "watercolour", "logo text"]
        times, hits = [], []
        for _ in range(5):
            for q in queries:
                fts = " ".join(f'"{w}"' for w in q.split())
                t0 = time.perf_counter()
                rows = project.conn.execute(
                    "SELECT p.id, p.text FROM posts_fts f JOIN posts p ON p.rowid = f.rowid "
                    "WHERE posts_fts MATCH ? ORDER BY rank LIMIT 100", (fts,)).fetchall()
                times.append(time.perf_counter() - t0)
                hits.append(len(rows))
        times.sort()
        print(f"full-text query (top 100 by rank): median {statistics.median(times) * 1000:.1f}"
              f" ms, p95 {times[int(0.95 * (len(times) - 1))] * 1000:.1f} ms over "
              f"{len(times)} queries")
        project.close()
        print(f"benchmark process peak RSS: "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
