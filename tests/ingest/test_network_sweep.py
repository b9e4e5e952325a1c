"""Network sweep (ADR 214): more disguises of the user's own network, odd schemes and
hostile servers, each refused per URL, in bounded time, naming nothing secret."""

from __future__ import annotations

import time
from collections.abc import Iterator
from urllib.parse import quote

import pytest

from core.ingest import netguard
from core.ingest.fetch import fetch_images_sync

try:
    from .http_server import ImageServer
    from .http_server import fetch_settings as settings
except ImportError:  # pragma: no cover - depends on the layout
    from http_server import ImageServer  # type: ignore[no-redef]
    from http_server import fetch_settings as settings

pytestmark = pytest.mark.timeout(60)


MORE_SPELLINGS = [
    "http://0x7f.1:{p}/good.jpg", "http://017700000001:{p}/good.jpg",
    "http://[0:0:0:0:0:ffff:7f00:1]:{p}/good.jpg", "http://[::ffff:7f00:1]:{p}/good.jpg",
    "http://localhost.:{p}/good.jpg", "http://LOCALHOST:{p}/good.jpg",
    "http://LocalHost.:{p}/good.jpg", "http://public@127.0.0.1:{p}/good.jpg",
    "http://example.com@127.0.0.1:{p}/good.jpg", "http://127.0.0.1.:{p}/good.jpg",
    "http://%31%32%37.0.0.1:{p}/good.jpg", "http://127.0.0.1:{p}/" + "a" * 20000,
    "HTTP://127.0.0.1:{p}/good.jpg", " http://127.0.0.1:{p}/good.jpg ",
    "http:\\\\127.0.0.1:{p}\\good.jpg", "http:/127.0.0.1:{p}/good.jpg",
    "http:127.0.0.1:{p}/good.jpg", "//127.0.0.1:{p}/good.jpg", "127.0.0.1:{p}/good.jpg",
    "file:///etc/passwd", "ftp://127.0.0.1:{p}/good.jpg", "data:image/png;base64,AAAA",
    "gopher://127.0.0.1:{p}/_GET", "jar:http://127.0.0.1:{p}/x!/good.jpg",
    "http://xn--lcalhost-9za:{p}/good.jpg", "http://ⓛocalhost:{p}/good.jpg",
    "http://[::1%25lo]:{p}/good.jpg", "http://127.0.0.1:{p}@example.com/good.jpg",
]


def test_more_loopback_disguises_never_reach_the_server(image_server, tmp_path) -> None:
    urls = [u.format(p=image_server.port) for u in MORE_SPELLINGS]
    start = time.monotonic()
    results = fetch_images_sync(urls, settings(tmp_path))
    assert time.monotonic() - start < 30
    for url in urls:
        assert results[url].error, (url, "fetched")
        assert not results[url].error.startswith("unexpected error"), (url, results[url].error)
    assert sum(image_server.hits.values()) == 0, image_server.hits


def test_a_name_that_resolves_to_loopback_is_refused(image_server, tmp_path,
                                                     monkeypatch) -> None:
    async def resolver(host: str, port: int) -> list[str]:
        return ["127.0.0.1"] if host.rstrip(".").lower().endswith("localtest.me") else []

    monkeypatch.setattr(netguard, "_system_resolver", resolver)
    urls = [f"http://localtest.me:{image_server.port}/good.jpg",
            f"http://a.LOCALTEST.me.:{image_server.port}/good.jpg"]
    results = fetch_images_sync(urls, settings(tmp_path))
    for url in urls:
        assert "refused: " in (results[url].error or ""), results[url].error
    assert sum(image_server.hits.values()) == 0


def test_the_connection_goes_to_the_address_checked(image_server, tmp_path,
                                                    monkeypatch) -> None:
    """Rebinding: the check resolves once and connects to that very address; a second
    answer (private, here) is never asked for, the first (trusted) is used."""
    answers = iter([["127.0.0.1"]] + [["10.0.0.1"]] * 10)
    asked: list[str] = []

    async def resolver(host: str, port: int) -> list[str]:
        asked.append(host)
        return next(answers)

    monkeypatch.setattr(netguard, "_system_resolver", resolver)
    url = f"http://rebind.test:{image_server.port}/good.jpg"
    result = fetch_images_sync([url], settings(tmp_path, trusted=image_server))[url]
    assert result.ok, result.error
    assert asked == ["rebind.test"]


@pytest.fixture
def other_server(image_server: ImageServer) -> Iterator[ImageServer]:
    """A second server on 127.0.0.1 that is never trusted: a redirect's loopback target."""
    server = ImageServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_every_redirect_code_to_loopback_is_refused(image_server, other_server, tmp_path,
                                                    code) -> None:
    target = f"http://0x7f.1:{other_server.port}/good.jpg"
    url = image_server.url(f"/redirect-to?code={code}&u={target}")
    result = fetch_images_sync([url], settings(tmp_path, trusted=image_server))[url]
    assert "refused: " in (result.error or ""), result.error
    assert sum(other_server.hits.values()) == 0


def test_a_redirect_chain_ending_in_loopback_is_refused(image_server, other_server,
                                                        tmp_path) -> None:
    final = f"http://2130706433:{other_server.port}/good.jpg"
    hop2 = image_server.url(f"/redirect-to?code=307&u={final}")
    hop1 = image_server.url(f"/redirect-to?code=301&u={quote(hop2, safe='')}")
    result = fetch_images_sync([hop1], settings(tmp_path, trusted=image_server))[hop1]
    assert "refused: " in (result.error or ""), result.error
    assert image_server.hits.get("/redirect-to?code=307&u=" + final, 0) == 1  # hop 2 asked
    assert sum(other_server.hits.values()) == 0


def test_absurd_retry_after_is_capped(image_server, tmp_path) -> None:
    url = image_server.url("/ratelimited.jpg?after=999999999")
    start = time.monotonic()
    result = fetch_images_sync([url], settings(tmp_path, trusted=image_server,
                                               max_retry_after=0.2))[url]
    assert time.monotonic() - start < 6
    assert result.ok or "429" in (result.error or ""), result.error


def test_userinfo_is_not_in_the_error(image_server, tmp_path) -> None:
    url = f"http://alice:hunter2@127.0.0.1:{image_server.port}/good.jpg"
    result = fetch_images_sync([url], settings(tmp_path))[url]
    assert result.error and "hunter2" not in result.error


def test_the_import_report_names_a_failed_url_without_its_secrets(project, tmp_path,
                                                                   image_server) -> None:
    import json

    from core.ingest.importer import import_jsonl

    good = image_server.url("/good.jpg")
    bad = (f"http://alice:hunter2@127.0.0.1:{image_server.port}/missing"
           "?X-Amz-Signature=s3cr3tsig&token=tok3n")
    src = tmp_path / "posts.jsonl"
    src.write_text("\n".join(json.dumps({"id": f"p{k}", "text": "t", "image_urls": [u]})
                             for k, u in enumerate([good, bad])) + "\n")
    report = import_jsonl(project, src, fetch_settings=settings(
        tmp_path, trusted=image_server, cache_dir=tmp_path / "cache"))
    assert report.images_fetched == 1 and report.images_failed == 1
    [err] = report.image_errors
    assert err["lines"] == [2] and "HTTP 404" in err["error"]
    shown = json.dumps(report.to_dict()) if hasattr(report, "to_dict") else repr(report)
    for secret in ("hunter2", "s3cr3tsig", "tok3n"):
        assert secret not in shown, shown
    assert f"127.0.0.1:{image_server.port}/missing" in err["url"]
    assert project.conn.execute("SELECT count(*) FROM posts").fetchone()[0] == 2  # kept
