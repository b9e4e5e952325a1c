"""OpenAI-compatible endpoints that answer slowly byte by byte (slowloris) or with a body
far too big: a request must end within its timeout as a whole (not per read) and read
at most a bounded body, for the proposal client and the VLM-judge client alike."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from core.metrics.judge_client import JudgeClient, JudgeError
from core.metrics.settings import JudgeEndpoint
from core.propose.client import ProposeClient, ProposeEndpoint, ProposeError

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _read_request(reader: asyncio.StreamReader) -> None:
    length = 0
    while (line := await reader.readline()) not in (b"\r\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    await reader.readexactly(length)


async def _trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Headers at once, then one byte of a 400-byte body every 0.1 s (40 s in all)."""
    try:
        await _read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 400\r\n\r\n")
        for _ in range(400):
            writer.write(b" ")
            await writer.drain()
            await asyncio.sleep(0.1)
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def _flood(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A chunked body of 48 MiB (no Content-Length to refuse up front)."""
    try:
        await _read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Connection: close\r\n\r\n")
        chunk = b"x" * (1 << 20)
        for _ in range(48):
            writer.write(chunk)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def _serve(handler: Handler, ask: Callable[[str], Awaitable[str]]) -> str:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"
    try:
        return await asyncio.wait_for(ask(url), 6)
    except TimeoutError:
        return "still reading after 6 s"
    finally:
        server.close()


async def _propose(url: str) -> str:
    endpoint = ProposeEndpoint(base_url=url, model="m", timeout=1.0, attempts=1,
                               max_response_bytes=1 << 20)
    async with ProposeClient(endpoint) as client:
        try:
            await client.complete([{"role": "user", "content": "hi"}], "quality",
                                  {"type": "object"})
        except ProposeError as exc:
            return str(exc)
    return "answered"


async def _judge(url: str) -> str:
    endpoint = JudgeEndpoint(base_url=url, model="j", timeout=1.0, max_retries=0)
    client = JudgeClient(endpoint)
    async with client:
        try:
            await client.complete([{"role": "user", "content": "hi"}])
        except JudgeError as exc:
            return str(exc)
    return "answered"


def _run(handler: Handler, ask: Callable[[str], Awaitable[str]]) -> Any:
    return asyncio.run(_serve(handler, ask))


def test_a_flooding_endpoint_is_cut_at_the_cap_for_proposals() -> None:
    assert "too large" in _run(_flood, _propose)


def test_a_trickling_endpoint_times_out_for_proposals() -> None:
    assert "timed out: no complete response within 1 s" in _run(_trickle, _propose)


def test_a_trickling_endpoint_times_out_for_judges() -> None:
    assert "timed out: no complete response within 1 s" in _run(_trickle, _judge)


def test_a_flooding_endpoint_is_cut_at_a_cap_for_judges() -> None:
    message = _run(_flood, _judge)
    assert "too large" in message and message.startswith("j at http://127.0.0.1:")
