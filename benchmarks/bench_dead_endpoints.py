"""What a dead server costs: image fetching (ADR 193) and a VLM judge (ADR 192).

A "hung" server on 127.0.0.1 accepts connections (the kernel's backlog) and never
answers, so every request waits for its read timeout.  Each case runs twice in one
process, alternating: with the give-up rules as shipped, and with them switched off
(the count set out of reach), which is how Winnow behaved before.  Timeouts are short
(0.3 s, one retry) so the baseline finishes; with the shipped defaults (60 s per URL,
120 s per judge request) the ratio grows with them.

    .venv/bin/python benchmarks/bench_dead_endpoints.py [--urls 200] [--items 60] [--runs 3]

Prints medians (wall seconds) and requests sent, and the ratio off / on.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.ingest import fetch, fetch_hosts  # noqa: E402
from core.metrics import judge_client  # noqa: E402


@contextmanager
def hung_server() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(4096)
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


def fetch_case(port: int, n: int) -> tuple[float, int]:
    urls = [f"http://127.0.0.1:{port}/img{k}.jpg" for k in range(n)]
    with tempfile.TemporaryDirectory() as tmp:
        settings = fetch.FetchSettings(
            allow_private_network=True, download_dir=Path(tmp), concurrency=8,
            connect_timeout=1.0, read_timeout=0.3, total_timeout=5.0, retries=1,
            backoff=0.01, max_backoff=0.05)
        start = time.perf_counter()
        results = fetch.fetch_images_sync(urls, settings)
        wall = time.perf_counter() - start
    return wall, sum(r.attempts for r in results.values())


def judge_case(port: int, n: int) -> tuple[float, int]:
    import asyncio

    from core.metrics.settings import JudgeEndpoint

    endpoint = JudgeEndpoint(f"http://127.0.0.1:{port}/v1", "judge", timeout=0.3,
                             backoff=0.01, max_retries=1, concurrency=4)
    async def run() -> int:
        async with judge_client.JudgeClient(endpoint) as client:
            window = asyncio.Semaphore(8)  # as judges.judge_items: 2 × connections

            async def one() -> None:
                async with window:
                    try:  # each item its own messages (an item's repeats share theirs)
                        await client.complete([{"role": "user", "content": "rate this"}])
                    except judge_client.JudgeError:
                        pass

            await asyncio.gather(*(one() for _ in range(n)))
            return client.calls

    start = time.perf_counter()
    calls = asyncio.run(run())
    return time.perf_counter() - start, calls


def measure(name: str, case: Callable[[int, int], tuple[float, int]], n: int, runs: int,
            module: object, constant: str) -> None:
    shipped = getattr(module, constant)
    walls: dict[str, list[float]] = {"on": [], "off": []}
    sent: dict[str, list[int]] = {"on": [], "off": []}
    for _ in range(runs):
        for mode in ("off", "on"):
            setattr(module, constant, shipped if mode == "on" else 10**9)
            with hung_server() as port:
                wall, requests = case(port, n)
            walls[mode].append(wall)
            sent[mode].append(requests)
    setattr(module, constant, shipped)
    on, off = statistics.median(walls["on"]), statistics.median(walls["off"])
    print(f"{name}: {n} requests' worth, median of {runs}")
    print(f"  give-up off (before): {off:7.2f} s, {statistics.median(sent['off']):.0f} sent")
    print(f"  give-up on  (now):    {on:7.2f} s, {statistics.median(sent['on']):.0f} sent")
    print(f"  off / on: {off / on:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--urls", type=int, default=200)
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    measure("image fetch, one hung host", fetch_case, args.urls, args.runs, fetch_hosts,
            "HOST_BREAK_AFTER")
    measure("VLM judge, one hung endpoint", judge_case, args.items, args.runs, judge_client,
            "BREAK_AFTER")


if __name__ == "__main__":
    main()
