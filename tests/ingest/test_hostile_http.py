"""A hostile web (issue 13 item 2 and its HTTP tests): private networks refused by default
in every spelling and after every redirect; endless, dripping, bomb-like and lying
responses each refused per URL in bounded time and memory."""

from __future__ import annotations

import asyncio
import ipaddress
import time
import tracemalloc
from collections.abc import Iterator

import pytest

from core.ingest.fetch import fetch_images_sync
from core.ingest.importer import import_jsonl
from core.ingest.netguard import BlockedAddressError, NetworkPolicy, address_problem
from core.store import Project

try:
    from .http_server import ImageServer, make_gzip_bomb
    from .http_server import fetch_settings as settings
except ImportError:  # pragma: no cover - depends on the layout
    from http_server import ImageServer, make_gzip_bomb  # type: ignore[no-redef]
    from http_server import fetch_settings as settings

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def other_server(image_server: ImageServer) -> Iterator[ImageServer]:
    """A second server on 127.0.0.1 that is never trusted: a redirect's loopback target."""
    server = ImageServer().start()
    try:
        yield server
    finally:
        server.stop()


# -- private networks ----------------------------------------------------------------
SPELLINGS = ["http://127.0.0.1:{p}/good.jpg", "http://localhost:{p}/good.jpg",
             "http://2130706433:{p}/good.jpg", "http://0x7f000001:{p}/good.jpg",
             "http://0177.0.0.1:{p}/good.jpg", "http://127.1:{p}/good.jpg",
             "http://user:pass@127.0.0.1:{p}/good.jpg", "http://[::1]:{p}/good.jpg",
             "http://[::ffff:127.0.0.1]:{p}/good.jpg", "http://0.0.0.0:{p}/good.jpg"]


def test_loopback_in_every_spelling_is_refused_by_default(image_server, tmp_path) -> None:
    urls = [u.format(p=image_server.port) for u in SPELLINGS]
    results = fetch_images_sync(urls, settings(tmp_path))
    for url in urls:
        error = results[url].error or ""
        if "0177." in url:  # httpx itself rejects octal spellings
            assert error.startswith("invalid URL: Invalid IPv4 address"), error
            continue
        assert error.startswith("refused: ") and "--allow-private-network" in error, (url, error)
    assert sum(image_server.hits.values()) == 0  # not one request reached the server
    assert "loopback" in results[urls[2]].error  # 2130706433 is 127.0.0.1


def test_allowed_when_asked(image_server, tmp_path) -> None:
    url = f"http://localhost:{image_server.port}/good.jpg"
    result = fetch_images_sync([url], settings(tmp_path, allow_private_network=True))[url]
    assert result.ok and result.data == image_server.jpeg


@pytest.mark.parametrize("target", [
    "http://127.0.0.1:{p}/good.jpg", "http://localhost:{p}/good.jpg",
    "http://2130706433:{p}/good.jpg", "http://admin:x@127.0.0.1:{p}/good.jpg",
    "http://[::1]:{p}/good.jpg",
])
def test_redirect_to_loopback_is_refused(image_server, other_server, tmp_path, target) -> None:
    """The first hop is trusted (the test's own server); the loopback hop is not."""
    hop = target.format(p=other_server.port)
    url = image_server.url(f"/redirect-to?u={hop}")
    result = fetch_images_sync([url], settings(tmp_path, trusted=image_server))[url]
    assert result.error is not None and result.error.startswith("refused: "), result.error
    assert sum(other_server.hits.values()) == 0
    assert image_server.hits[f"/redirect-to?u={hop}"] == 1  # refused, not retried


def test_redirect_to_another_scheme_is_refused(image_server, tmp_path) -> None:
    url = image_server.url("/redirect-to?u=file:///etc/passwd")
    result = fetch_images_sync([url], settings(tmp_path, trusted=image_server))[url]
    assert "redirected to an unusable URL (unsupported URL scheme 'file'" in (result.error or "")


@pytest.mark.parametrize(("address", "words"), [
    ("127.0.0.1", "loopback"), ("127.255.0.9", "loopback"), ("::1", "loopback"),
    ("10.1.2.3", "private"), ("172.16.0.1", "private"), ("192.168.1.1", "private"),
    ("fd00::1", "private"), ("169.254.169.254", "link-local"), ("fe80::1", "link-local"),
    ("224.0.0.1", "multicast"), ("ff02::1", "multicast"), ("0.0.0.0", "unspecified"),
    ("::", "unspecified"), ("240.0.0.1", "reserved"), ("100.64.0.1", "carrier-grade NAT"),
    ("::ffff:10.0.0.1", "private"), ("2002:7f00:1::", "loopback"),
    ("64:ff9b::a9fe:a9fe", "link-local"), ("198.18.0.1", "private"),
])
def test_address_policy(address: str, words: str) -> None:
    problem = address_problem(ipaddress.ip_address(address))
    assert problem is not None and words in problem


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:2800:220:1::", "8.8.8.8"])
def test_public_addresses_pass(address: str) -> None:
    assert address_problem(ipaddress.ip_address(address)) is None


def test_every_resolved_address_is_checked() -> None:
    async def resolver(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "192.168.0.10"]  # a public and a private answer

    policy = NetworkPolicy(resolver=resolver)
    with pytest.raises(BlockedAddressError, match=r"example\.test \(192\.168\.0\.10\) is a "):
        asyncio.run(policy.addresses("example.test", 80))


# -- hostile responses ------------------------------------------------------------------
HOSTILE = [
    ("/endless.jpg", "larger than the 256 KB limit (download stopped)"),
    ("/huge-length.jpg", "larger than the 256 KB limit (Content-Length 10 GB)"),
    ("/drip.jpg", "timed out: no complete response within the 4 s total limit"),
    ("/gzip-bomb.jpg", "larger than the 256 KB limit (download stopped)"),
    ("/brotli.jpg", "br-compressed body"),
    ("/page.html", "content-type text/html is not an image"),
    ("/fake.jpg", "not an image (looks like HTML)"),
    ("/bomb.png", "decompression bomb"),
    ("/redirect-loop", "too many redirects"),
]


def test_hostile_responses_each_refused_in_bounded_time_and_memory(image_server,
                                                                   tmp_path) -> None:
    make_gzip_bomb()  # built before the clock starts (the server sends it at once)
    urls = [image_server.url(path) for path, _ in HOSTILE] + [image_server.url("/good.jpg")]
    start = time.monotonic()
    tracemalloc.start()
    try:
        results = fetch_images_sync(urls, settings(tmp_path, trusted=image_server,
                                                   concurrency=len(urls)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    elapsed = time.monotonic() - start
    for (path, expected), url in zip(HOSTILE, urls, strict=False):
        assert expected in (results[url].error or ""), (path, results[url].error)
    assert results[urls[-1]].ok  # the good one among them is still fetched
    assert peak < 32 * 2**20, f"peak {peak / 2**20:.0f} MB"  # a gzip bomb is 256 MB inflated
    assert elapsed < 20  # every URL is bounded by its 4 s total limit (and they run at once)
    assert not [p for p in (tmp_path / "dl").rglob("*") if p.is_file()
                and p != results[urls[-1]].path]  # refused bodies leave nothing behind


def test_images_streamed_to_disk_peak_memory_does_not_grow_with_count(image_server,
                                                                      tmp_path) -> None:
    """40 downloads of ~200 KB each: peak Python memory stays near one body, not 40."""
    big = ImageServer.big_jpeg()
    image_server.extra["/big.jpg"] = big
    urls = [image_server.url(f"/big.jpg?i={k}") for k in range(40)]
    lines = [{"id": f"p{k}", "text": "t", "image_urls": [u]} for k, u in enumerate(urls)]
    src = tmp_path / "s.jsonl"
    src.write_text("\n".join(__import__("json").dumps(x) for x in lines))
    with Project.create(tmp_path / "p.winnow") as project:
        tracemalloc.start()
        try:
            report = import_jsonl(project, src, fetch_settings=settings(
                tmp_path, trusted=image_server, max_bytes=8 * 2**20, cache_dir=tmp_path / "c"))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert report.images_fetched == 40 and report.images_failed == 0
        assert peak < 15 * len(big), f"peak {peak / 2**20:.1f} MB for 40 × {len(big) / 2**20:.1f} MB"


# -- the cache does not get around the refusal (ADR 183) ---------------------------------
def test_a_cached_private_image_is_refused_without_the_flag(image_server, tmp_path) -> None:
    url = image_server.url("/good.jpg")  # 127.0.0.1
    cache = tmp_path / "cache"
    mine = fetch_images_sync([url], settings(tmp_path, allow_private_network=True,
                                             cache_dir=cache))[url]
    assert mine.ok
    theirs = fetch_images_sync([url], settings(tmp_path, cache_dir=cache))[url]
    assert not theirs.from_cache and theirs.error is not None
    assert theirs.error.startswith("refused: ") and "loopback" in theirs.error, theirs.error
    assert image_server.hits["/good.jpg"] == 1  # refused by the guard, not fetched again
    again = fetch_images_sync([url], settings(tmp_path, allow_private_network=True,
                                              cache_dir=cache))[url]
    assert again.ok and again.from_cache  # with the flag the entry still serves


def test_a_cached_redirect_to_a_private_host_is_refused_without_the_flag(
        image_server, other_server, tmp_path) -> None:
    """The first hop is allowed (trusted); the cached body came from the loopback hop."""
    hop = other_server.url("/good.jpg")
    url = image_server.url(f"/redirect-to?u={hop}")
    cache = tmp_path / "cache"
    mine = fetch_images_sync([url], settings(tmp_path, allow_private_network=True,
                                             cache_dir=cache))[url]
    assert mine.ok and other_server.hits["/good.jpg"] == 1
    theirs = fetch_images_sync([url], settings(tmp_path, trusted=image_server,
                                               cache_dir=cache))[url]
    assert not theirs.from_cache and (theirs.error or "").startswith("refused: "), theirs.error
    assert other_server.hits["/good.jpg"] == 1


def test_an_entry_fetched_through_the_guard_is_served_from_the_cache(image_server,
                                                                     tmp_path) -> None:
    url = image_server.url("/good.jpg")
    guarded = settings(tmp_path, trusted=image_server, cache_dir=tmp_path / "cache")
    assert fetch_images_sync([url], guarded)[url].ok
    again = fetch_images_sync([url], guarded)[url]
    assert again.ok and again.from_cache and again.attempts == 0
    assert image_server.hits["/good.jpg"] == 1


def test_a_refetch_with_the_flag_takes_back_the_guards_word(image_server, tmp_path) -> None:
    """A guarded entry replaced by a download made with the flag no longer serves a
    fetch without it."""
    url = image_server.url("/good.jpg")
    cache = tmp_path / "cache"
    assert fetch_images_sync([url], settings(tmp_path, trusted=image_server,
                                             cache_dir=cache))[url].ok
    entry = next(p for p in cache.rglob("*") if p.is_file() and p.name.isalnum())
    entry.write_bytes(b"damaged")  # so the next fetch downloads it again
    assert fetch_images_sync([url], settings(tmp_path, allow_private_network=True,
                                             cache_dir=cache))[url].ok
    assert image_server.hits["/good.jpg"] == 2
    theirs = fetch_images_sync([url], settings(tmp_path, cache_dir=cache))[url]
    assert (theirs.error or "").startswith("refused: "), theirs.error


def test_a_strangers_file_does_not_link_a_cached_private_image(image_server,
                                                               tmp_path) -> None:
    """The report's case: `import posts --allow-private-network`, then a stranger's file
    naming the same URL, imported without the flag."""
    url = image_server.url("/good.jpg")
    cache = tmp_path / "cache"
    mine = tmp_path / "mine.jsonl"
    mine.write_text(f'{{"id":"mirror","text":"t","image_urls":["{url}"]}}\n')
    theirs = tmp_path / "theirs.jsonl"
    theirs.write_text(f'{{"id":"stranger","text":"t","image_urls":["{url}"]}}\n')
    with Project.create(tmp_path / "p.winnow") as project:
        first = import_jsonl(project, mine, fetch_settings=settings(
            tmp_path, allow_private_network=True, cache_dir=cache))
        assert first.images_fetched == 1
        second = import_jsonl(project, theirs, fetch_settings=settings(tmp_path,
                                                                       cache_dir=cache))
        assert second.images_fetched == 0 and second.images_failed == 1
        assert second.image_errors[0]["error"].startswith("refused: ")
        linked = project.conn.execute(
            "SELECT sha256 FROM post_images WHERE post_id = 'stranger'").fetchone()
        assert linked == (None,)
