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
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC

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
