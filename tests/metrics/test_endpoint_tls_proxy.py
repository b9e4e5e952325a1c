"""Network sweep, part two (ADR 218), judge and proposal endpoints: a TLS certificate
that cannot be verified, environment proxies, hostile ``Retry-After`` values."""

from __future__ import annotations

import asyncio
import email.utils
import json
import ssl
import threading
import time
import types
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.metrics.judge_client import JudgeClient, JudgeError, JudgeUnavailable
from core.metrics.settings import JudgeEndpoint
from core.propose import client as propose_client
from core.propose.client import EndpointError, ProposeClient, ProposeEndpoint, ProposeError

pytestmark = pytest.mark.timeout(60)
ANSWER = {"choices": [{"message": {"content": "ok"}}]}
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
              "all_proxy", "NO_PROXY", "no_proxy")


class ChatServer:
    """Answers every request (a POST, or a proxy's absolute-form POST) with a chat
    completion and records its request line; https when given a ``tls`` context."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.seen: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                server.seen.append(f"{self.command} {self.path}")
                body = json.dumps(ANSWER).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _ask(kind: str, base_url: str, waits: list[float] | None = None) -> str:
    async def sleep(seconds: float) -> None:
        if waits is not None:
            waits.append(seconds)

    async def main() -> str:
        if kind == "judge":
            ep = JudgeEndpoint(base_url=base_url, model="m", backoff=0.01, max_retries=3)
            async with JudgeClient(ep, sleep=sleep) as judge:
                return await judge.complete([{"role": "user", "content": "hi"}])
        pep = ProposeEndpoint(base_url=base_url, model="m", backoff=0.01, attempts=4,
                              structured="off")
        async with ProposeClient(pep, sleep=sleep) as proposer:
            return (await proposer.complete([{"role": "user", "content": "hi"}], "n", {})).text

    return asyncio.run(main())


# -- TLS ------------------------------------------------------------------------------------
@pytest.fixture
def ca(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    pytest.importorskip("cryptography")
    from tls_certs import TestCA

    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    authority = TestCA(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(authority.pem))
    return authority


@pytest.mark.parametrize("kind", ["judge", "propose"])
@pytest.mark.parametrize(("cert", "why"), [
    (dict(hosts=["127.0.0.1"]), None),  # the control: a good certificate is accepted
    (dict(hosts=["127.0.0.1"], self_signed=True), "self-signed certificate"),
    (dict(hosts=["127.0.0.1"], expired=True), "certificate has expired"),
    (dict(hosts=["judge.example"]), "IP address mismatch"),
])
def test_an_endpoint_whose_certificate_cannot_be_verified_is_named_and_not_retried(
        ca, kind: str, cert: dict, why: str | None) -> None:
    server = ChatServer(tls=ca.server(**cert))
    waits: list[float] = []
    try:
        base = server.url.replace("https://", "https://alice:pw@") + "/v1"
        if why is None:
            assert _ask(kind, base, waits) == "ok"
            return
        error = {"judge": JudgeUnavailable, "propose": EndpointError}[kind]
        with pytest.raises(error) as info:
            _ask(kind, base, waits)
    finally:
        server.close()
    message = str(info.value)
    assert f"cannot reach https://***@127.0.0.1:{server.port}/v1: the server's TLS " \
           f"certificate could not be verified ({why}" in message, message
    assert "pw" not in message.replace("https", "")
    assert waits == [] and server.seen == []  # one handshake, no retry, nothing sent


@pytest.mark.parametrize("kind", ["judge", "propose"])
def test_plain_http_behind_an_https_endpoint_url_says_the_handshake_failed(kind: str) -> None:
    server = ChatServer()
    try:
        with pytest.raises((JudgeError, ProposeError)) as info:
            _ask(kind, server.url.replace("http://", "https://") + "/v1")
    finally:
        server.close()
    assert "the TLS handshake failed (wrong version number; is it an https server?)" \
        in str(info.value), str(info.value)


# -- proxies from the environment ----------------------------------------------------------------
@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    """A fake proxy (it answers every forwarded request itself) named by every variable."""
    fake = ChatServer()
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    for name in PROXY_VARS[:6]:
        monkeypatch.setenv(name, fake.url)
    try:
        yield fake
    finally:
        fake.close()


@pytest.mark.parametrize("kind", ["judge", "propose"])
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_an_endpoint_on_this_machine_is_reached_directly_whatever_the_proxy(
        proxy: ChatServer, kind: str, host: str) -> None:
    server = ChatServer()
    try:
        assert _ask(kind, f"http://{host}:{server.port}/v1") == "ok"
    finally:
        server.close()
    assert server.seen == ["POST /v1/chat/completions"]
    assert proxy.seen == []  # the prompt, images and key never went to the proxy


@pytest.mark.parametrize("kind", ["judge", "propose"])
def test_other_endpoints_go_through_the_user_s_proxy(proxy: ChatServer, kind: str) -> None:
    assert _ask(kind, "http://vlm.example/v1") == "ok"
    assert proxy.seen == ["POST http://vlm.example/v1/chat/completions"]


# -- Retry-After ------------------------------------------------------------------------------
NOW = 1_800_000_000.0
HOSTILE = ["2", email.utils.formatdate(NOW + 2, usegmt=True), "-5", "1e12", "inf", "1e400",
           "soon", "Fri, 31 Dec 9999 23:59:59 GMT", "", "nan"]
CAP = {"judge": 30.0, "propose": 120.0}


def _complete_always(kind: str, status: int, retry_after: str,
                     monkeypatch: pytest.MonkeyPatch) -> tuple[Exception, list[float]]:
    """Ask an endpoint that answers ``status`` with ``retry_after`` for ever, on a fake
    clock: (the error, the time from each request to the next)."""
    monkeypatch.setattr("core.retry.time.time", lambda: NOW)
    clock = [0.0]
    monkeypatch.setattr(propose_client, "time",
                        types.SimpleNamespace(monotonic=lambda: clock[0]))
    waits: list[float] = []
    sent: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        clock[0] += seconds

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(clock[0])
        return httpx.Response(status, headers={"Retry-After": retry_after}, text="busy")

    async def main() -> Any:
        transport = httpx.MockTransport(handler)
        if kind == "judge":
            ep = JudgeEndpoint(base_url="http://judge.test/v1", model="m", backoff=0.01,
                               max_retries=3)
            async with JudgeClient(ep, transport=transport, sleep=sleep) as judge:
                return await judge.complete([{"role": "user", "content": "hi"}])
        pep = ProposeEndpoint(base_url="http://vlm.test/v1", model="m", backoff=0.01,
                              attempts=4, structured="off")
        async with ProposeClient(pep, transport=transport, sleep=sleep) as proposer:
            return await proposer.complete([{"role": "user", "content": "hi"}], "n", {})

    with pytest.raises((JudgeError, ProposeError)) as info:
        asyncio.run(main())
    assert waits  # it did wait (on the fake clock)
    return info.value, [b - a for a, b in zip(sent, sent[1:], strict=False)]


@pytest.mark.parametrize("kind", ["judge", "propose"])
@pytest.mark.parametrize("status", [429, 503])
@pytest.mark.parametrize("retry_after", HOSTILE)
def test_hostile_retry_after_is_honoured_up_to_a_cap_then_the_request_gives_up(
        kind: str, status: int, retry_after: str, monkeypatch: pytest.MonkeyPatch) -> None:
    error, gaps = _complete_always(kind, status, retry_after, monkeypatch)
    assert len(gaps) == 3, gaps  # four requests, then a failure that says why
    assert f"HTTP {status}" in str(error) and "gave up after 4 attempts" in str(error), error
    assert all(0 <= gap <= CAP[kind] + 1e-6 for gap in gaps), gaps  # never hours
    if retry_after in ("2", HOSTILE[1]):  # honoured as a lower bound
        assert all(gap >= 2 - 1e-6 for gap in gaps), gaps
    if retry_after in ("1e12", "inf", "1e400", HOSTILE[7]):  # capped
        assert gaps == [pytest.approx(CAP[kind], abs=0.01)] * 3


@pytest.mark.parametrize("kind", ["judge", "propose"])
def test_cancel_ends_a_capped_retry_after_wait_at_once(kind: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": "1e12"}, text="busy")

    async def main() -> float:
        transport = httpx.MockTransport(handler)
        if kind == "judge":
            ep = JudgeEndpoint(base_url="http://judge.test/v1", model="m", max_retries=3)
            client: Any = JudgeClient(ep, transport=transport)
            call = lambda c: c.complete([{"role": "user", "content": "hi"}])  # noqa: E731
        else:
            pep = ProposeEndpoint(base_url="http://vlm.test/v1", model="m", attempts=4,
                                  structured="off")
            client = ProposeClient(pep, transport=transport)
            call = lambda c: c.complete([{"role": "user", "content": "hi"}], "n", {})  # noqa: E731
        async with client as c:
            task = asyncio.create_task(call(c))
            await asyncio.sleep(0.3)  # the first answer came; the task waits (30–120 s)
            assert not task.done()
            start = time.monotonic()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return time.monotonic() - start

    assert asyncio.run(main()) < 1.0
