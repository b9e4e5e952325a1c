"""The retry policy of the proposal client, behind the interface of ``core.retry``.

Another branch adds ``core/retry.py``: one retry policy for every HTTP client, with
``retryable_status(status)``, ``parse_retry_after(value, now=None)`` and
``RetryPolicy`` (``attempts()``, ``delay(retry, retry_after=None)``).  Until it lands,
this module holds a minimal stand-in with exactly that interface; the client uses
nothing else.  At merge, replace everything below the marker with::

    from core.retry import RetryPolicy, parse_retry_after, retryable_status

and adapt :func:`policy_for` (the only place that constructs a policy) to its
constructor.
"""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass


def policy_for(attempts: int, backoff: float, cap: float = 30.0,
               max_retry_after: float = 120.0) -> RetryPolicy:
    """The policy a proposal client uses (``attempts`` counts the first try)."""
    return RetryPolicy(max_attempts=attempts, base=backoff, cap=cap,
                       max_retry_after=max_retry_after)


# ---- stand-in for core.retry (replace at merge) ---------------------------------------
def retryable_status(status: int) -> bool:
    """Whether an HTTP status is worth retrying (408, 425, 429, 5xx except 501/505)."""
    return status in (408, 425, 429) or (500 <= status <= 599 and status not in (501, 505))


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delta-seconds or an HTTP date);
    None when absent or unreadable; never negative."""
    if value is None or not str(value).strip():
        return None
    text = str(value).strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        return None
    return max(0.0, seconds)


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter; a server's Retry-After wins (capped)."""

    max_attempts: int = 4
    base: float = 0.5
    cap: float = 30.0
    jitter: float = 0.25
    max_retry_after: float = 120.0

    def attempts(self) -> int:
        """How many tries in all (the first included)."""
        return max(1, self.max_attempts)

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds before retry number ``retry`` (1 = the first retry)."""
        if retry_after is not None:
            return min(self.max_retry_after, max(0.0, retry_after))
        wait = min(self.cap, self.base * (2 ** max(0, retry - 1)))
        return wait * (1 + self.jitter * random.random())
