"""OpenAI-compatible chat-completions client for VLM judges (``httpx.AsyncClient``).

``POST {base_url}/chat/completions`` with images as ``data:`` URLs.  Each request must
end within the endpoint's ``timeout`` as a whole (:func:`core.http_pools.deadline`), its
body is read up to :data:`MAX_RESPONSE_BYTES` (:func:`core.http_pools.read_capped`).  Timeouts,
retries on timeouts, connection errors, HTTP 408/429/5xx and malformed bodies through
:func:`core.retry.retry_async`, waiting as :class:`core.retry.RetryPolicy` says (exponential backoff; ``Retry-After`` in seconds
or as an HTTP date is a capped lower bound); a concurrency limit per endpoint.  Other
4xx refusals are not retried.  Every failure is a :class:`JudgeError` with a message that
says what went wrong, so the caller stores it for that item instead of crashing.

A judge that fails :data:`BREAK_AFTER` requests in a row (each after its retries, or
refused as unauthorised or not found) is not asked again by this client: later calls fail
at once with a message that says why (ADR 192), so a dead or misconfigured endpoint
costs a run minutes, not a timeout per item.  Calls with the same ``messages`` (one
item's repeats) are one request there: an item the server cannot process fails alone.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from core.http_pools import (
    LOOPBACK_DIRECT,
    CertificateError,
    ClientPools,
    ResponseTooLarge,
    deadline,
    read_capped,
    transport_failures,
)
from core.metrics.settings import JudgeEndpoint
from core.retry import GaveUp, RetryPolicy, Transient, check_status, retry_async

if TYPE_CHECKING:  # httpx is imported on use: ~0.2 s that start-up need not pay
    import httpx

MAX_BACKOFF = 30.0
#: bytes of a response body read at most (the proposal client's default cap)
MAX_RESPONSE_BYTES = 8 * 2**20
#: failed requests in a row after which a client stops asking its judge (ADR 192)
BREAK_AFTER = 3
#: refusals that say the endpoint, not the item, is wrong (bad key, no such model or path)
_ENDPOINT_REFUSALS = (401, 403, 404, 405)


class JudgeError(Exception):
    """A judge call failed (after retries where retrying made sense)."""


class JudgeUnavailable(JudgeError):
    """The judge did not answer (after its retries), refused as unauthorised or not
    found, or was no longer asked (ADR 192): no verdict on the item, worth asking again."""


def data_url(data: bytes, mime: str = "image/png") -> str:
    """``data:<mime>;base64,...`` for an image."""
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def user_message(text: str, images: list[str]) -> dict[str, Any]:
    """A user turn with text followed by images (data URLs)."""
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    content += [{"type": "image_url", "image_url": {"url": url}} for url in images]
    return {"role": "user", "content": content}


def _snippet(text: str, n: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n] + "…"


def parse_completion(body: bytes) -> str:
    """The assistant text of a chat-completions body; :class:`JudgeError` if malformed."""
    text = body.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
    except ValueError:
        raise JudgeError(f"malformed response (not JSON): {_snippet(text)!r}") from None
    except RecursionError:  # a hostile server's [[[[…]]]] (ADR 214)
        raise JudgeError("malformed response (JSON nested too deeply)") from None
    try:
        choice = data["choices"][0]
        content = choice["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise JudgeError(f"malformed response (no choices[0].message.content): "
                         f"{_snippet(text)!r}") from None
    if isinstance(content, list):  # some servers return content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str) or not content.strip():
        reason = choice.get("finish_reason") if isinstance(choice, dict) else None
        raise JudgeError(f"the judge returned no text (finish_reason={reason!r})")
    return content


class JudgeClient:
    """One endpoint; use as ``async with JudgeClient(endpoint) as c: await c.complete(...)``."""

    def __init__(self, endpoint: JudgeEndpoint, *,
                 transport: httpx.AsyncBaseTransport | None = None,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
                 max_response_bytes: int = MAX_RESPONSE_BYTES) -> None:
        self.endpoint = endpoint
        self.max_response_bytes = max_response_bytes
        self._transport = transport
        self._sleep = sleep
        self._pools: ClientPools | None = None
        self.retry = RetryPolicy(retries=endpoint.max_retries, backoff=endpoint.backoff,
                                 max_backoff=MAX_BACKOFF, max_retry_after=MAX_BACKOFF)
        self.calls = 0
        self.failures_in_a_row = 0
        #: the messages of the requests counted in ``failures_in_a_row`` (their repeats
        #: are not counted again; held until a success, so their ids stay theirs)
        self._failing: list[list[dict[str, Any]]] = []
        self.broken: str | None = None  # why this client no longer asks its judge

    async def __aenter__(self) -> JudgeClient:
        headers = {"Content-Type": "application/json"}
        if self.endpoint.api_key:
            headers["Authorization"] = f"Bearer {self.endpoint.api_key}"
        import httpx

        t = self.endpoint.timeout
        self._pools = ClientPools(self.endpoint.concurrency, lambda limits: httpx.AsyncClient(
            base_url=self.endpoint.base_url.rstrip("/") + "/", headers=headers,
            timeout=httpx.Timeout(t, connect=min(10.0, t)), transport=self._transport,
            mounts=LOOPBACK_DIRECT,
            limits=limits))
        return self

    async def __aexit__(self, *exc: object) -> None:
        pools, self._pools = self._pools, None
        if pools is not None:
            await pools.aclose()

    async def complete(self, messages: list[dict[str, Any]]) -> str:
        """Send one chat request; the assistant's text, or :class:`JudgeError`.

        Calls given the same ``messages`` object (an item's repeats) count as one
        request towards :data:`BREAK_AFTER`: their failures say one thing, about that item.
        """
        pools = self._pools
        if pools is None:
            raise RuntimeError("use JudgeClient as an async context manager")
        ep = self.endpoint
        if self.broken is not None:
            raise JudgeUnavailable(self.broken)
        payload: dict[str, Any] = {"model": ep.model, "messages": messages,
                                   "max_tokens": ep.max_tokens}
        if ep.temperature is not None:
            payload["temperature"] = ep.temperature

        async def attempt(_n: int) -> str:
            with transport_failures(ep.base_url, ep.timeout):
                async with pools.slot() as client:
                    if self.broken is not None:  # broke while this request waited
                        raise JudgeUnavailable(self.broken)
                    self.calls += 1
                    async with deadline(ep.timeout):
                        status, headers, body = await read_capped(
                            client, "POST", "chat/completions", self.max_response_bytes,
                            json=payload, secrets=(ep.api_key,))
            text = _snippet(body.decode("utf-8", errors="replace"))
            check_status(status, headers.get("retry-after"), text)
            if status >= 400:
                raise _Refused(status, f"refused: HTTP {status}: {text!r}")
            try:
                return parse_completion(body)
            except JudgeError as exc:
                raise Transient(str(exc)) from None

        try:
            text = await retry_async(attempt, self.retry, sleep=self._sleep)
        except GaveUp as exc:
            raise self._failed(messages, f"{ep.model}: {exc}") from None
        except CertificateError as exc:  # every request fails alike: not retried (ADR 218)
            raise self._failed(messages, f"{ep.model}: {exc}") from None
        except _Refused as exc:
            if exc.status in _ENDPOINT_REFUSALS:
                raise self._failed(messages, str(exc)) from None
            raise JudgeError(str(exc)) from None
        except ResponseTooLarge as exc:
            raise JudgeError(f"{ep.model} at {ep.shown_url}: {exc}") from None
        self.failures_in_a_row = 0
        self._failing.clear()
        return text

    def _failed(self, messages: list[dict[str, Any]], message: str) -> JudgeUnavailable:
        """Count a failure of the endpoint (once per ``messages``); the error to raise
        (after :data:`BREAK_AFTER` in a row, this client stops asking and says so)."""
        if self.broken is not None or any(m is messages for m in self._failing):
            return JudgeUnavailable(message)  # no longer counted, or a repeat already was
        self._failing.append(messages)
        self.failures_in_a_row += 1
        if self.failures_in_a_row >= BREAK_AFTER:
            self._failing.clear()  # no more requests: nothing to tell apart
            ep = self.endpoint
            self.broken = (f"not sent: the judge {ep.model} at {ep.shown_url} "
                           f"failed {self.failures_in_a_row} requests in a row (last: "
                           f"{message}), so Winnow stopped asking it in this run; check "
                           "the endpoint (Metrics → Settings) and run again — items that "
                           "failed are computed again")
        return JudgeUnavailable(message)


class _Refused(JudgeError):
    """An HTTP refusal that is not worth retrying (``status``: 4xx)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
