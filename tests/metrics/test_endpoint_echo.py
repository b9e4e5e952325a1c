"""A judge or proposal server that echoes the API key back (ADR 214): the key is never
in an error, a stored raw body or an answer."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from core.metrics.judge_client import JudgeClient, JudgeError
from core.metrics.settings import JudgeEndpoint
from core.propose.client import ProposeClient, ProposeEndpoint, ProposeError

KEY = "sk-live-Zx81echoedKEY0042"


def _echo(status: int, body_of: str) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        key = request.headers["authorization"].removeprefix("Bearer ")
        text = body_of.replace("KEY", key)
        return httpx.Response(status, content=text.encode())
    return httpx.MockTransport(handler)


async def _nosleep(_s: float) -> None:
    return None


BODIES = [
    (401, '{"error": "invalid api key KEY"}'),
    (400, '{"error": "bad request from Bearer KEY"}'),
    (200, 'not json; your key is KEY'),
    (200, json.dumps({"choices": [{"message": {"content": "the key was KEY"}}]})),
]


@pytest.mark.parametrize(("status", "body"), BODIES)
def test_a_judge_that_echoes_the_key_never_shows_it(status: int, body: str) -> None:
    ep = JudgeEndpoint("http://judge.test/v1", "m", api_key=KEY, max_retries=0, backoff=0.01)

    async def run() -> str:
        async with JudgeClient(ep, transport=_echo(status, body), sleep=_nosleep) as c:
            try:
                return await c.complete([{"role": "user", "content": "hi"}])
            except JudgeError as exc:
                return f"error: {exc}"

    shown = asyncio.run(run())
    assert KEY not in shown and "***" in shown, shown


@pytest.mark.parametrize(("status", "body"), BODIES)
def test_a_proposal_server_that_echoes_the_key_never_shows_it(status: int, body: str) -> None:
    ep = ProposeEndpoint("http://propose.test/v1", "m", api_key=KEY, attempts=1,
                         backoff=0.01, structured="off")

    async def run() -> str:
        async with ProposeClient(ep, transport=_echo(status, body), sleep=_nosleep) as c:
            try:
                return (await c.complete([{"role": "user", "content": "hi"}], "x", {})).text
            except ProposeError as exc:
                return f"error: {exc} raw: {exc.raw}"

    shown = asyncio.run(run())
    assert KEY not in shown and "***" in shown, shown


ODD = [
    "[" * 200_000 + "]" * 200_000,  # nested past Python's recursion limit
    '{"choices": ' + "[" * 100_000 + "]" * 100_000 + "}",
    '{"choices": [{"message": {"content": NaN}}]}',
    '{"choices": [{"message": {"content": ["a", 1, null]}}], "usage": {"cost": NaN}}',
    '{"choices": {"0": 1}}', "null", '"just a string"', "\xff\xfe garbage",
]


@pytest.mark.parametrize("body", ODD, ids=range(len(ODD)))
def test_odd_json_from_a_judge_is_a_judge_error(body: str) -> None:
    ep = JudgeEndpoint("http://judge.test/v1", "m", api_key=KEY, max_retries=0, backoff=0.01)

    async def run() -> str:
        async with JudgeClient(ep, transport=_echo(200, body), sleep=_nosleep) as c:
            try:
                return await c.complete([{"role": "user", "content": "hi"}])
            except JudgeError as exc:
                return f"error: {exc}"

    assert asyncio.run(run()).startswith("error: ")


@pytest.mark.parametrize("body", ODD, ids=range(len(ODD)))
def test_odd_json_from_a_proposal_server_is_a_propose_error(body: str) -> None:
    ep = ProposeEndpoint("http://propose.test/v1", "m", api_key=KEY, attempts=1,
                         backoff=0.01, structured="off")

    async def run() -> str:
        async with ProposeClient(ep, transport=_echo(200, body), sleep=_nosleep) as c:
            try:
                return (await c.complete([{"role": "user", "content": "hi"}], "x", {})).text
            except ProposeError as exc:
                return f"error: {exc}"

    assert asyncio.run(run()).startswith("error: ")


def test_a_gzip_bomb_from_an_endpoint_stops_at_the_cap_in_bounded_memory() -> None:
    import gzip
    import tracemalloc

    bomb = gzip.compress(b"\0" * 2**28, 9)  # 256 MB of zeros in ~260 KB

    class Chunks(httpx.AsyncByteStream):
        async def __aiter__(self):  # type: ignore[no-untyped-def]
            for i in range(0, len(bomb), 65536):
                yield bomb[i:i + 65536]

    transport = httpx.MockTransport(lambda r: httpx.Response(
        200, headers={"Content-Encoding": "gzip"}, stream=Chunks()))
    ep = ProposeEndpoint("http://propose.test/v1", "m", attempts=1, structured="off")

    async def run() -> str:
        async with ProposeClient(ep, transport=transport, sleep=_nosleep) as c:
            try:
                return (await c.complete([{"role": "user", "content": "hi"}], "x", {})).text
            except ProposeError as exc:
                return f"error: {exc}"

    tracemalloc.start()
    try:
        shown = asyncio.run(run())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "too large" in shown, shown
    assert peak < 24 * 2**20, f"peak {peak / 2**20:.0f} MB"
