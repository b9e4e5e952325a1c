"""The one httpx set-up shared by the image fetch, the VLM judges and the proposal client:
pool sizes, request slots, the absent-sniffio shortcut, and that each client uses it."""

from __future__ import annotations

import asyncio
import importlib.util
import sys

import httpx
import pytest

from core.http_pools import PER_POOL, ClientPools, pool_sizes, quiet_missing_sniffio


@pytest.mark.parametrize(
    ("concurrency", "sizes"),
    [(1, [1]), (8, [8]), (9, [5, 4]), (20, [7, 7, 6]), (32, [8, 8, 8, 8]), (0, [1])],
)
def test_pool_sizes(concurrency: int, sizes: list[int]) -> None:
    assert pool_sizes(concurrency) == sizes
    assert all(size <= PER_POOL for size in pool_sizes(concurrency))


def test_slots_bound_requests_and_spread_them_over_the_pools() -> None:
    in_flight = max_in_flight = 0
    used: set[int] = set()

    async def main() -> None:
        nonlocal in_flight, max_in_flight

        async def handler(request: httpx.Request) -> httpx.Response:
            nonlocal in_flight, max_in_flight
            in_flight += 1
            max_in_flight = max(max_in_flight, in_flight)
            await asyncio.sleep(0.01)
            in_flight -= 1
            return httpx.Response(200, text="ok")

        made: list[httpx.Limits] = []

        def make(limits: httpx.Limits) -> httpx.AsyncClient:
            made.append(limits)
            return httpx.AsyncClient(transport=httpx.MockTransport(handler), limits=limits)

        pools = ClientPools(20, make)
        assert [lim.max_connections for lim in made] == [7, 7, 6]
        assert [lim.max_keepalive_connections for lim in made] == [7, 7, 6]

        async def one(k: int) -> None:
            async with pools.slot() as client:
                used.add(pools.clients.index(client))
                assert (await client.get(f"http://x/{k}")).text == "ok"

        await asyncio.gather(*(one(k) for k in range(100)))
        clients = list(pools.clients)
        await pools.aclose()
        await pools.aclose()  # twice is harmless
        assert all(c.is_closed for c in clients)

    asyncio.run(main())
    assert max_in_flight == 20
    assert used == {0, 1, 2}


def test_a_failing_request_gives_its_slot_back() -> None:
    async def main() -> int:
        async def handler(request: httpx.Request) -> httpx.Response:
            raise httpx.ConnectError("refused", request=request)

        pools = ClientPools(
            2, lambda limits: httpx.AsyncClient(transport=httpx.MockTransport(handler))
        )
        failures = 0
        for _ in range(5):  # more failures than slots: each slot came back
            with pytest.raises(httpx.ConnectError):
                async with pools.slot() as client:
                    await client.get("http://x/")
            failures += 1
        await pools.aclose()
        return failures

    assert asyncio.run(main()) == 5


def test_absent_sniffio_is_marked_absent_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "sniffio", raising=False)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    quiet_missing_sniffio()
    assert "sniffio" in sys.modules and sys.modules["sniffio"] is None
    with pytest.raises(ImportError):  # what httpcore's own try/except sees
        import sniffio  # noqa: F401


def test_an_installed_sniffio_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "sniffio", raising=False)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object())
    quiet_missing_sniffio()
    assert "sniffio" not in sys.modules


def _spy(monkeypatch: pytest.MonkeyPatch, module: object) -> list[ClientPools]:
    """Record every ClientPools ``module`` builds (it must build them, not its own)."""
    made: list[ClientPools] = []

    class Spy(ClientPools):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            made.append(self)

    monkeypatch.setattr(module, "ClientPools", Spy)
    return made


def test_fetch_judges_and_proposals_use_the_shared_set_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from core.ingest import fetch
    from core.ingest.netguard import GuardedTransport
    from core.metrics import judge_client
    from core.metrics.settings import JudgeEndpoint
    from core.propose import client as propose_client

    made = {m.__name__: _spy(monkeypatch, m) for m in (fetch, judge_client, propose_client)}

    pools = fetch.make_clients(fetch.FetchSettings(concurrency=20))
    # the network guard stays on every pool, with that pool's limits
    assert len(pools.clients) == 3
    assert all(isinstance(c._transport, GuardedTransport) for c in pools.clients)
    asyncio.run(pools.aclose())

    async def judges() -> int:
        endpoint = JudgeEndpoint(base_url="http://127.0.0.1:9/v1", model="m", concurrency=12)
        async with judge_client.JudgeClient(endpoint) as client:
            assert client._pools is not None
            return len(client._pools.clients)

    async def proposals() -> int:
        endpoint = propose_client.ProposeEndpoint("http://127.0.0.1:9/v1", "m", concurrency=17)
        async with propose_client.ProposeClient(endpoint) as client:
            assert client._pools is not None
            return client._pools.concurrency * 10 + len(client._pools.clients)

    assert asyncio.run(judges()) == 2
    assert asyncio.run(proposals()) == 17 * 10 + 3
    assert [len(v) for v in made.values()] == [1, 1, 1]
