"""Import benchmark (foundation issue): 68,000 synthetic posts (ECHO's raw scale), no images.

Prints wall time and peak memory of the import (median over runs, each in a fresh
subprocess so peak RSS is the import's own), the time to open the project, and the
latency of a full-text query.

    .venv/bin/python benchmarks/bench_import.py [--posts 68000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
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
import sys, time, json
t0 = time.perf_counter()
from core.store import Project
from core.ingest.importer import import_jsonl
p = Project.create(sys.argv[1])
r = import_jsonl(p, sys.argv[2], fetch_images=False)
p.close()
import resource
print(json.dumps({"seconds": time.perf_counter() - t0, "imported": r.imported,
                  "errors": len(r.errors),
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=68_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
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
