"""A server that does not answer is not asked again in that fetch (ADR 193).

Before, every URL of a dead or hung image host cost its whole total timeout (a minute
by default, with its retries): an import of 10,000 posts whose images sit on one dead
host waited a minute per image, eight at a time, about 21 hours.  Now a host whose
downloads fail ``HOST_BREAK_AFTER`` times in a row for want of an answer is given up
on; its other URLs fail at once, each with a message that says why.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from test_fetch import _DOWNLOADS, fast
from test_importer import write_jsonl

from core.ingest.fetch import HOST_BREAK_AFTER, fetch_images_sync
from core.ingest.fetch_hosts import Hosts
from core.ingest.importer import import_jsonl

try:
    from .http_server import ImageServer
except ImportError:  # pragma: no cover - depends on the layout
    from http_server import ImageServer  # type: ignore[no-redef]

pytestmark = pytest.mark.timeout(60)
N = 30


@pytest.fixture(autouse=True)
def _download_dir(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Bodies go to disk: each test its own folder (as in test_fetch.py, whose ``fast``
    settings these are)."""
    _DOWNLOADS.append(tmp_path / "downloads")
    yield
    _DOWNLOADS.pop()


def _closed_port() -> int:
    """A port on 127.0.0.1 nobody listens on (connections are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_hung_host_is_asked_a_bounded_number_of_times(image_server) -> None:
    urls = [image_server.url(f"/slow.jpg?k={k}") for k in range(N)]
    good = [image_server.url(f"/good.jpg?k={k}") for k in range(3)]
    results = fetch_images_sync(urls, fast(concurrency=4, retries=1))
    asked = sum(n for path, n in image_server.hits.items() if path.startswith("/slow.jpg"))
    # those that broke it, and those already started: at most one window of downloads
    assert asked <= (HOST_BREAK_AFTER + 4) * 2 < N * 2
    assert not any(r.ok for r in results.values())
    given_up = [r for r in results.values() if r.error.startswith("not fetched:")]
    assert len(given_up) >= N - HOST_BREAK_AFTER - 4
    assert all(f"127.0.0.1:{image_server.port} failed {HOST_BREAK_AFTER} downloads in a row"
               in r.error and "read timeout" in r.error and r.attempts == 0
               for r in given_up)
    # another fetch asks again (a host is given up on for one fetch only)
    assert all(r.ok for r in fetch_images_sync(good, fast()).values())


def test_a_refusing_port_does_not_stop_another_server_on_the_same_host(image_server) -> None:
    dead = _closed_port()
    urls = [f"http://127.0.0.1:{dead}/x{k}.jpg" for k in range(N)]
    good = [image_server.url(f"/good.jpg?k={k}") for k in range(N)]
    mixed = [u for pair in zip(urls, good, strict=True) for u in pair]
    results = fetch_images_sync(mixed, fast(concurrency=4, retries=2))
    assert all(results[u].ok for u in good)
    assert sum(results[u].attempts for u in urls) <= (HOST_BREAK_AFTER + 4) * 3
    assert all("connection failed" in results[u].error for u in urls)
    assert sum(results[u].error.startswith("not fetched:") for u in urls) >= N - 9


def test_answers_that_refuse_one_image_do_not_stop_a_host(image_server) -> None:
    """A 404, a web page, a too-large body: the server answers, so every URL is asked."""
    urls = [image_server.url(f"/{name}?k={k}") for k in range(12)
            for name in ("missing", "page.html", "huge-length.jpg")]
    results = fetch_images_sync(urls, fast())
    assert len(results) == 36 and not any(r.ok for r in results.values())
    assert not any("not fetched" in r.error for r in results.values())
    assert sum(image_server.hits.values()) == 36


def test_an_answer_between_failures_starts_the_count_again() -> None:
    hosts = Hosts()
    for _ in range(3):
        for _ in range(HOST_BREAK_AFTER - 1):
            hosts.unanswered("http://h/a", "timed out")
        hosts.answered("http://h/b")
    assert hosts.given_up("http://h/c") is None
    for _ in range(HOST_BREAK_AFTER):
        hosts.unanswered("http://H/a", "timed out")  # host names are compared without case
    assert hosts.given_up("http://h/c") is not None
    assert hosts.given_up("http://h:8080/c") is None  # another port, another server


@pytest.mark.parametrize(("dead", "same", "other"), [
    # the default port, written or not; a name with its root's trailing dot
    ("http://h.example/a", ["http://h.example:80/b", "http://H.EXAMPLE./c"],
     ["https://h.example/d", "http://h.example:8080/e"]),
    # https: port 443 (whatever the scheme); http on the same name is port 80, another
    ("https://h.example/a", ["https://h.example:443/b", "https://user@h.example/c",
                             "http://h.example:443/e"], ["http://h.example/d"]),
    # port 0 (never connects) is not the default port
    ("http://h.example:0/a", ["http://h.example:0/b"], ["http://h.example/c"]),
    # IPv6 literals, however their digits are written
    ("http://[::1]:8080/a", ["http://[0:0::1]:8080/b"], ["http://[::1]/c"]),
    ("http://[2001:DB8::1]/a", ["http://[2001:db8::1]:80/b"], ["http://[2001:db8::2]/c"]),
])
def test_a_server_is_its_host_and_port_however_the_url_writes_them(dead, same,
                                                                   other) -> None:
    hosts = Hosts()
    for _ in range(HOST_BREAK_AFTER):
        hosts.unanswered(dead, "connection failed")
    assert all(hosts.given_up(u) is not None for u in same)
    assert all(hosts.given_up(u) is None for u in other)


def test_the_message_names_the_server_unambiguously_and_no_credentials() -> None:
    hosts = Hosts()
    for url in ("http://user:secret@[::1]:8080/a", "https://user:secret@Example.com/a"):
        for _ in range(HOST_BREAK_AFTER):
            hosts.unanswered(url, "connection failed")
    assert hosts.given_up("http://[::1]:8080/b").startswith(
        "not fetched: [::1]:8080 failed 5 downloads in a row (last: connection failed)")
    assert hosts.given_up("https://example.com/b").startswith(
        "not fetched: example.com:443 failed")
    assert not any("secret" in m or "user" in m for m in hosts.broken.values())


def test_a_live_host_that_redirects_to_a_dead_one_is_not_blamed(image_server) -> None:
    """A redirector (a CDN, a shortener) whose targets are down answered every request:
    the dead target is the server given up on, and the redirector's own images come."""
    dead = _closed_port()
    redirects = [image_server.url(f"/redirect-to?u=http://127.0.0.1:{dead}/x{k}.jpg")
                 for k in range(HOST_BREAK_AFTER + 3)]
    good = [image_server.url(f"/good.jpg?k={k}") for k in range(3)]
    results = fetch_images_sync(redirects + good, fast(concurrency=1, retries=0))
    assert all(results[u].ok for u in good)
    errors = [results[u].error for u in redirects]
    assert all("connection failed" in e for e in errors[:HOST_BREAK_AFTER])
    # later redirects to the dead server are not followed: they fail at once, naming it
    assert all(e.startswith(f"not fetched: 127.0.0.1:{dead} failed {HOST_BREAK_AFTER}")
               for e in errors[HOST_BREAK_AFTER:])
    assert image_server.hits["/good.jpg?k=0"] == 1


def test_a_redirect_to_a_server_given_up_on_is_not_followed(image_server) -> None:
    dead = _closed_port()
    direct = [f"http://127.0.0.1:{dead}/x{k}.jpg" for k in range(HOST_BREAK_AFTER)]
    redirect = image_server.url(f"/redirect-to?u=http://127.0.0.1:{dead}/y.jpg")
    results = fetch_images_sync([*direct, redirect], fast(concurrency=1, retries=0))
    assert results[redirect].error.startswith(f"not fetched: 127.0.0.1:{dead} failed")
    assert results[redirect].attempts == 1  # the redirector was asked, the dead one not


def test_images_given_up_on_are_fetched_when_the_file_is_imported_again(
        project, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    server = ImageServer()  # bound, not serving yet: connections hang unanswered
    lines = [{"id": f"p{k}", "text": "t", "image_urls": [server.url(f"/good.jpg?k={k}")]}
             for k in range(12)]
    src = write_jsonl(tmp_path / "posts.jsonl", lines)
    settings = fast(concurrency=2, retries=0, read_timeout=0.3, total_timeout=1.0,
                    download_dir=None, cache_dir=tmp_path / "cache")
    first = import_jsonl(project, src, fetch_settings=settings)
    assert first.images_failed == 12 and first.images_fetched == 0
    errors = [e["error"] for e in first.image_errors]
    assert sum(e.startswith("not fetched:") for e in errors) >= 12 - HOST_BREAK_AFTER - 2
    server.start()
    try:
        again = import_jsonl(project, src, fetch_settings=settings)
    finally:
        server.stop()
    assert again.images_fetched == 12 and again.images_failed == 0
    missing = project.conn.execute("SELECT count(*) FROM post_images WHERE sha256 IS NULL")
    assert missing.fetchone()[0] == 0


def test_cached_images_of_a_server_given_up_on_are_still_served(tmp_path: Path,
                                                                 monkeypatch) -> None:  # type: ignore[no-untyped-def]
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    server = ImageServer().start()
    cached = [server.url(f"/good.jpg?k={k}") for k in range(3)]
    settings = fast(concurrency=1, retries=0, download_dir=None, cache_dir=tmp_path / "c")
    try:
        assert all(r.ok for r in fetch_images_sync(cached, settings).values())
    finally:
        server.stop()  # the port now refuses: the server is down
    missing = [server.url(f"/good.jpg?new={k}") for k in range(HOST_BREAK_AFTER + 2)]
    results = fetch_images_sync([*missing, *cached], settings)
    assert results[missing[-1]].error.startswith("not fetched:")
    assert all(results[u].ok and results[u].from_cache for u in cached)
