"""OpenAI-compatible chat-completions client for proposals (``httpx.AsyncClient``).

One client per run and endpoint: at most ``concurrency`` requests in flight (one
connection each, kept alive), structured outputs (``response_format`` with the JSON
schema) where the server takes them, retries through :func:`core.retry.retry_async`
(the one loop and policy, ADRs 019 and 143), and a shared pause after a 429 so a rate
limit is honoured by every request, not only the one that met it.  Each request must
end within the endpoint's ``timeout`` as a whole (:func:`core.http_pools.deadline`: a
server trickling a byte at a time cannot hold it), and its body is read up to a size
cap (:func:`core.http_pools.read_capped`).

Outcomes: an :class:`Answer` (the assistant text, tokens, cost), a
:class:`ProposeError` (this request failed, after retries where they make sense; the
run goes on), or a :class:`EndpointError` (the endpoint refuses everything: a wrong
key, an unknown model or path; the run stops and says so).
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from core.http_pools import (
    LOOPBACK_DIRECT,
    CertificateError,
    ClientPools,
    ResponseTooLarge,
    deadline,
    read_capped,
    shown_url,
    transport_failures,
)
from core.retry import GaveUp, RetryPolicy, Transient, check_status, parse_retry_after, retry_async

if TYPE_CHECKING:  # httpx is imported on use (start-up need not pay for it)
    import httpx

STRUCTURED_MODES = ("auto", "json_schema", "json_object", "off")
#: requests in a row that give up after their retries before a run stops (ADR 192)
BREAK_AFTER = 3
FATAL_STATUSES = (401, 403, 404)


#: The longest a request may take, and the most tokens an answer may be asked for.
MAX_TIMEOUT_S = 3600.0
MAX_TOKENS = 1_000_000


@dataclass(frozen=True)
class ProposeEndpoint:
    """Where and how proposals are asked for (the key is never stored in a project)."""

    base_url: str
    model: str
    api_key: str | None = None
    concurrency: int = 8
    timeout: float = 120.0
    max_tokens: int = 1024
    temperature: float | None = 0.0
    structured: str = "auto"
    #: price per million prompt / completion tokens, when the server reports no cost
    price_in: float | None = None
    price_out: float | None = None
    attempts: int = 4
    backoff: float = 0.5
    max_response_bytes: int = 8 * 2**20

    def __post_init__(self) -> None:
        if not self.base_url.strip():
            raise ValueError("no endpoint URL: give the server's base URL, e.g. "
                             "http://localhost:8000/v1")
        if not self.base_url.strip().lower().startswith(("http://", "https://")):
            raise ValueError(f"the endpoint URL must start with http:// or https://, "
                             f"not {shown_url(self.base_url)!r}")
        if not self.model.strip():
            raise ValueError("no model name given")
        if not 1 <= self.concurrency <= 1024:
            raise ValueError(f"concurrency must be 1–1024, not {self.concurrency}")
        if self.structured not in STRUCTURED_MODES:
            raise ValueError(f"structured must be one of {', '.join(STRUCTURED_MODES)}")
        if not 0 < self.timeout <= MAX_TIMEOUT_S:  # NaN too
            raise ValueError(f"the timeout must be from 0 to {MAX_TIMEOUT_S:g} seconds "
                             f"(exclusive of 0), not {self.timeout:g}")
        if not 1 <= self.max_tokens <= MAX_TOKENS:
            raise ValueError(f"max_tokens must be 1–{MAX_TOKENS:,}, not {self.max_tokens:,}")
        if self.temperature is not None and not 0 <= self.temperature <= 2:
            raise ValueError(f"the temperature must be from 0 to 2 (as OpenAI's API), not "
                             f"{self.temperature:g}")
        for name, price in (("price_in", self.price_in), ("price_out", self.price_out)):
            if price is not None and not 0 <= price < math.inf:
                raise ValueError(f"the {name.replace('_', ' ')} must be a number >= 0, "
                                 f"not {price:g}")

    def naming(self, message: str) -> str:
        """``message`` (a request that gave up) led by the model and the endpoint, its URL
        shown without secrets (:func:`core.http_pools.shown_url`), unless the message names
        that URL already ("cannot reach http://…")."""
        url = shown_url(self.base_url).rstrip("/")
        return f"{self.model}: {message}" if url in message else \
            f"{self.model} at {url}: {message}"

    def public(self) -> dict[str, Any]:
        """What a run records about the endpoint (never the key, nor a password or key
        written into the URL, ADR 198)."""
        return {"base_url": shown_url(self.base_url).rstrip("/"), "model": self.model,
                "concurrency": self.concurrency, "structured": self.structured,
                "temperature": self.temperature, "max_tokens": self.max_tokens}


@dataclass
class Answer:
    """A successful response."""

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    latency_ms: int = 0
    attempts: int = 1
    structured: str = "off"


class ProposeError(Exception):
    """One request failed; ``str()`` is the reason stored with the failed proposal."""

    def __init__(self, reason: str, raw: str | None = None) -> None:
        super().__init__(reason)
        self.raw = raw


class EndpointError(ProposeError):
    """The endpoint refuses every request (wrong key, unknown model or path)."""


def _snippet(text: str, n: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n] + "…"


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if value == value and abs(value) != float("inf") else None


def parse_body(body: bytes, ep: ProposeEndpoint) -> Answer:
    """The assistant text and usage of a chat-completions body; ProposeError if malformed."""
    text = body.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
        choice = data["choices"][0]
        content = choice["message"]["content"]
    except RecursionError:  # a hostile server's [[[[…]]]] (ADR 214)
        raise ProposeError("malformed response (JSON nested too deeply)",
                           raw=text[:2000]) from None
    except (ValueError, KeyError, IndexError, TypeError):
        raise ProposeError(f"malformed response (not a chat completion): {_snippet(text)!r}",
                           raw=text[:2000]) from None
    if isinstance(content, list):  # some servers return content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str) or not content.strip():
        reason = choice.get("finish_reason") if isinstance(choice, dict) else None
        raise ProposeError(f"the model returned no text (finish_reason={reason!r})",
                           raw=text[:2000])
    usage = data.get("usage") if isinstance(data, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    p_tok, c_tok = _number(usage.get("prompt_tokens")), _number(usage.get("completion_tokens"))
    cost = _number(usage.get("cost"))
    if cost is None and (ep.price_in is not None or ep.price_out is not None) \
            and (p_tok is not None or c_tok is not None):
        cost = ((p_tok or 0) * (ep.price_in or 0) + (c_tok or 0) * (ep.price_out or 0)) / 1e6
    return Answer(content, None if p_tok is None else int(p_tok),
                  None if c_tok is None else int(c_tok), cost)


def _rejects_format(status: int, body: str) -> bool:
    low = body.lower()
    return status in (400, 422) and any(w in low for w in (
        "response_format", "json_schema", "json schema", "guided", "structured"))


class ProposeClient:
    """Use as ``async with ProposeClient(endpoint) as c: await c.complete(...)``."""

    def __init__(self, endpoint: ProposeEndpoint, *,
                 transport: httpx.AsyncBaseTransport | None = None,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep) -> None:
        self.endpoint = endpoint
        # a long job against a hosted API honours longer Retry-After waits than a fetch
        self.policy = RetryPolicy(retries=max(0, endpoint.attempts - 1),
                                  backoff=endpoint.backoff, max_backoff=30.0,
                                  max_retry_after=120.0)
        self._transport = transport
        self._sleep = sleep
        self._pools: ClientPools | None = None
        self._resume_at = 0.0  # monotonic time before which no request is sent (429)
        self.mode = "json_schema" if endpoint.structured == "auto" else endpoint.structured
        self.in_flight = 0
        self.max_in_flight = 0
        self.sent = 0
        self.rate_limited = 0
        self.failures_in_a_row = 0  # requests that gave up after their retries (ADR 192)
        self._failing: set[Hashable] = set()  # their groups (a post's kinds count once)

    async def __aenter__(self) -> ProposeClient:
        import httpx

        ep = self.endpoint
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if ep.api_key:
            headers["Authorization"] = f"Bearer {ep.api_key}"
        self._pools = ClientPools(ep.concurrency, lambda limits: httpx.AsyncClient(
            base_url=ep.base_url.strip().rstrip("/") + "/", headers=headers,
            timeout=httpx.Timeout(ep.timeout, connect=min(10.0, ep.timeout)),
            transport=self._transport,
            mounts=LOOPBACK_DIRECT, follow_redirects=False, limits=limits))
        return self

    async def __aexit__(self, *exc: object) -> None:
        pools, self._pools = self._pools, None
        if pools is not None:
            await pools.aclose()

    def _payload(self, messages: list[dict[str, Any]], name: str,
                 schema: dict[str, Any]) -> dict[str, Any]:
        ep = self.endpoint
        payload: dict[str, Any] = {"model": ep.model, "messages": messages,
                                   "max_tokens": ep.max_tokens}
        if ep.temperature is not None:
            payload["temperature"] = ep.temperature
        if self.mode == "json_schema":
            payload["response_format"] = {"type": "json_schema", "json_schema": {
                "name": name, "schema": schema, "strict": True}}
        elif self.mode == "json_object":
            payload["response_format"] = {"type": "json_object"}
        return payload

    async def _gate(self) -> None:
        """Wait while a 429's Retry-After holds every request back."""
        while True:
            wait = self._resume_at - time.monotonic()
            if wait <= 0:
                return
            await self._sleep(wait)

    async def complete(self, messages: list[dict[str, Any]], name: str,
                       schema: dict[str, Any], *, group: Hashable | None = None) -> Answer:
        """Send one request; the answer, or :class:`ProposeError` / :class:`EndpointError`.

        Requests of one ``group`` (the kinds asked about one post) that give up count as
        one towards :data:`BREAK_AFTER`: failing on one post's images says nothing of
        the endpoint.  Without a group each request counts on its own.
        """
        pools = self._pools
        if pools is None:
            raise RuntimeError("use ProposeClient as an async context manager")
        ep = self.endpoint

        async def attempt(tries: int) -> Answer:
            while True:  # a response format the server cannot do is no failed try
                await self._gate()
                mode = self.mode
                payload = self._payload(messages, name, schema)
                started = time.monotonic()
                with transport_failures(ep.base_url, ep.timeout):
                    async with pools.slot() as client:  # a free slot, on its own pool
                        self.in_flight += 1
                        self.max_in_flight = max(self.max_in_flight, self.in_flight)
                        self.sent += 1
                        try:
                            async with deadline(ep.timeout):
                                status, headers, body = await read_capped(
                                    client, "POST", "chat/completions",
                                    ep.max_response_bytes, json=payload,
                                    secrets=(ep.api_key,))
                        finally:
                            self.in_flight -= 1
                text = body.decode("utf-8", errors="replace")
                if status == 429:  # every request waits, at the gate
                    self.rate_limited += 1
                    wait = self.policy.delay(tries, parse_retry_after(headers.get("retry-after")))
                    self._resume_at = max(self._resume_at, time.monotonic() + wait)
                    raise Transient(f"rate limited (HTTP 429): {_snippet(text)!r}")
                check_status(status, headers.get("retry-after"), _snippet(text))
                if status >= 400:
                    if mode != "off" and ep.structured == "auto" and _rejects_format(status, text):
                        self.mode = "json_object" if mode == "json_schema" else "off"
                        continue
                    if status in FATAL_STATUSES:
                        raise EndpointError(ep.naming(
                            f"the endpoint refused the request: HTTP {status}: "
                            f"{_snippet(text)!r} (check the URL, the model name and the "
                            "API key)"))
                    raise ProposeError(ep.naming(f"refused: HTTP {status}: "
                                                 f"{_snippet(text)!r}"), raw=text[:2000])
                if not 200 <= status < 300:
                    raise Transient(f"unexpected HTTP {status}")
                try:
                    answer = parse_body(body, ep)
                except ProposeError as exc:
                    raise Transient(str(exc)) from None
                return replace(answer, latency_ms=int(1000 * (time.monotonic() - started)),
                               attempts=tries, structured=mode)

        try:
            answer = await retry_async(attempt, self.policy, sleep=self._sleep)
        except GaveUp as exc:
            self._failing.add(object() if group is None else group)
            self.failures_in_a_row = len(self._failing)
            if self.failures_in_a_row >= BREAK_AFTER:  # a dead endpoint: stop the run
                raise EndpointError(
                    f"the endpoint failed {self.failures_in_a_row} requests in a row (last: "
                    f"{ep.naming(str(exc))}); the run stopped rather than wait on each post "
                    "(check the URL and that the server is up; proposals made so far are "
                    "kept)") from None
            raise ProposeError(ep.naming(str(exc))) from None
        except ResponseTooLarge as exc:
            raise ProposeError(ep.naming(str(exc))) from None
        except CertificateError as exc:  # every request would fail alike (ADR 218)
            raise EndpointError(str(exc)) from None
        self.failures_in_a_row = 0
        self._failing.clear()
        return answer
