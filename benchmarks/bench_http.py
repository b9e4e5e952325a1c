"""The shared httpx set-up (core/http_pools.py) against the one it replaced in the image
fetch and the judge client: CPU and wall time for N chat requests, C in flight.

The server (tests/propose/vlm_server.py, asyncio, keep-alive) runs in its own process
and answers after ``--latency`` ms, so the client's CPU time is what the set-up costs.
"before" is the old set-up, kept here: one ``httpx.AsyncClient`` whose pool holds all C
connections, a semaphore for the slots, and sniffio left to httpcore's per-lock import
(sys.modules entry removed before each "before" round).  "after" is
``ClientPools`` (pools of at most 8 connections, absent sniffio marked absent), also
through ``JudgeClient.complete`` as the judges run it.  Rounds interleave.

    .venv/bin/python benchmarks/bench_http.py [--requests 2000] [--concurrency 32]
        [--latency 1] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import statistics
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "propose"))


def _serve(ready: Any, stop: Any) -> None:
    from vlm_server import VlmServer

    with VlmServer(record=False) as srv:
        ready.put(srv.url)
        stop.wait()


MESSAGES = [{"role": "user", "content": "Label the sample: a watercolor cat"}]


async def _run(
    n: int, conc: int, slot: Callable[[], AbstractAsyncContextManager[Any]], model: str
) -> None:
    payload = {"model": model, "messages": MESSAGES, "max_tokens": 64}
    todo = iter(range(n))

    async def worker() -> None:
        for _ in todo:
            async with slot() as client:
                resp = await client.post("chat/completions", json=payload)
                resp.raise_for_status()
                resp.json()

    await asyncio.gather(*(worker() for _ in range(conc)))


async def before(url: str, n: int, conc: int, model: str) -> None:
    import httpx

    sys.modules.pop("sniffio", None)  # as it was: httpcore searches for it on every lock
    sem = asyncio.Semaphore(conc)
    client = httpx.AsyncClient(
        base_url=url + "/", timeout=httpx.Timeout(30.0), limits=httpx.Limits(max_connections=conc)
    )

    @asynccontextmanager
    async def slot() -> AsyncIterator[httpx.AsyncClient]:
        async with sem:
            yield client

    try:
        await _run(n, conc, slot, model)
    finally:
        await client.aclose()


async def after(url: str, n: int, conc: int, model: str) -> None:
    import httpx

    from core.http_pools import ClientPools

    pools = ClientPools(
        conc,
        lambda limits: httpx.AsyncClient(
            base_url=url + "/", timeout=httpx.Timeout(30.0), limits=limits
        ),
    )
    try:
        await _run(n, conc, pools.slot, model)
    finally:
        await pools.aclose()


async def judge(url: str, n: int, conc: int, model: str) -> None:
    from core.metrics.judge_client import JudgeClient
    from core.metrics.settings import JudgeEndpoint

    endpoint = JudgeEndpoint(base_url=url, model=model, concurrency=conc, max_retries=0)
    async with JudgeClient(endpoint) as client:
        todo = iter(range(n))

        async def worker() -> None:
            for _ in todo:
                await client.complete(MESSAGES)

        await asyncio.gather(*(worker() for _ in range(conc)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency", type=int, default=1, help="server latency in ms")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    ctx = mp.get_context("spawn")
    ready, stop = ctx.Queue(), ctx.Event()
    server = ctx.Process(target=_serve, args=(ready, stop), daemon=True)
    server.start()
    url = ready.get(timeout=30).rstrip("/")
    model = f"latency:{args.latency}"
    runs = {"before": before, "after": after, "judge_client_after": judge}
    cpu: dict[str, list[float]] = {k: [] for k in runs}
    wall: dict[str, list[float]] = {k: [] for k in runs}
    try:
        asyncio.run(after(url, 200, args.concurrency, model))  # warm-up (imports, server)
        for _ in range(args.rounds):
            for name, fn in runs.items():
                c0, w0 = time.process_time(), time.perf_counter()
                asyncio.run(fn(url, args.requests, args.concurrency, model))
                cpu[name].append(time.process_time() - c0)
                wall[name].append(time.perf_counter() - w0)
    finally:
        stop.set()
        server.join(5)
    n = args.requests
    out: dict[str, Any] = {
        "requests": n,
        "concurrency": args.concurrency,
        "latency_ms": args.latency,
        "rounds": args.rounds,
    }
    for name in runs:
        out[name] = {
            "cpu_ms_per_request": round(1000 * statistics.median(cpu[name]) / n, 3),
            "wall_s": round(statistics.median(wall[name]), 3),
            "requests_per_s": round(n / statistics.median(wall[name]), 1),
        }
    b, a = out["before"], out["after"]
    out["ratio_after_before"] = {
        "cpu": round(a["cpu_ms_per_request"] / b["cpu_ms_per_request"], 2),
        "wall": round(a["wall_s"] / b["wall_s"], 2),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
