"""Image fetching against a real local HTTP server: every failure mode, retries, limits,
concurrency, dedup, the disk cache and cancellation."""

from __future__ import annotations

import asyncio
import hashlib
import re
import socket
import threading
import time
from pathlib import Path

import httpx
import pytest

from core.ingest.fetch import FetchResult, FetchSettings, fetch_images, fetch_images_sync
from core.jobs import Cancelled, JobState

try:
    from .http_server import ImageServer
except ImportError:  # pragma: no cover - depends on the layout
    from http_server import ImageServer  # type: ignore[no-redef]

pytestmark = pytest.mark.timeout(30)

_DOWNLOADS: list[Path] = []


@pytest.fixture(autouse=True)
def _download_dir(tmp_path: Path):
    """Bodies go to disk: each test gets its own download folder."""
    _DOWNLOADS.append(tmp_path / "downloads")
    yield
    _DOWNLOADS.pop()


def fast(**overrides: object) -> FetchSettings:
    """Settings with small timeouts, caps and waits so the suite stays quick.

    These tests are about fetching itself, from a server on 127.0.0.1: private networks
    are allowed here (test_hostile_http.py proves they are refused by default).
    """
    values: dict[str, object] = dict(
        allow_private_network=True,
        download_dir=_DOWNLOADS[-1],
        concurrency=4,
        connect_timeout=1.0,
        read_timeout=0.3,
        total_timeout=5.0,
        retries=2,
        backoff=0.01,
        max_backoff=0.05,
        max_retry_after=0.2,
        max_bytes=64 * 1024,
    )
    values.update(overrides)
    return FetchSettings(**values)  # type: ignore[arg-type]


def fetch_one(server: ImageServer, path: str, **overrides: object) -> FetchResult:
    url = server.url(path)
    return fetch_images_sync([url], fast(**overrides))[url]


# -- good images -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("path", "ext", "size"),
    [
        ("/good.jpg", "jpg", (64, 48)),
        ("/good.png", "png", (40, 30)),
        ("/octet.png", "png", (40, 30)),  # application/octet-stream: decided by decoding
        ("/redirect", "jpg", (64, 48)),  # 302 -> /good.jpg
    ],
)
def test_good_images(image_server: ImageServer, path: str, ext: str, size: tuple[int, int]) -> None:
    result = fetch_one(image_server, path)
    assert result.ok, result.error
    assert result.error is None and result.attempts == 1 and not result.from_cache
    assert result.info is not None
    assert (result.info.ext, result.info.width, result.info.height) == (ext, *size)
    expected = image_server.png if ext == "png" else image_server.jpeg
    assert result.data == expected


# -- every failure becomes a clear message -------------------------------------------
FAILURES = [
    ("/missing", r"^HTTP 404 Not Found$", 1),
    ("/forbidden", r"^HTTP 403 Forbidden$", 1),
    ("/always500", r"^HTTP 500 Internal Server Error \(after 3 attempts\)$", 3),
    ("/slow.jpg", r"^timed out after 3 attempts \(read timeout 0\.3 s\)$", 3),
    ("/huge-length.jpg", r"^larger than the 64 KB limit \(Content-Length 10 GB\)$", 1),
    ("/stream-big.jpg", r"^larger than the 64 KB limit \(download stopped\)$", 1),
    ("/truncated.jpg", r"^truncated JPEG: image file is truncated", 1),
    ("/page.html", r"^content-type text/html is not an image$", 1),
    ("/fake.jpg", r"^not an image \(looks like HTML\) \(served as image/jpeg\)$", 1),
    ("/bomb.png", r"^decompression bomb: 20000×20000 pixels exceeds the 80 MP limit$", 1),
    ("/redirect-loop", r"^too many redirects$", 1),
    ("/dropped.jpg", r"^connection broken: .+ \(after 3 attempts\)$", 3),
]


@pytest.mark.parametrize(("path", "pattern", "attempts"), FAILURES)
def test_failures(image_server: ImageServer, path: str, pattern: str, attempts: int) -> None:
    result = fetch_one(image_server, path)
    assert not result.ok and result.data is None and result.info is None
    assert result.error is not None and re.search(pattern, result.error), result.error
    assert result.attempts == attempts
    if path != "/redirect-loop":  # that one is 11 requests (10 redirects are followed)
        assert image_server.hits[path] == attempts


def test_one_bad_url_never_stops_the_others(image_server: ImageServer) -> None:
    urls = [image_server.url(path) for path, _, _ in FAILURES]
    good = [image_server.url("/good.jpg"), image_server.url("/good.png")]
    urls[3:3] = good  # good ones in the middle of the bad ones
    urls += ["ftp://example.org/a.jpg", "not a url"]
    results = fetch_images_sync(urls, fast(concurrency=8))
    assert list(results) == urls  # one result per URL, in input order
    assert all(results[u].ok for u in good)
    assert sum(r.ok for r in results.values()) == 2
    for (path, pattern, _), url in zip(FAILURES, [u for u in urls if u not in good], strict=False):
        assert results[url].url == url
        assert re.search(pattern, results[url].error or ""), (path, results[url].error)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.org/a.jpg", "unsupported URL scheme 'ftp' (only http and https)"),
        ("file:///etc/passwd", "unsupported URL scheme 'file' (only http and https)"),
        ("images/a.jpg", "not a URL (no http:// or https:// scheme)"),
        ("", "empty URL"),
        ("http:///nohost.jpg", "invalid URL: no host name"),
        ("http://[::1/a.jpg", "invalid URL: "),
        ("http://127.0.0.1:99999/a.jpg", "invalid URL: "),
        ("http://exa\x00mple.org/a.jpg", "invalid URL: "),
    ],
)
def test_rejected_urls(url: str, message: str) -> None:
    result = fetch_images_sync([url], fast())[url]
    assert result.error is not None and result.error.startswith(message)
    assert result.attempts == 0


def test_connection_refused_is_retried_then_reported() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/a.jpg"  # nothing listens there any more
    result = fetch_images_sync([url], fast())[url]
    assert result.attempts == 3
    assert re.match(r"^connection failed: .+ \(after 3 attempts\)$", result.error or "")


# -- retries -----------------------------------------------------------------------
def test_500_then_200_is_retried(image_server: ImageServer) -> None:
    result = fetch_one(image_server, "/flaky.jpg")
    assert result.ok and result.attempts == 2
    assert image_server.hits["/flaky.jpg"] == 2


def test_no_retry_when_retries_is_zero(image_server: ImageServer) -> None:
    result = fetch_one(image_server, "/flaky.jpg", retries=0)
    assert result.error == "HTTP 500 Internal Server Error" and result.attempts == 1


def test_429_honours_retry_after_up_to_the_cap(image_server: ImageServer) -> None:
    start = time.monotonic()
    result = fetch_one(image_server, "/ratelimited.jpg?after=60", max_retry_after=0.2)
    elapsed = time.monotonic() - start
    assert result.ok and result.attempts == 2
    assert 0.2 <= elapsed < 2  # waited the capped 0.2 s, not 60 s


def test_retry_after_beyond_the_total_limit_gives_up_at_once(image_server: ImageServer) -> None:
    start = time.monotonic()
    result = fetch_one(
        image_server, "/ratelimited.jpg?after=30", max_retry_after=60, total_timeout=2
    )
    assert result.error == "HTTP 429 Too Many Requests" and result.attempts == 1
    assert time.monotonic() - start < 5  # far below the 30 s the server asked for


def test_total_timeout_bounds_one_url(image_server: ImageServer) -> None:
    start = time.monotonic()
    result = fetch_one(image_server, "/slow.jpg?s=3", read_timeout=10, total_timeout=0.4)
    assert (
        result.error == "timed out: no complete response within the 0.4 s total limit (1 attempt)"
    )
    assert time.monotonic() - start < 2.5  # the server would take 3 s


# -- concurrency, dedup, progress --------------------------------------------------------
def test_concurrency_is_bounded(image_server: ImageServer) -> None:
    urls = [image_server.url(f"/delay.jpg?s=0.1&i={i}") for i in range(15)]
    # timeouts far above the delay: on a loaded machine a 0.3-s read timeout gave up on
    # a request the server was still answering and retried it, so the server counted 4
    # in flight (and 16 hits) although the client never ran more than 3 at once
    results = fetch_images_sync(urls, fast(concurrency=3, read_timeout=10.0,
                                           total_timeout=30.0))
    assert all(r.ok for r in results.values())
    assert 2 <= image_server.max_in_flight <= 3
    assert sum(image_server.hits.values()) == 15


def test_concurrency_beyond_one_pool_is_reached(image_server: ImageServer) -> None:
    # 20 slots over three pools of at most 8 connections (core.http_pools): more than
    # one pool's worth of downloads run at once, never more than asked for
    urls = [image_server.url(f"/delay.jpg?s=0.5&i={i}") for i in range(40)]
    results = fetch_images_sync(urls, fast(concurrency=20, read_timeout=2.0))
    assert all(r.ok for r in results.values())
    assert 8 < image_server.max_in_flight <= 20


def test_duplicates_are_fetched_once(image_server: ImageServer) -> None:
    url = image_server.url("/good.jpg")
    state = JobState()
    results = fetch_images_sync([url, url, image_server.url("/missing"), url], fast(), state)
    assert list(results) == [url, image_server.url("/missing")]
    assert image_server.hits["/good.jpg"] == 1
    assert (state.total, state.done) == (2, 2)
    assert state.status == "Fetched 2/2 images (1 failed)"


def test_empty_input() -> None:
    assert fetch_images_sync([], fast()) == {}


def test_uses_a_given_client_and_leaves_it_open(image_server: ImageServer) -> None:
    async def main() -> tuple[dict[str, FetchResult], bool]:
        async with httpx.AsyncClient(follow_redirects=True) as client:
            results = await fetch_images([image_server.url("/redirect")], fast(), client=client)
            return results, client.is_closed

    results, closed = asyncio.run(main())
    assert not closed
    assert all(r.ok for r in results.values())


# -- disk cache -----------------------------------------------------------------------
def test_cache_avoids_refetching(image_server: ImageServer, tmp_path: Path) -> None:
    url = image_server.url("/good.png")
    settings = fast(cache_dir=tmp_path / "cache")
    first = fetch_images_sync([url], settings)[url]
    assert first.ok and not first.from_cache
    key = hashlib.sha256(url.encode()).hexdigest()
    entry = tmp_path / "cache" / key[:2] / key
    assert entry.read_bytes() == image_server.png
    assert [p.name for p in entry.parent.iterdir()] == [key]  # no temp files left

    second = fetch_images_sync([url], settings)[url]
    assert second.ok and second.from_cache and second.attempts == 0
    assert second.data == first.data and second.info == first.info
    assert image_server.hits["/good.png"] == 1  # the server was not asked again

    entry.write_bytes(b"garbage")  # a damaged entry is discarded and refetched
    third = fetch_images_sync([url], settings)[url]
    assert third.ok and not third.from_cache
    assert image_server.hits["/good.png"] == 2
    assert entry.read_bytes() == image_server.png


def test_failures_are_not_cached(image_server: ImageServer, tmp_path: Path) -> None:
    settings = fast(cache_dir=tmp_path / "cache")
    url = image_server.url("/truncated.jpg")
    assert not fetch_images_sync([url], settings)[url].ok
    assert not fetch_images_sync([url], settings)[url].ok
    assert image_server.hits["/truncated.jpg"] == 2
    assert not any(p.is_file() for p in (tmp_path / "cache").rglob("*"))


# -- cancellation ---------------------------------------------------------------------
def test_cancel_stops_the_run(image_server: ImageServer) -> None:
    urls = [image_server.url(f"/delay.jpg?s=2&i={i}") for i in range(12)]
    state = JobState(title="fetch")
    timer = threading.Timer(0.2, state.cancel)
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(Cancelled):
            fetch_images_sync(urls, fast(concurrency=2, read_timeout=5), state)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 1.9  # did not wait for the 2 s responses
    assert sum(image_server.hits.values()) <= 2  # pending URLs were never requested
    assert state.done == 0


def test_already_cancelled_state_fetches_nothing(image_server: ImageServer) -> None:
    state = JobState()
    state.cancel()
    with pytest.raises(Cancelled):
        fetch_images_sync([image_server.url("/good.jpg")], fast(), state)
    assert sum(image_server.hits.values()) == 0
