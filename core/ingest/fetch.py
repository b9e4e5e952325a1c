"""Fetch images over http(s): bounded concurrency, retries, size cap, checks, disk cache.

:func:`fetch_images` downloads each distinct URL once with one shared
``httpx.AsyncClient`` and returns a :class:`FetchResult` per URL.  It never raises
for a bad URL: every failure becomes ``FetchResult.error``, a short message that
says what went wrong ("HTTP 404 Not Found", "content-type text/html is not an
image", "timed out after 4 attempts (read timeout 20 s)", …).  Only cancellation
(:class:`core.jobs.Cancelled`) and bugs propagate.

Bodies are streamed to disk as they arrive (the cache folder, or ``download_dir``)
through :mod:`core.files`, never held in memory: peak memory depends neither on the
size of an image nor on how many there are.  Compressed bodies (gzip, deflate) are
decoded in bounded steps, so a gzip bomb stops at the size cap like any other body.
Every connection, redirects included, goes through :mod:`core.ingest.netguard`
unless private networks are allowed.  Without that permission a cache entry serves only
if its download went through the guard too (ADR 183): a body fetched with private
networks allowed is fetched again, through the guard, which refuses a private host
(where bodies go, and which cache entry may answer: :mod:`core.ingest.fetch_cache`).

Retries follow :class:`core.retry.RetryPolicy` (backoff with jitter, ``Retry-After`` as
a capped lower bound) on connection errors, timeouts, HTTP 5xx, 408 and 429, never on
other 4xx or on content problems.  ``FetchSettings.total_timeout`` bounds the whole time
spent on one URL, retries and waits included.  A server whose downloads fail
:data:`HOST_BREAK_AFTER` times in a row for want of an answer (after their retries) is
not asked again in that fetch, directly or through a redirect: its other URLs fail at
once with a message that says so (ADR 193, :mod:`core.ingest.fetch_hosts`), so a dead
server costs an import a minute, not a minute per image.
"""

from __future__ import annotations

import asyncio
import logging
import zlib
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from core.files import atomic_writer
from core.http_pools import (
    ClientPools,
    DeadlineExceeded,
    certificate_problem,
    deadline,
    transport_detail,
)
from core.ingest.fetch_cache import body_path, cache_hit, guard_mark, mark_guarded
from core.ingest.fetch_hosts import HOST_BREAK_AFTER, Hosts
from core.ingest.images import (
    DEFAULT_MAX_PIXELS,
    ImageError,
    ImageInfo,
    format_size,
    inspect_image,
)
from core.ingest.netguard import BlockedAddressError, NetworkPolicy, make_transport, proxy_note
from core.jobs import JobState
from core.retry import RetryPolicy, parse_retry_after, retryable_status
from core.task_pool import run_bounded

__all__ = ["HOST_BREAK_AFTER", "FetchResult", "FetchSettings", "fetch_images",
           "fetch_images_sync", "make_clients"]

log = logging.getLogger(__name__)

_POLL_S = 0.05  # how often a running fetch looks at JobState.cancelled()
_OCTET_TYPES = {"", "application/octet-stream", "binary/octet-stream", "application/binary"}
MAX_REDIRECTS = 10
_DECODE_STEP = 1 << 20  # most bytes one decompression step may produce
MAX_PARALLEL_DECODES = 2  # images decoded at once (each may need up to max_pixels × 4 B)


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
    cache_dir: Path | None = None  # bodies are kept here by URL (reused, ADR 183)
    download_dir: Path | None = None  # where bodies go when there is no cache
    allow_private_network: bool = False  # loopback, LAN, link-local… (ADR 002)
    trusted: frozenset[tuple[str, int]] = field(default_factory=frozenset)  # tests only

    @property
    def retry(self) -> RetryPolicy:
        """The :class:`core.retry.RetryPolicy` these settings describe."""
        return RetryPolicy(self.retries, self.backoff, self.max_backoff, self.max_retry_after)

    @property
    def policy(self) -> NetworkPolicy:
        """Which addresses may be connected to."""
        return NetworkPolicy(self.allow_private_network, self.trusted)


@dataclass
class FetchResult:
    """Outcome for one URL: the validated body (a file), or a human-readable error."""

    url: str
    path: Path | None = None  # the body on disk (in the cache or ``download_dir``)
    info: ImageInfo | None = None
    error: str | None = None
    from_cache: bool = False
    attempts: int = 0  # HTTP attempts made (0 for a cache hit or a rejected URL)
    unanswered: bool = False  # failed for want of an answer (connection, time, 5xx, 429)

    @property
    def ok(self) -> bool:
        return self.error is None and self.path is not None and self.info is not None

    @property
    def data(self) -> bytes | None:
        """The body's bytes (reads the file; for small checks and tests)."""
        return self.path.read_bytes() if self.ok and self.path is not None else None


class _Permanent(Exception):
    """A failure that retrying cannot fix (4xx, wrong type, too large, corrupt…)."""


class _GivenUp(_Permanent):
    """A redirect to a server this fetch has given up on (not followed)."""


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


def make_clients(settings: FetchSettings) -> ClientPools:
    """The clients for ``settings``: ``settings.concurrency`` request slots over a few
    small pools (:mod:`core.http_pools`), timeouts, the network guard.

    Redirects are followed by :func:`fetch_images` itself, one hop at a time.
    """
    return ClientPools(settings.concurrency, lambda limits: httpx.AsyncClient(
        follow_redirects=False,
        timeout=_timeout(settings),
        limits=limits,
        headers=_headers(settings),
        transport=make_transport(settings.policy, limits),
    ))


def _timeout(s: FetchSettings) -> httpx.Timeout:
    return httpx.Timeout(
        connect=s.connect_timeout, read=s.read_timeout, write=s.read_timeout, pool=s.total_timeout
    )


def _headers(s: FetchSettings) -> dict[str, str]:
    return {"User-Agent": s.user_agent, "Accept": "image/*, */*;q=0.5",
            "Accept-Encoding": "identity"}


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


def _http_error(response: httpx.Response) -> Exception:
    status = response.status_code
    try:
        reason = response.reason_phrase or HTTPStatus(status).phrase
    except ValueError:
        reason = ""
    message = f"HTTP {status} {reason}".rstrip()
    if retryable_status(status):
        after = parse_retry_after(response.headers.get("retry-after"))
        return _Transient(message, retry_after=after)
    return _Permanent(message)


def _classify(exc: httpx.HTTPError, s: FetchSettings) -> Exception:
    """Turn an httpx exception into a transient or permanent failure with a clear message."""
    detail = str(exc) or type(exc).__name__
    problem = certificate_problem(exc)
    if problem:  # self-signed, expired, another host's: retrying cannot fix it (ADR 218)
        return _Permanent(problem)
    if isinstance(exc, httpx.ConnectTimeout):
        return _Transient(detail, timeout=f"connect timeout {_secs(s.connect_timeout)}"
                          f"{proxy_note(s.policy)}")
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
        return _Transient(f"connection failed: {transport_detail(exc)}{proxy_note(s.policy)}")
    if isinstance(exc, httpx.TransportError):
        return _Transient(f"connection broken: {transport_detail(exc)}")
    return _Permanent(f"invalid request: {detail}")


class _Decoder:
    """Bounded decoding of a ``Content-Encoding`` (identity, gzip, deflate)."""

    def __init__(self, encoding: str) -> None:
        self._z: Any = None
        if encoding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif encoding == "deflate":
            self._z = zlib.decompressobj()
        elif encoding not in ("", "identity"):
            raise _Permanent(f"the server sent a {encoding}-compressed body, which is not "
                             "accepted for images")

    def feed(self, data: bytes) -> Iterator[bytes]:
        """Decoded pieces of at most 1 MB each (a bomb cannot expand in one step)."""
        if self._z is None:
            yield data
            return
        try:
            piece = self._z.decompress(data, _DECODE_STEP)
            while piece:
                yield piece
                piece = self._z.decompress(self._z.unconsumed_tail, _DECODE_STEP)
        except zlib.error as exc:
            raise _Permanent(f"response body cannot be decoded ({exc})") from None


async def _body(response: httpx.Response) -> AsyncIterator[bytes]:
    decoder = _Decoder(response.headers.get("content-encoding", "").strip().lower())
    async for chunk in response.aiter_raw():
        for piece in decoder.feed(chunk):
            yield piece


async def _send(client: httpx.AsyncClient, url: str, s: FetchSettings, hosts: Hosts | None,
                asked: list[httpx.URL]) -> httpx.Response:
    """GET ``url``, following redirects one hop at a time (every hop checked afresh, none
    to a server ``hosts`` gave up on); each request's URL is appended to ``asked``."""
    request = client.build_request("GET", url, headers=_headers(s), timeout=_timeout(s))
    for _ in range(MAX_REDIRECTS + 1):
        asked.append(request.url)
        response = await client.send(request, stream=True, follow_redirects=False)
        if not response.has_redirect_location:
            return response
        await response.aclose()
        if hosts is not None:
            hosts.answered(request.url)
        location = response.next_request
        if location is None:
            raise _Permanent("redirect without a usable Location")
        problem = _url_problem(str(location.url))
        if problem:
            raise _Permanent(f"redirected to an unusable URL ({problem})")
        given_up = hosts.given_up(location.url) if hosts is not None else None
        if given_up is not None:
            raise _GivenUp(given_up)
        request = location
    raise _Permanent("too many redirects")


async def _attempt(client: httpx.AsyncClient, url: str, s: FetchSettings, target: Path,
                   decodes: asyncio.Semaphore, hosts: Hosts | None,
                   asked: list[httpx.URL]) -> ImageInfo:
    """One GET: status, type and size checks, body streamed to ``target``, decode check
    (``hosts``, ``asked``: as :func:`_send` takes them)."""
    limit = format_size(s.max_bytes)
    received = 0
    ctype = ""
    try:
        response = await _send(client, url, s, hosts, asked)
        try:
            if response.status_code >= 300:
                raise _http_error(response)
            ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if not ctype.startswith("image/") and ctype not in _OCTET_TYPES:
                raise _Permanent(f"content-type {ctype} is not an image")
            declared = response.headers.get("content-length", "").strip()
            if declared.isdigit() and int(declared) > s.max_bytes:
                raise _Permanent(
                    f"larger than the {limit} limit (Content-Length {format_size(int(declared))})"
                )
            target.parent.mkdir(parents=True, exist_ok=True)
            with atomic_writer(target, replace=True) as fh:  # our own cache/download file
                async for piece in _body(response):
                    received += len(piece)
                    if received > s.max_bytes:
                        raise _Permanent(f"larger than the {limit} limit (download stopped)")
                    fh.write(piece)
        finally:
            await response.aclose()
    except BlockedAddressError as exc:
        raise _Permanent(str(exc)) from None
    except OSError as exc:  # the download could not be written (disk full, permissions)
        raise _Permanent(f"cannot be saved: {exc.strerror or exc}") from None
    except httpx.HTTPError as exc:
        raise _classify(exc, s) from exc
    except httpx.InvalidURL as exc:  # e.g. a redirect to a malformed Location
        raise _Permanent(f"invalid URL: {exc}") from exc
    try:
        async with decodes:
            return await asyncio.to_thread(inspect_image, target, max_pixels=s.max_pixels)
    except ImageError as exc:
        target.unlink(missing_ok=True)
        lying = ctype.startswith("image/") and str(exc).startswith("not ")
        served = f" (served as {ctype})" if lying else ""
        raise _Permanent(f"{exc}{served}") from exc


async def _download(client: httpx.AsyncClient, url: str, s: FetchSettings, target: Path,
                    decodes: asyncio.Semaphore, hosts: Hosts | None = None) -> FetchResult:
    """Fetch one URL with retries, all within ``s.total_timeout``; tell ``hosts`` whether
    the server asked last answered (no attempt, nor redirect, to a server it gave up on)."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    end = start + s.total_timeout
    policy = s.retry
    attempts = 0
    asked: list[httpx.URL] = []  # every request's URL, redirects included
    while True:
        given_up = hosts.given_up(url) if hosts is not None else None
        if given_up is not None:
            return FetchResult(url, error=given_up, attempts=attempts)
        attempts += 1
        try:  # the limit spans every attempt: hitting it ends the URL, no retry
            async with deadline(s.total_timeout, start=start):
                info = await _attempt(client, url, s, target, decodes, hosts, asked)
            result = FetchResult(url, target, info, attempts=attempts)
        except _GivenUp as exc:  # its server's count is not this download's to change
            return FetchResult(url, error=str(exc), attempts=attempts)
        except _Permanent as exc:
            result = FetchResult(url, error=str(exc), attempts=attempts)
        except DeadlineExceeded:
            result = FetchResult(
                url,
                error=f"timed out: no complete response within the {_secs(s.total_timeout)} "
                f"total limit ({attempts} attempt{'s' if attempts != 1 else ''})",
                attempts=attempts, unanswered=True,
            )
        except _Transient as exc:
            if attempts < policy.attempts:
                delay = policy.delay(attempts, exc.retry_after)
                if loop.time() + delay < end:
                    await asyncio.sleep(delay)
                    continue
            result = FetchResult(url, error=exc.final(attempts), attempts=attempts,
                                 unanswered=True)
        if hosts is not None and asked:
            if result.unanswered:
                hosts.unanswered(asked[-1], result.error)
            else:
                hosts.answered(asked[-1])
        return result


async def _fetch_one(client: httpx.AsyncClient, url: str, s: FetchSettings,
                     decodes: asyncio.Semaphore, hosts: Hosts | None = None) -> FetchResult:
    problem = _url_problem(url)
    if problem:
        return FetchResult(url, error=problem)
    target = url.strip()
    path = body_path(s, target)
    if s.cache_dir is not None:
        async with decodes:
            info = await asyncio.to_thread(cache_hit, path, s)
        if info is not None:
            return FetchResult(url, path, info, from_cache=True)
        guard_mark(path).unlink(missing_ok=True)  # vouches for the body about to be replaced
    result = await _download(client, target, s, path, decodes, hosts)
    result.url = url
    if s.cache_dir is not None and result.ok:
        mark_guarded(path, s)
    return result


async def _fetch_guarded(client: httpx.AsyncClient, url: str, s: FetchSettings,
                         decodes: asyncio.Semaphore, hosts: Hosts | None = None
                         ) -> FetchResult:
    """``_fetch_one`` that turns any unexpected exception into an error result."""
    try:
        return await _fetch_one(client, url, s, decodes, hosts)
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

    Bodies land in ``settings.cache_dir`` (or ``download_dir``); a given ``client`` is
    used as it is for every request (the network guard comes with :func:`make_clients`).  At most ``settings.concurrency`` downloads run at once.  Progress goes to
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

    body_path(settings, "")  # no folder for the bodies: fail before any request
    pools = make_clients(settings) if client is None else None
    width = max(1, settings.concurrency)
    decodes = asyncio.Semaphore(MAX_PARALLEL_DECODES)
    hosts = Hosts()
    failed = 0

    async def run(url: str) -> None:
        nonlocal failed
        if pools is None:
            assert client is not None
            result = await _fetch_guarded(client, url, settings, decodes, hosts)
        else:  # never waits: at most ``width`` downloads run, one slot each
            async with pools.slot() as http:
                result = await _fetch_guarded(http, url, settings, decodes, hosts)
        results[url] = result
        if state is not None:
            failed += not result.ok
            state.advance()
            state.set_status(f"Fetched {state.done}/{len(unique)} images ({failed} failed)")

    try:  # a task raises only on a bug; state.check() raises on Cancel
        await run_bounded(unique, width, run, state.check if state is not None else None,
                          _POLL_S)
    finally:
        if pools is not None:
            await pools.aclose()
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
