"""One retry policy for every HTTP client Winnow runs (image fetch, VLM judges).

Which failures are retried is the client's business (both retry connection errors,
timeouts, HTTP 408, 429 and 5xx, never other 4xx); *how long to wait* is decided here,
once:

* exponential backoff: attempt ``n`` (1 = the first retry) waits
  ``min(max_backoff, backoff · 2^(n-1))``, jittered down to half of that so that many
  clients do not retry in step;
* a server's ``Retry-After`` (seconds, or an HTTP date) is honoured as a *lower bound*,
  capped at ``max_retry_after`` so a hostile or confused server cannot park a job for
  hours; a past date or a negative value means "now".

The loop that waits and tries again is here too, once: :func:`retry_async` (the VLM
judge and proposal clients; one attempt raises :class:`Transient` for a failure worth
another try).  The image fetcher keeps its own loop because its total limit also cuts
an attempt short mid-download (:func:`core.http_pools.deadline` over all attempts);
its waits are this policy's.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC
from typing import TypeVar

from core.jobs import Cancelled

T = TypeVar("T")

#: HTTP statuses worth retrying besides 5xx: request timeout, too many requests.
RETRY_STATUSES = frozenset({408, 429})


def retryable_status(status: int) -> bool:
    """True for 408, 429 and every 5xx."""
    return status >= 500 or status in RETRY_STATUSES


def parse_retry_after(value: str | None, now: Callable[[], float] | None = None) -> float | None:
    """Seconds asked for by a ``Retry-After`` header value, or None when absent/unreadable.

    Accepts delta-seconds (``"120"``, also ``"1.5"``) and HTTP dates
    (``"Wed, 21 Oct 2015 07:28:00 GMT"``); never negative.
    """
    text = (value or "").strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if seconds == seconds else None  # NaN: unreadable
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:  # RFC 9110 dates are GMT
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - (now or time.time)())


@dataclass(frozen=True)
class RetryPolicy:
    """How many times to retry and how long to wait before each retry."""

    retries: int = 3  # attempts after the first
    backoff: float = 0.5  # first wait, seconds; doubles per retry
    max_backoff: float = 10.0  # cap on one backoff wait
    max_retry_after: float = 30.0  # cap on a server's Retry-After
    #: bound on the time from the first attempt to the start of the last (None: none);
    #: a wait that would end past it is not begun
    total: float | None = None

    @property
    def attempts(self) -> int:
        """Total attempts, the first included (at least 1)."""
        return max(0, self.retries) + 1

    def delay(self, retry: int, retry_after: float | None = None,
              rng: Callable[[float, float], float] = random.uniform) -> float:
        """Seconds to wait before retry number ``retry`` (1 = the first retry)."""
        full = min(self.max_backoff, self.backoff * 2 ** max(0, retry - 1))
        wait = rng(full / 2, full)
        if retry_after is not None:
            wait = max(wait, min(max(0.0, retry_after), self.max_retry_after))
        return wait


class Transient(Exception):
    """Raised by one attempt: a failure worth another try (``str()`` says what failed)."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


class GaveUp(Exception):  # noqa: N818 - the outcome of a retry loop, named as such
    """Every attempt failed (or the total time ran out); ``reason`` is the last failure."""

    def __init__(self, reason: str, attempts: int) -> None:
        super().__init__(f"{reason} (gave up after {attempts} "
                         f"attempt{'' if attempts == 1 else 's'})")
        self.reason = reason
        self.attempts = attempts


def check_status(status: int, retry_after: str | None, text: str) -> None:
    """Raise :class:`Transient` (``HTTP <status>: <text>``, the header's wait) for a status
    worth retrying (408, 429, 5xx); return for any other status."""
    if retryable_status(status):
        raise Transient(f"HTTP {status}: {text!r}", parse_retry_after(retry_after))


async def retry_async(attempt: Callable[[int], Awaitable[T]], policy: RetryPolicy, *,
                      sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
                      cancelled: Callable[[], bool] | None = None,
                      clock: Callable[[], float] = time.monotonic) -> T:
    """``await attempt(n)`` for n = 1, 2, … until it returns, waiting as ``policy`` says
    after each :class:`Transient` it raises.

    Any other exception ends the loop at once (a refusal that retrying cannot fix).
    Raises :class:`GaveUp` after ``policy.attempts`` failures, or when the next wait would
    end past ``policy.total``; :class:`core.jobs.Cancelled` when ``cancelled()`` turns
    true (checked before and after each wait).  Cancelling the task stops it at once,
    mid-wait included.
    """
    start = clock()
    tries = 0
    while True:
        tries += 1
        try:
            return await attempt(tries)
        except Transient as exc:
            last = exc
        if tries >= policy.attempts:
            raise GaveUp(last.reason, tries)
        wait = policy.delay(tries, last.retry_after)
        if policy.total is not None and clock() + wait - start > policy.total:
            raise GaveUp(f"{last.reason}; no time left to retry within "
                         f"{policy.total:g} s", tries)
        if cancelled is not None and cancelled():
            raise Cancelled()
        await sleep(wait)
        if cancelled is not None and cancelled():
            raise Cancelled()
