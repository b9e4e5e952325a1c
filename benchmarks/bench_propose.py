"""Proposal throughput and memory: N posts against the mock VLM server at a fixed latency.

The server (tests/propose/vlm_server.py, asyncio, keep-alive) runs in its own process
and answers every request after ``--latency`` ms, so the ideal throughput is
concurrency / latency; the client should reach it and its memory should stay flat
(posts are taken lazily, 2 × concurrency at a time; every answer is written at once).

    .venv/bin/python benchmarks/bench_propose.py [--posts 10000] [--latency 200]
        [--concurrency 32,64] [--kind quality]

Prints one JSON line per concurrency: wall time, requests/s, the ideal, their ratio,
the client's CPU time per request, resident memory at start / after a quarter / peak /
end (MiB), and the time of a second, cached run.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "propose"))


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _serve(ready: mp.Queue, stop: mp.Event) -> None:  # type: ignore[type-arg]
    from vlm_server import VlmServer

    with VlmServer(record=False) as srv:
        ready.put(srv.url)
        stop.wait()


def _project(folder: Path, n: int):  # type: ignore[no-untyped-def]
    from core.ingest.importer import import_jsonl
    from core.store import Project

    src = folder / "posts.jsonl"
    with src.open("w", encoding="utf-8") as fh:
        for k in range(n):
            fh.write(json.dumps({"id": f"b{k:06d}", "author": f"@u{k % 977}",
                                 "timestamp": "2025-03-26T10:00:00Z",
                                 "text": f"post {k}: turn my photo of a dog into a watercolor "
                                         f"painting with soft light, variant {k % 13}"}) + "\n")
    project = Project.create(folder / f"bench-{n}.winnow")
    import_jsonl(project, src)
    return project


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--posts", type=int, default=10_000)
    ap.add_argument("--latency", type=int, default=200, help="server latency in ms")
    ap.add_argument("--concurrency", default="32,64")
    ap.add_argument("--kind", default="quality")
    args = ap.parse_args()

    from core.propose.client import ProposeEndpoint
    from core.propose.job import run_proposals
    from core.propose.store import select_posts

    ctx = mp.get_context("spawn")
    ready: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
    stop = ctx.Event()
    server = ctx.Process(target=_serve, args=(ready, stop), daemon=True)
    server.start()
    url = ready.get(timeout=60)
    try:
        for conc in (int(c) for c in args.concurrency.split(",")):
            with tempfile.TemporaryDirectory() as tmp:
                project = _project(Path(tmp), args.posts)
                posts = select_posts(project, "all")
                ep = ProposeEndpoint(url, f"latency:{args.latency}", concurrency=conc,
                                     timeout=30, attempts=2)
                samples: list[float] = []
                done = threading.Event()

                def watch(samples: list[float] = samples, done: threading.Event = done) -> None:
                    while not done.wait(0.25):
                        samples.append(_rss_mib())

                start_rss = _rss_mib()
                watcher = threading.Thread(target=watch, daemon=True)
                watcher.start()
                t0, cpu0 = time.perf_counter(), time.process_time()
                report = run_proposals(project, ep, [args.kind], posts)
                wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
                done.set()
                watcher.join()
                end_rss = _rss_mib()
                t1 = time.perf_counter()
                again = run_proposals(project, ep, [args.kind], posts)
                cached_wall = time.perf_counter() - t1
                project.close()
            ideal = conc / (args.latency / 1000)
            rate = report.ok / wall
            quarter = len(samples) // 4
            print(json.dumps({
                "posts": args.posts, "kind": args.kind, "latency_ms": args.latency,
                "concurrency": conc, "ok": report.ok, "failed": report.failed,
                "max_in_flight": report.max_in_flight, "wall_s": round(wall, 1),
                "requests_per_s": round(rate, 1), "ideal_per_s": round(ideal, 1),
                "ratio": round(rate / ideal, 3),
                "client_cpu_ms_per_request": round(1000 * cpu / max(1, report.ok), 2),
                "rss_mib_start": round(start_rss, 1),
                "rss_mib_after_first_quarter": round(samples[quarter], 1) if samples else None,
                "rss_mib_peak": round(max(samples or [end_rss]), 1),
                "rss_mib_end": round(end_rss, 1), "cached_rerun_s": round(cached_wall, 1),
                "cached": again.cached}), flush=True)
    finally:
        stop.set()
        server.join(10)


if __name__ == "__main__":
    main()
