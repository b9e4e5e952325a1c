"""A proposal request that gives up names the endpoint it gave up on (its URL shown
without secrets), as a judge's names its model (ADR 224)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from core.propose.client import BREAK_AFTER, EndpointError, ProposeClient, ProposeEndpoint

URL = "http://alice:s3cret@vlm.test/v1"
SHOWN = "http://***@vlm.test/v1"


async def _nothing(_seconds: float) -> None:
    return None


def _ask(handler, requests: int = 1) -> list[BaseException]:  # type: ignore[no-untyped-def]
    """Send ``requests`` requests (one post each) to ``handler``; what each raised."""
    ep = ProposeEndpoint(base_url=URL, model="qwen-vl", backoff=0.01, attempts=4,
                         structured="off")

    async def main() -> list[BaseException]:
        errors: list[BaseException] = []
        async with ProposeClient(ep, transport=httpx.MockTransport(handler),
                                 sleep=_nothing) as client:
            for post in range(requests):
                try:
                    await client.complete([{"role": "user", "content": "hi"}], "n", {},
                                          group=post)
                except Exception as exc:  # noqa: BLE001 - collected for the asserts
                    errors.append(exc)
        return errors

    return asyncio.run(main())


def test_a_rate_limited_request_that_gives_up_names_the_endpoint() -> None:
    (error,) = _ask(lambda request: httpx.Response(429, text="slow down"))
    message = str(error)
    assert message.startswith(f"qwen-vl at {SHOWN}: rate limited (HTTP 429): "), message
    assert message.endswith("(gave up after 4 attempts)"), message
    assert "s3cret" not in message


def test_a_server_error_that_stops_the_run_names_the_endpoint() -> None:
    errors = _ask(lambda request: httpx.Response(503, text="down"), requests=BREAK_AFTER)
    assert isinstance(errors[-1], EndpointError)
    assert f"(last: qwen-vl at {SHOWN}: HTTP 503: 'down' (gave up after 4 attempts))" \
        in str(errors[-1]), errors[-1]
    assert all(SHOWN in str(e) and "s3cret" not in str(e) for e in errors)


@pytest.mark.parametrize("failure", [httpx.ConnectError, httpx.ReadError])
def test_a_connection_failure_names_the_endpoint_once(failure: type[Exception]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise failure("refused", request=request)

    (error,) = _ask(handler)
    message = str(error)
    assert message.startswith(f"qwen-vl: cannot reach {SHOWN}"), message
    assert message.count("vlm.test") == 1 and "s3cret" not in message


@pytest.mark.parametrize(("status", "words"), [(401, "the endpoint refused the request"),
                                               (422, "refused: HTTP 422")])
def test_a_refused_request_names_the_endpoint(status: int, words: str) -> None:
    (error,) = _ask(lambda request: httpx.Response(status, text="no"))
    assert str(error).startswith(f"qwen-vl at {SHOWN}: {words}"), error
    assert "s3cret" not in str(error)


def test_a_response_too_large_names_the_endpoint() -> None:
    ep_cap = 1 << 10  # the endpoint's cap, passed below

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"x" * (4 * ep_cap))

    ep = ProposeEndpoint(base_url=URL, model="qwen-vl", backoff=0.01, attempts=1,
                         structured="off", max_response_bytes=ep_cap)

    async def main() -> BaseException:
        async with ProposeClient(ep, transport=httpx.MockTransport(handler),
                                 sleep=_nothing) as client:
            with pytest.raises(Exception) as caught:  # noqa: PT011 - the message is checked
                await client.complete([{"role": "user", "content": "hi"}], "n", {})
            return caught.value

    message = str(asyncio.run(main()))
    assert message.startswith(f"qwen-vl at {SHOWN}: ") and "too large" in message, message
