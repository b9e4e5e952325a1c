"""The overall request deadline and capped body read (core/http_pools.py ``deadline``,
``read_capped``; ADR 143) against the code before them: client CPU and wall time for N
chat requests through ``JudgeClient.complete`` and ``ProposeClient.complete``, C in
flight, against the local VLM server (tests/propose/vlm_server.py, its own process).

Each round runs "before" (the base commit's ``core`` extracted to ``--before DIR``,
e.g. ``git archive $(git merge-base HEAD main) core | tar -x -C DIR``) and "after" (this
tree) in fresh processes, alternating, so both see the same machine load.

    .venv/bin/python benchmarks/bench_deadline.py --before DIR [--requests 1000]
        [--concurrency 32] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MESSAGES = [{"role": "user", "content": "Label the sample: a watercolor cat"}]


def _child(tree: str, url: str, kind: str, n: int, conc: int) -> None:
    """One timed run in this (fresh) process, ``core`` imported from ``tree``."""
    sys.path[:0] = [tree, str(ROOT / "tests" / "propose")]
    import asyncio

    async def run() -> None:
        if kind == "judge":
            from core.metrics.judge_client import JudgeClient
            from core.metrics.settings import JudgeEndpoint

            ep = JudgeEndpoint(base_url=url, model="m", concurrency=conc, max_retries=0)
            client: object = JudgeClient(ep)

            async def one(c: object) -> None:
                await c.complete(MESSAGES)  # type: ignore[attr-defined]
        else:
            from core.propose.client import ProposeClient, ProposeEndpoint

            pep = ProposeEndpoint(base_url=url, model="m", concurrency=conc, attempts=1,
                                  structured="off")
            client = ProposeClient(pep)

            async def one(c: object) -> None:
                await c.complete(MESSAGES, "n", {})  # type: ignore[attr-defined]

        async with client:  # type: ignore[attr-defined]
            todo = iter(range(n))

            async def worker() -> None:
                for _ in todo:
                    await one(client)

            await asyncio.gather(*(worker() for _ in range(conc)))

    t0, c0 = time.perf_counter(), time.process_time()
    asyncio.run(run())
    print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="a folder holding the old core/")
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        tree, url, kind = args.child
        _child(tree, url, kind, args.requests, args.concurrency)
        return
    sys.path.insert(0, str(ROOT / "tests" / "propose"))
    from vlm_server import VlmServer

    results: dict[str, list[dict[str, float]]] = {}
    with VlmServer(record=False) as srv:
        for _ in range(args.rounds):
            for kind in ("judge", "propose"):
                for label, tree in (("before", args.before), ("after", str(ROOT))):
                    out = subprocess.run(
                        [sys.executable, __file__, "--before", args.before, "--requests",
                         str(args.requests), "--concurrency", str(args.concurrency),
                         "--child", tree, srv.url, kind],
                        capture_output=True, text=True, check=True,
                        env={**os.environ, "PYTHONPATH": ""})
                    results.setdefault(f"{kind} {label}", []).append(
                        json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"{args.requests} requests, {args.concurrency} in flight, {args.rounds} rounds; "
          f"load average {os.getloadavg()[0]:.1f}")
    for kind in ("judge", "propose"):
        med = {label: {k: statistics.median(r[k] for r in results[f"{kind} {label}"])
                       for k in ("wall", "cpu")} for label in ("before", "after")}
        print(f"{kind:8s} cpu ms/request before {1000 * med['before']['cpu'] / args.requests:.3f}"
              f" after {1000 * med['after']['cpu'] / args.requests:.3f}"
              f" (×{med['after']['cpu'] / med['before']['cpu']:.2f}); wall s before "
              f"{med['before']['wall']:.2f} after {med['after']['wall']:.2f}"
              f" (×{med['after']['wall'] / med['before']['wall']:.2f})")


if __name__ == "__main__":
    main()
