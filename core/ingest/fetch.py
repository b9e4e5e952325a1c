"""Fetch images over http(s): bounded concurrency, retries, size cap, checks, disk cache.

:func:`fetch_images` downloads each distinct URL once with one shared
``httpx.AsyncClient`` and returns a :class:`FetchResult` per URL.  It never raises
for a bad URL: every failure becomes ``FetchResult.error``, a short message that
says what went wrong ("HTTP 404 Not Found", "content-type text/html is not an
image", "timed out after 4 attempts (read timeout 20 s)", …).  Only cancellation
(:class:`core.jobs.Cancelled`) and bugs propagate.

Retries (with exponential backoff and jitter) happen on connection errors,
timeouts, HTTP 5xx, 408 and 429 (honouring ``Retry-After`` up to a cap), never on
other 4xx or on content problems.  ``FetchSettings.total_timeout`` bounds the
whole time spent on one URL, retries and waits included.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import hashlib
import logging
import os
import random
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from core.ingest.images import (
    DEFAULT_MAX_PIXELS,
    ImageError,
    ImageInfo,
    format_size,
    inspect_image,
)
from core.jobs import JobState

__all__ = ["FetchResult", "FetchSettings", "fetch_images", "fetch_images_sync", "make_client"]

log = logging.getLogger(__name__)

_POLL_S = 0.05  # how often a running fetch looks at JobState.cancelled()
_OCTET_TYPES = {"", "application/octet-stream", "binary/octet-stream", "application/binary"}
_RETRY_STATUSES = {408, 429}
_DONE: object = object()  # end-of-iterator sentinel


@dataclass
class FetchSettings:
    """How images are downloaded.  ``retries`` counts attempts after the first."""

    concurrency: int = 8
    connect_timeout: float = 10
    read_timeout: float = 20
    total_timeout: float = 60  # per URL, all attempts and backoff waits included
    retries: int = 3
    backoff: float = 0.5  # first retry waits ~backoff s, then doubles (with jitter)
    max_backoff: float = 10.0  # cap on one backoff wait
    max_retry_after: float = 30.0  # cap on a server's Retry-After
    max_bytes: int = 50 * 2**20
    max_pixels: int = DEFAULT_MAX_PIXELS
    user_agent: str = "Winnow/0.1"
    cache_dir: Path | None = None


@dataclass
class FetchResult:
    """Outcome for one URL: the validated bytes, or a human-readable error."""

    url: str
    data: bytes | None = None
    info: ImageInfo | None = None
    error: str | None = None
    from_cache: bool = False
    attempts: int = 0  # HTTP attempts made (0 for a cache hit or a rejected URL)

    @property
    def ok(self) -> bool:
        return self.error is None and self.data is not None and self.info is not None


class _Permanent(Exception):
    """A failure that retrying cannot fix (4xx, wrong type, too large, corrupt…)."""


class _Transient(Exception):
    """A failure worth retrying; ``timeout`` describes which timeout fired, if any."""

    def __init__(
        self, message: str, *, timeout: str | None = None, retry_after: float | None = None
    ):
        super().__init__(message)
        self.timeout = timeout
        self.retry_after = retry_after

    def final(self, attempts: int) -> str:
        """Message once no more attempts will be made."""
        tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
        if self.timeout:
            return f"timed out after {tries} ({self.timeout})"
        return f"{self} (after {tries})" if attempts > 1 else str(self)


def _secs(value: float) -> str:
    return f"{value:g} s"


def make_client(settings: FetchSettings) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` configured from ``settings`` (redirects, limits, timeouts)."""
    n = max(1, settings.concurrency)
    return httpx.AsyncClient(
        follow_redirects=True,
        timeout=_timeout(settings),
        limits=httpx.Limits(max_connections=n, max_keepalive_connections=n),
        headers=_headers(settings),
    )


def _timeout(s: FetchSettings) -> httpx.Timeout:
    return httpx.Timeout(
        connect=s.connect_timeout, read=s.read_timeout, write=s.read_timeout, pool=s.total_timeout
    )


def _headers(s: FetchSettings) -> dict[str, str]:
    return {"User-Agent": s.user_agent, "Accept": "image/*, */*;q=0.5"}


def _url_problem(url: object) -> str | None:
    """Why ``url`` cannot be fetched at all, or None when it looks like http(s)."""
    if not isinstance(url, str) or not url.strip():
        return "empty URL"
    try:
        parts = urlsplit(url.strip())
        host, _port = parts.hostname, parts.port  # .port checks the range
        if parts.scheme.lower() in ("http", "https"):
            httpx.URL(url.strip())  # what httpx itself would refuse
    except (ValueError, httpx.InvalidURL) as exc:
        return f"invalid URL: {exc}"
    scheme = parts.scheme.lower()
    if not scheme:
        return "not a URL (no http:// or https:// scheme)"
    if scheme not in ("http", "https"):
        return f"unsupported URL scheme '{scheme}' (only http and https)"
    if not host:
        return "invalid URL: no host name"
    return None


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds asked for by a ``Retry-After`` header (delta or HTTP date), if any."""
    value = response.headers.get("retry-after", "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def _http_error(response: httpx.Response) -> Exception:
    status = response.status_code
    try:
        reason = response.reason_phrase or HTTPStatus(status).phrase
    except ValueError:
        reason = ""
    message = f"HTTP {status} {reason}".rstrip()
    if status >= 500 or status in _RETRY_STATUSES:
        return _Transient(message, retry_after=_retry_after(response))
    return _Permanent(message)


def _classify(exc: httpx.HTTPError, s: FetchSettings) -> Exception:
    """Turn an httpx exception into a transient or permanent failure with a clear message."""
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ConnectTimeout):
        return _Transient(detail, timeout=f"connect timeout {_secs(s.connect_timeout)}")
    if isinstance(exc, httpx.ReadTimeout):
        return _Transient(detail, timeout=f"read timeout {_secs(s.read_timeout)}")
    if isinstance(exc, httpx.TimeoutException):
        return _Transient(detail, timeout=type(exc).__name__)
    if isinstance(exc, httpx.TooManyRedirects):
        return _Permanent("too many redirects")
    if isinstance(exc, httpx.UnsupportedProtocol):
        return _Permanent(f"redirected to an unsupported URL ({detail})")
    if isinstance(exc, httpx.DecodingError):
        return _Permanent(f"response body cannot be decoded ({detail})")
    if isinstance(exc, httpx.ConnectError):
        return _Transient(f"connection failed: {detail}")
    if isinstance(exc, httpx.TransportError):
        return _Transient(f"connection broken: {detail}")
    return _Permanent(f"invalid request: {detail}")


async def _attempt(
    client: httpx.AsyncClient, url: str, s: FetchSettings
) -> tuple[bytes, ImageInfo]:
    """One GET: status, content-type and size checks, streamed body, decode check."""
    limit = format_size(s.max_bytes)
    chunks: list[bytes] = []
    received = 0
    try:
        async with client.stream(
            "GET", url, headers=_headers(s), timeout=_timeout(s), follow_redirects=True
        ) as response:
            if response.status_code >= 300:
                raise _http_error(response)
            ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if not ctype.startswith("image/") and ctype not in _OCTET_TYPES:
                raise _Permanent(f"content-type {ctype} is not an image")
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > s.max_bytes:
                raise _Permanent(
                    f"larger than the {limit} limit (Content-Length {format_size(int(declared))})"
                )
            async for chunk in response.aiter_bytes():
                chunks.append(chunk)
                received += len(chunk)
                if received > s.max_bytes:
                    raise _Permanent(f"larger than the {limit} limit (download stopped)")
    except httpx.HTTPError as exc:
        raise _classify(exc, s) from exc
    except httpx.InvalidURL as exc:  # e.g. a redirect to a malformed Location
        raise _Permanent(f"invalid URL: {exc}") from exc
    data = b"".join(chunks)
    del chunks
    try:
        info = await asyncio.to_thread(inspect_image, data, max_pixels=s.max_pixels)
    except ImageError as exc:
        lying = ctype.startswith("image/") and str(exc).startswith("not ")
        served = f" (served as {ctype})" if lying else ""
        raise _Permanent(f"{exc}{served}") from exc
    return data, info


def _backoff_delay(s: FetchSettings, attempt: int, retry_after: float | None) -> float:
    """Exponential backoff with jitter, capped; at least the (capped) Retry-After."""
    delay = min(s.max_backoff, s.backoff * 2 ** (attempt - 1))
    delay = random.uniform(delay / 2, delay)
    if retry_after is not None:
        delay = max(delay, min(retry_after, s.max_retry_after))
    return delay


async def _download(client: httpx.AsyncClient, url: str, s: FetchSettings) -> FetchResult:
    """Fetch one URL with retries, all within ``s.total_timeout``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + s.total_timeout
    attempts = 0
    while True:
        attempts += 1
        try:
            async with asyncio.timeout_at(deadline):
                data, info = await _attempt(client, url, s)
            return FetchResult(url, data, info, attempts=attempts)
        except _Permanent as exc:
            return FetchResult(url, error=str(exc), attempts=attempts)
        except TimeoutError:
            return FetchResult(
                url,
                error=f"timed out: no complete response within the {_secs(s.total_timeout)} "
                f"total limit ({attempts} attempt{'s' if attempts != 1 else ''})",
                attempts=attempts,
            )
        except _Transient as exc:
            if attempts > s.retries:
                return FetchResult(url, error=exc.final(attempts), attempts=attempts)
            delay = _backoff_delay(s, attempts, exc.retry_after)
            if loop.time() + delay >= deadline:
                return FetchResult(url, error=exc.final(attempts), attempts=attempts)
            await asyncio.sleep(delay)


# -- disk cache ------------------------------------------------------------------
def _cache_path(cache_dir: Path, url: str) -> Path:
    key = hashlib.sha256(url.encode("utf-8")).hexdigest()
    return Path(cache_dir) / key[:2] / key


def _cache_load(path: Path, s: FetchSettings) -> tuple[bytes, ImageInfo] | None:
    """A valid cached body, or None; an invalid entry is deleted."""
    try:
        if path.stat().st_size > s.max_bytes:
            raise ImageError("cached file over the size limit")
        data = path.read_bytes()
        return data, inspect_image(data, max_pixels=s.max_pixels)
    except FileNotFoundError:
        return None
    except (OSError, ImageError) as exc:
        log.info("discarding cached image %s: %s", path, exc)
        with contextlib.suppress(OSError):
            path.unlink()
        return None


def _cache_store(path: Path, data: bytes) -> None:
    """Write atomically (temp file + os.replace); a failure only costs a refetch."""
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".part-")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        log.warning("cannot cache image in %s: %s", path.parent, exc)
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


async def _fetch_one(client: httpx.AsyncClient, url: str, s: FetchSettings) -> FetchResult:
    problem = _url_problem(url)
    if problem:
        return FetchResult(url, error=problem)
    target = url.strip()
    path = _cache_path(s.cache_dir, target) if s.cache_dir is not None else None
    if path is not None:
        cached = await asyncio.to_thread(_cache_load, path, s)
        if cached is not None:
            return FetchResult(url, cached[0], cached[1], from_cache=True)
    result = await _download(client, target, s)
    result.url = url
    if path is not None and result.ok and result.data is not None:
        await asyncio.to_thread(_cache_store, path, result.data)
    return result


async def _fetch_guarded(client: httpx.AsyncClient, url: str, s: FetchSettings) -> FetchResult:
    """``_fetch_one`` that turns any unexpected exception into an error result."""
    try:
        return await _fetch_one(client, url, s)
    except Exception as exc:  # a bug or an odd library error must not stop the import
        log.exception("unexpected error fetching %s", url)
        return FetchResult(url, error=f"unexpected error: {type(exc).__name__}: {exc}")


# -- public entry points ---------------------------------------------------------
async def fetch_images(
    urls: Iterable[str],
    settings: FetchSettings,
    *,
    state: JobState | None = None,
    client: httpx.AsyncClient | None = None,
) -> dict[str, FetchResult]:
    """Fetch and validate every distinct URL; one result per URL, in input order.

    At most ``settings.concurrency`` downloads run at once.  Progress goes to
    ``state`` (one step per distinct URL); ``state.cancel()`` stops the run
    promptly, cancelling downloads in flight, and raises ``core.jobs.Cancelled``.
    """
    if state is not None:
        state.check()
    unique = list(dict.fromkeys(urls))
    results: dict[str, FetchResult] = {}
    if state is not None:
        state.set_total(len(unique))
        state.set_status(f"Fetching {len(unique)} images")
    if not unique:
        return results

    own_client = client is None
    http = make_client(settings) if client is None else client
    width = max(1, settings.concurrency)
    failed = 0

    async def run(url: str) -> None:
        nonlocal failed
        result = await _fetch_guarded(http, url, settings)
        results[url] = result
        if state is not None:
            failed += not result.ok
            state.advance()
            state.set_status(f"Fetched {state.done}/{len(unique)} images ({failed} failed)")

    # Bounded concurrency: at most ``width`` tasks exist at a time, each started as
    # another finishes (a semaphore-gated task per URL would also bound it, but
    # would hold tens of thousands of idle tasks for a large import).
    pending_urls = iter(unique)
    running: set[asyncio.Task[None]] = set()

    def top_up() -> None:
        while len(running) < width:
            url = next(pending_urls, _DONE)
            if url is _DONE:
                return
            running.add(asyncio.create_task(run(url)))

    try:
        top_up()
        while running:
            done, _ = await asyncio.wait(
                running,
                timeout=_POLL_S if state is not None else None,
                return_when=asyncio.FIRST_COMPLETED,
            )
            for task in done:
                running.discard(task)
                task.result()  # only a bug can raise here
            if state is not None:
                state.check()
            top_up()
    finally:
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)
        if own_client:
            await http.aclose()
    return {url: results[url] for url in unique}


def fetch_images_sync(
    urls: Iterable[str], settings: FetchSettings, state: JobState | None = None
) -> dict[str, FetchResult]:
    """Blocking :func:`fetch_images` for the CLI and worker threads (no running loop).

    The loop is a plain selector loop made explicitly: under the GUI, qasync installs
    an event-loop policy whose loops are Qt loops, which must not run off the GUI thread.
    """
    with asyncio.Runner(loop_factory=asyncio.SelectorEventLoop) as runner:
        return runner.run(fetch_images(list(urls), settings, state=state))
