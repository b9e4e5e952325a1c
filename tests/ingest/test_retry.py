"""One retry policy (issue 16): backoff, Retry-After in seconds and as an HTTP date, caps —
the same waits for the image fetcher and the VLM judge client."""

from __future__ import annotations

import asyncio
import email.utils
import json

import httpx
import pytest

from core.ingest.fetch import FetchSettings
from core.metrics.judge_client import JudgeClient
from core.metrics.settings import JudgeEndpoint
from core.retry import RetryPolicy, parse_retry_after, retryable_status

NOW = 1_800_000_000.0


def _http_date(offset: float) -> str:
    return email.utils.formatdate(NOW + offset, usegmt=True)


@pytest.mark.parametrize(("value", "expected"), [
    ("120", 120.0), ("1.5", 1.5), (" 7 ", 7.0), ("-3", 0.0), ("", None), (None, None),
    ("soon", None), ("nan", None), (_http_date(90), 90.0), (_http_date(-60), 0.0),
    ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),
])
def test_parse_retry_after_both_forms(value, expected) -> None:
    got = parse_retry_after(value, now=lambda: NOW)
    assert got == (pytest.approx(expected) if expected is not None else None)


def test_backoff_doubles_with_jitter_and_caps() -> None:
    policy = RetryPolicy(retries=5, backoff=0.5, max_backoff=3.0, max_retry_after=10.0)
    top = lambda lo, hi: hi  # noqa: E731 - the upper end of the jitter range
    bottom = lambda lo, hi: lo  # noqa: E731
    assert [policy.delay(n, rng=top) for n in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert [policy.delay(n, rng=bottom) for n in range(1, 4)] == [0.25, 0.5, 1.0]
    assert policy.delay(1, retry_after=4.0, rng=top) == 4.0  # a lower bound…
    assert policy.delay(1, retry_after=3600.0, rng=top) == 10.0  # …capped
    assert policy.delay(4, retry_after=0.1, rng=top) == 3.0  # never shortens the backoff
    assert policy.attempts == 6 and RetryPolicy(retries=-1).attempts == 1
    assert [s for s in (200, 400, 404, 408, 429, 500, 503) if retryable_status(s)] == \
        [408, 429, 500, 503]


def test_fetch_settings_describe_the_same_policy() -> None:
    s = FetchSettings(retries=2, backoff=0.1, max_backoff=1.0, max_retry_after=5.0)
    assert s.retry == RetryPolicy(2, 0.1, 1.0, 5.0)


@pytest.mark.parametrize("header", ["2", _http_date(2)])
def test_judge_client_waits_as_the_policy_says(header: str, monkeypatch) -> None:
    """Retry-After as seconds and as an HTTP date: both become a 2 s wait (previously an
    HTTP date was ignored and seconds replaced the backoff)."""
    monkeypatch.setattr("core.retry.time.time", lambda: NOW)
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) == 1:
            return httpx.Response(429, headers={"Retry-After": header}, text="slow down")
        if len(calls) == 2:
            return httpx.Response(503, text="busy")
        return httpx.Response(200, json={"choices": [{"message": {"content": "ok"}}]})

    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    endpoint = JudgeEndpoint(base_url="http://judge.test/v1", model="m", backoff=0.5,
                             max_retries=3)

    async def main() -> str:
        async with JudgeClient(endpoint, transport=httpx.MockTransport(handler),
                               sleep=sleep) as client:
            return await client.complete([{"role": "user", "content": "hi"}])

    assert asyncio.run(main()) == "ok"
    assert len(calls) == 3
    assert waits[0] == pytest.approx(2.0, abs=0.01)  # Retry-After, a lower bound
    assert 0.5 <= waits[1] <= 1.0  # then the backoff of the second retry, jittered
    assert json.loads(calls[0].content)["model"] == "m"
