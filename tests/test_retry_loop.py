"""The one retry loop (core.retry.retry_async) on its own, and the two HTTP clients that
use it: which failures are retried, how long it waits, when it stops."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from core.http_pools import DeadlineExceeded, deadline
from core.jobs import Cancelled
from core.metrics.judge_client import JudgeClient, JudgeError
from core.metrics.settings import JudgeEndpoint
from core.propose.client import EndpointError, ProposeClient, ProposeEndpoint, ProposeError
from core.retry import GaveUp, RetryPolicy, Transient, check_status, retry_async

OK_BODY = {"choices": [{"message": {"content": "ok"}}]}


class Script:
    """An attempt function that fails as told, then returns ``"done"``; records waits."""

    def __init__(self, failures: list[BaseException]) -> None:
        self.failures = list(failures)
        self.calls: list[int] = []
        self.waits: list[float] = []

    async def attempt(self, n: int) -> str:
        self.calls.append(n)
        if self.failures:
            raise self.failures.pop(0)
        return "done"

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def test_transient_failures_are_retried_with_growing_waits() -> None:
    s = Script([Transient("a"), Transient("b"), Transient("c")])
    policy = RetryPolicy(retries=3, backoff=1.0, max_backoff=100.0)
    assert run(retry_async(s.attempt, policy, sleep=s.sleep)) == "done"
    assert s.calls == [1, 2, 3, 4]
    for wait, full in zip(s.waits, [1.0, 2.0, 4.0], strict=True):  # jittered to [full/2, full]
        assert full / 2 <= wait <= full


def test_any_other_failure_ends_the_loop_at_once() -> None:
    s = Script([ValueError("refused")])
    with pytest.raises(ValueError, match="refused"):
        run(retry_async(s.attempt, RetryPolicy(retries=5), sleep=s.sleep))
    assert s.calls == [1] and s.waits == []


def test_gives_up_after_the_policy_s_attempts_with_the_last_reason() -> None:
    s = Script([Transient(f"failure {k}") for k in range(10)])
    with pytest.raises(GaveUp) as info:
        run(retry_async(s.attempt, RetryPolicy(retries=2, backoff=0.01), sleep=s.sleep))
    assert s.calls == [1, 2, 3] and len(s.waits) == 2
    assert info.value.attempts == 3 and info.value.reason == "failure 2"
    assert str(info.value) == "failure 2 (gave up after 3 attempts)"
    s = Script([Transient("once")])
    with pytest.raises(GaveUp) as info:
        run(retry_async(s.attempt, RetryPolicy(retries=0), sleep=s.sleep))
    assert s.calls == [1] and s.waits == []
    assert str(info.value) == "once (gave up after 1 attempt)"  # singular for one


def test_retry_after_is_a_lower_bound_with_a_cap() -> None:
    policy = RetryPolicy(retries=2, backoff=0.1, max_backoff=0.2, max_retry_after=5.0)
    s = Script([Transient("busy", retry_after=3.0), Transient("busy", retry_after=3600.0)])
    assert run(retry_async(s.attempt, policy, sleep=s.sleep)) == "done"
    assert s.waits[0] == pytest.approx(3.0)  # honoured
    assert s.waits[1] == pytest.approx(5.0)  # capped: a server cannot park the job


def test_total_time_bound_stops_before_a_wait_that_would_pass_it() -> None:
    now = [0.0]
    s = Script([Transient("slow")] * 10)

    async def sleep(seconds: float) -> None:
        s.waits.append(seconds)
        now[0] += seconds

    policy = RetryPolicy(retries=10, backoff=1.0, max_backoff=1.0, total=2.5)
    with pytest.raises(GaveUp, match=r"no time left to retry within 2\.5 s") as info:
        run(retry_async(s.attempt, policy, sleep=sleep, clock=lambda: now[0]))
    assert now[0] <= 2.5 and sum(s.waits) <= 2.5
    assert info.value.attempts == len(s.calls) < 11


def test_cancel_stops_before_the_next_attempt() -> None:
    s = Script([Transient("a")] * 5)
    flag = [False]

    async def sleep(seconds: float) -> None:
        flag[0] = True  # the user pressed Cancel during the wait

    with pytest.raises(Cancelled):
        run(retry_async(s.attempt, RetryPolicy(retries=5), sleep=sleep,
                        cancelled=lambda: flag[0]))
    assert s.calls == [1]


def test_cancelling_the_task_ends_a_long_wait_at_once() -> None:
    s = Script([Transient("a")] * 5)
    policy = RetryPolicy(retries=5, backoff=600.0, max_backoff=600.0)

    async def main() -> float:
        task = asyncio.ensure_future(retry_async(s.attempt, policy))
        await asyncio.sleep(0.05)
        started = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - started

    assert run(main()) < 5.0  # not the 300–600 s wait
    assert s.calls == [1]


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 599])
def test_check_status_retries_408_429_and_5xx(status: int) -> None:
    with pytest.raises(Transient) as info:
        check_status(status, "7", "busy")
    assert info.value.retry_after == 7.0 and str(info.value) == f"HTTP {status}: 'busy'"


@pytest.mark.parametrize("status", [200, 204, 301, 400, 401, 403, 404, 409, 413, 422, 451])
def test_check_status_leaves_other_statuses_to_the_caller(status: int) -> None:
    check_status(status, "7", "no")


# -- the two clients over the loop -------------------------------------------------------------
def _complete(kind: str, handler, waits: list[float],  # type: ignore[no-untyped-def]
              timeout: float = 120.0, cap: int = 8 * 2**20):
    async def sleep(seconds: float) -> None:  # real waits (of 10 ms): the 429 gate needs them
        waits.append(seconds)
        await asyncio.sleep(seconds)

    transport = httpx.MockTransport(handler)

    async def main() -> str:
        if kind == "judge":
            ep = JudgeEndpoint(base_url="http://judge.test/v1", model="m", backoff=0.01,
                               max_retries=3, timeout=timeout)
            async with JudgeClient(ep, transport=transport, sleep=sleep,
                                   max_response_bytes=cap) as judge:
                return await judge.complete([{"role": "user", "content": "hi"}])
        pep = ProposeEndpoint(base_url="http://vlm.test/v1", model="m", backoff=0.01,
                              attempts=4, structured="off", timeout=timeout,
                              max_response_bytes=cap)
        async with ProposeClient(pep, transport=transport, sleep=sleep) as proposer:
            return (await proposer.complete([{"role": "user", "content": "hi"}], "n", {})).text

    return asyncio.run(main())


CLIENTS = ["judge", "propose"]
REFUSED = {"judge": JudgeError, "propose": ProposeError}


@pytest.mark.parametrize("kind", CLIENTS)
@pytest.mark.parametrize("failure", [408, 429, 500, 503, "connect", "timeout", "garbage"])
def test_clients_retry_transient_failures(kind: str, failure: object) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) < 3:
            if failure == "connect":
                raise httpx.ConnectError("refused", request=request)
            if failure == "timeout":
                raise httpx.ReadTimeout("slow", request=request)
            if failure == "garbage":
                return httpx.Response(200, text="<html>not json</html>")
            assert isinstance(failure, int)
            return httpx.Response(failure, text="busy")
        return httpx.Response(200, json=OK_BODY)

    waits: list[float] = []
    assert _complete(kind, handler, waits) == "ok"
    assert len(calls) == 3
    # two backoff waits; the proposal client also holds every request at its 429 gate
    assert len(waits) == 2 or (kind, failure) == ("propose", 429) and len(waits) >= 2


@pytest.mark.parametrize("kind", CLIENTS)
@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 413, 422])
def test_clients_never_retry_other_4xx(kind: str, status: int) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(status, text="no")

    waits: list[float] = []
    with pytest.raises(REFUSED[kind], match=f"HTTP {status}") as info:
        _complete(kind, handler, waits)
    assert len(calls) == 1 and waits == []
    if kind == "propose":  # a wrong key, model or path stops the run
        assert isinstance(info.value, EndpointError) == (status in (401, 403, 404))


@pytest.mark.parametrize("kind", CLIENTS)
def test_clients_give_up_with_the_last_reason(kind: str) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(503, text="down for maintenance")

    waits: list[float] = []
    with pytest.raises(REFUSED[kind], match=r"HTTP 503: 'down for maintenance' \(gave up "
                                            r"after 4 attempts\)"):
        _complete(kind, handler, waits)
    assert len(calls) == 4 and len(waits) == 3


# -- the overall deadline of one request (ADR 143) --------------------------------------------
class Trickle(httpx.AsyncByteStream):
    """A body of ``n`` spaces, one every ``every`` seconds (each read is quick: httpx's
    read timeout never fires)."""

    def __init__(self, n: int = 100, every: float = 0.05) -> None:
        self.n, self.every = n, every

    async def __aiter__(self):  # type: ignore[no-untyped-def]
        for _ in range(self.n):
            await asyncio.sleep(self.every)
            yield b" "


def test_deadline_turns_its_own_expiry_into_a_transient() -> None:
    async def late() -> None:
        async with deadline(0.05):
            await asyncio.sleep(5)

    started = time.monotonic()
    with pytest.raises(DeadlineExceeded, match=r"^timed out: no complete response within "
                                                r"0\.05 s$") as info:
        run(late())
    assert isinstance(info.value, Transient) and time.monotonic() - started < 2.0


def test_deadline_counts_from_the_given_start_and_lets_other_timeouts_through() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        with pytest.raises(DeadlineExceeded):  # the time before the block counts
            async with deadline(0.05, start=loop.time() - 1.0):
                await asyncio.sleep(0)
        with pytest.raises(TimeoutError) as info:  # not the deadline's: left alone
            async with deadline(60):
                raise TimeoutError("someone else's")
        assert not isinstance(info.value, DeadlineExceeded)
        async with deadline(60):  # in time: nothing raised
            await asyncio.sleep(0)

    run(main())


@pytest.mark.parametrize("kind", CLIENTS)
def test_clients_retry_a_request_past_its_deadline(kind: str) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 1:  # 5 s of trickle against a 0.5 s deadline
            return httpx.Response(200, stream=Trickle(100, 0.05))
        return httpx.Response(200, json=OK_BODY)

    waits: list[float] = []
    started = time.monotonic()
    assert _complete(kind, handler, waits, timeout=0.5) == "ok"
    assert len(calls) == 2 and len(waits) == 1 and time.monotonic() - started < 4.0


@pytest.mark.parametrize("kind", CLIENTS)
def test_clients_give_up_on_a_trickle_naming_the_deadline(kind: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=Trickle(100, 0.05))

    with pytest.raises(REFUSED[kind], match=r"timed out: no complete response within 0\.3 s "
                                            r"\(gave up after 4 attempts\)"):
        _complete(kind, handler, [], timeout=0.3)


@pytest.mark.parametrize("kind", CLIENTS)
@pytest.mark.parametrize("declared", [True, False])
def test_clients_never_retry_a_body_over_the_cap(kind: str, declared: bool) -> None:
    calls: list[int] = []
    body = b"x" * 5000

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if declared:
            return httpx.Response(200, content=body)
        return httpx.Response(200, stream=httpx.ByteStream(body))  # no Content-Length

    with pytest.raises(REFUSED[kind], match="the response is too large") as info:
        _complete(kind, handler, [], cap=1000)
    assert len(calls) == 1
    if kind == "judge":  # names the endpoint
        assert str(info.value).startswith("m at http://judge.test/v1: ")


@pytest.mark.parametrize("kind", CLIENTS)
def test_time_waiting_for_a_free_slot_is_not_counted(kind: str) -> None:
    """Three requests through one slot, each 0.3 s against a 0.5 s deadline: a queued
    request has not been sent, so none times out (no retry)."""
    calls: list[int] = []

    async def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        await asyncio.sleep(0.3)
        return httpx.Response(200, json=OK_BODY)

    async def main() -> list[str]:
        transport = httpx.MockTransport(handler)
        messages = [{"role": "user", "content": "hi"}]
        if kind == "judge":
            ep = JudgeEndpoint(base_url="http://judge.test/v1", model="m", timeout=0.5,
                               max_retries=0, concurrency=1)
            async with JudgeClient(ep, transport=transport) as judge:
                return list(await asyncio.gather(*(judge.complete(messages)
                                                   for _ in range(3))))
        pep = ProposeEndpoint(base_url="http://vlm.test/v1", model="m", timeout=0.5,
                              attempts=1, structured="off", concurrency=1)
        async with ProposeClient(pep, transport=transport) as proposer:
            answers = await asyncio.gather(*(proposer.complete(messages, "n", {})
                                             for _ in range(3)))
            return [a.text for a in answers]

    assert run(main()) == ["ok"] * 3 and len(calls) == 3
