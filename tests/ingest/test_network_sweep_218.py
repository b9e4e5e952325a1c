"""Network sweep, part two (ADR 218), image fetches: TLS failures, more private ranges,
proxies from the environment. Every failure is the URL's own, says what went wrong, and
the other URLs of the batch are fetched."""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
import types
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from core.ingest import netguard
from core.ingest.fetch import fetch_images_sync

try:
    from .http_server import ImageServer, make_image
    from .http_server import fetch_settings as settings
except ImportError:  # pragma: no cover - depends on the layout
    from http_server import ImageServer, make_image  # type: ignore[no-redef]
    from http_server import fetch_settings as settings

pytestmark = pytest.mark.timeout(60)
VERIFY = "the server's TLS certificate could not be verified"


# -- TLS ------------------------------------------------------------------------------------
@pytest.fixture
def ca(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A test CA the client trusts (``SSL_CERT_FILE``); ``img.test`` resolves to 127.0.0.1."""
    pytest.importorskip("cryptography")
    from tls_certs import TestCA

    authority = TestCA(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(authority.pem))

    async def resolver(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    monkeypatch.setattr(netguard, "_system_resolver", resolver)
    return authority


@pytest.mark.parametrize(("cert", "why"), [
    (dict(hosts=["img.test"]), None),  # the control: a good certificate is accepted
    (dict(hosts=["img.test"], self_signed=True), "self-signed certificate"),
    (dict(hosts=["img.test"], expired=True), "certificate has expired"),
    (dict(hosts=["other.test"]), "Hostname mismatch, certificate is not valid for 'img.test'"),
])
def test_a_certificate_that_cannot_be_verified_fails_its_url_alone(
        ca, image_server: ImageServer, tmp_path: Path, cert: dict, why: str | None) -> None:
    tls = ImageServer(tls=ca.server(**cert)).start()
    try:
        url = f"https://img.test:{tls.port}/good.jpg"
        other = image_server.url("/good.jpg")
        both = settings(tmp_path)
        both.trusted = frozenset({("127.0.0.1", tls.port), ("127.0.0.1", image_server.port)})
        results = fetch_images_sync([url, other], both)
    finally:
        tls.stop()
    assert results[other].ok, results[other].error  # the batch goes on
    if why is None:
        assert results[url].ok, results[url].error
        return
    assert results[url].error == f"{VERIFY} ({why})"
    assert results[url].attempts == 1  # retrying cannot fix a certificate
    assert tls.hits == {}  # nothing was sent to the server


def test_plain_http_on_an_https_url_says_the_handshake_failed(image_server: ImageServer,
                                                              tmp_path: Path) -> None:
    url = image_server.url("/good.jpg").replace("http://", "https://")
    result = fetch_images_sync([url], settings(tmp_path, trusted=image_server))[url]
    assert result.error is not None
    assert result.error.startswith("connection failed: the TLS handshake failed (wrong version "
                                   "number; is it an https server?)"), result.error


class _Closer:
    """Accepts connections and closes them in the middle of the TLS handshake: at once
    with a reset (``reset``), or after reading the client's hello (``eof``)."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.host = "127.0.0.1"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(65536 if self.mode == "eof" else 8)
                    if self.mode == "eof":
                        conn.shutdown(socket.SHUT_WR)
                        conn.recv(65536)
                except OSError:
                    pass


@pytest.mark.parametrize("mode", ["reset", "eof"])
def test_a_server_closing_during_the_handshake_is_named_in_words(mode: str,
                                                                 tmp_path: Path) -> None:
    closer = _Closer(mode)
    try:
        url = f"https://127.0.0.1:{closer.port}/good.jpg"
        result = fetch_images_sync([url], settings(tmp_path, trusted=closer))[url]  # type: ignore[arg-type]
    finally:
        closer.sock.close()
    assert result.error is not None and result.error.startswith("connection failed: ")
    detail = result.error.removeprefix("connection failed: ")
    assert not detail.startswith(("ConnectError", "(")), result.error  # was: "ConnectError"


# -- more private ranges --------------------------------------------------------------------
PRIVATE = [
    ("fd00::1", "a private-network address"), ("fc00::1", "a private-network address"),
    ("fdff:ffff::1", "a private-network address"), ("fe80::1", "a link-local address"),
    ("febf::1", "a link-local address"), ("fec0::1", "a site-local address"),
    ("feff::1", "a site-local address"), ("3fff::1", "a documentation address"),
    ("::ffff:a00:1", "a private-network address"), ("::ffff:c0a8:101", "a private-network address"),
    ("::ffff:7f00:1", "a loopback address"), ("::ffff:a9fe:a9fe", "a link-local address"),
    ("::ffff:0.0.0.0", "an unspecified address"),
    ("2002:c0a8:101::1", "a private-network address"), ("2002:a00:1::", "a private-network address"),
    ("2002:7f00:1::", "a loopback address"), ("64:ff9b::c0a8:101", "a private-network address"),
    ("64:ff9b::10.0.0.1", "a private-network address"), ("64:ff9b::7f00:1", "a loopback address"),
    ("64:ff9b:1::a00:1", "a reserved address"), ("0.0.0.0", "an unspecified address"),
    ("::", "an unspecified address"), ("100.64.0.1", "a carrier-grade NAT (shared) address"),
    ("100.127.255.254", "a carrier-grade NAT (shared) address"),
    ("::ffff:100.64.0.1", "a carrier-grade NAT (shared) address"),
    ("198.18.0.1", "a private-network address"), ("198.19.255.254", "a private-network address"),
    ("224.0.0.1", "a multicast address"), ("239.255.255.250", "a multicast address"),
    ("ff02::1", "a multicast address"), ("ff05::1:3", "a multicast address"),
    ("255.255.255.255", "a reserved address"), ("240.0.0.1", "a reserved address"),
]
PUBLIC = ["1.1.1.1", "100.128.0.1", "198.20.0.1", "2606:4700::1111", "::ffff:1.1.1.1",
          "2002:101:101::1", "64:ff9b::101:101", "2a00:1450::1"]


@pytest.mark.parametrize(("address", "words"), PRIVATE)
def test_private_ranges_are_refused_with_their_name(address: str, words: str) -> None:
    assert netguard.address_problem(ipaddress.ip_address(address)) == words


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_pass(address: str) -> None:
    assert netguard.address_problem(ipaddress.ip_address(address)) is None


def test_private_literals_in_urls_are_refused_before_any_connection(tmp_path: Path) -> None:
    urls = [f"http://[{a}]:9/x.jpg" if ":" in a else f"http://{a}:9/x.jpg" for a, _ in PRIVATE]
    urls.append("http://[fe80::1%25lo]:9/x.jpg")
    start = time.monotonic()
    results = fetch_images_sync(urls, settings(tmp_path))
    assert time.monotonic() - start < 10
    for url in urls:
        assert (results[url].error or "").startswith("refused: "), (url, results[url].error)
        assert results[url].attempts == 1


def _unique_local_address() -> str | None:
    """One of this machine's own fc00::/7 addresses (Linux), or None."""
    try:
        lines = Path("/proc/net/if_inet6").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        ip = ipaddress.IPv6Address(int(line.split()[0], 16))
        if ip in ipaddress.ip_network("fc00::/7"):
            return str(ip)
    return None


def test_a_live_server_on_a_unique_local_address_is_refused(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    address = _unique_local_address()
    if address is None:
        pytest.skip("this machine has no fc00::/7 address to serve on")
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    try:
        server = ImageServer(host=address).start()
    except OSError as exc:
        pytest.skip(f"cannot serve on {address}: {exc}")
    try:
        url = server.url("/good.jpg")
        refused = fetch_images_sync([url], settings(tmp_path))[url]
        assert server.hits == {}
        allowed = fetch_images_sync([url], settings(tmp_path / "b",
                                                    allow_private_network=True))[url]
    finally:
        server.stop()
    assert refused.error is not None
    assert refused.error.startswith(f"refused: {address} is a private-network address")
    assert allowed.ok, allowed.error  # the control: the server was there to be reached


# -- proxies from the environment -------------------------------------------------------------
class FakeProxy:
    """An HTTP proxy that records every request it is asked to forward and answers each
    with a JPEG itself (so a fetch through it would succeed: a leak cannot hide)."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        jpeg = make_image("JPEG", (16, 16))
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

            def _answer(self) -> None:
                proxy.seen.append(f"{self.command} {self.path}")
                self.send_response(200)
                self.send_header("Content-Type", "image/jpeg")
                self.send_header("Content-Length", str(len(jpeg)))
                self.end_headers()
                self.wfile.write(jpeg)

            do_GET = do_CONNECT = _answer  # noqa: N815 - stdlib names

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def proxy(image_server: ImageServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProxy]:
    """A fake proxy named by every proxy variable (set after ``image_server`` cleared them)."""
    fake = FakeProxy()
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy"):
        monkeypatch.setenv(name, fake.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    try:
        yield fake
    finally:
        fake.close()


def test_guarded_fetches_ignore_proxies_private_targets_never_reach_one(
        proxy: FakeProxy, image_server: ImageServer, tmp_path: Path) -> None:
    private = ["http://10.0.0.1/a.jpg", "http://192.168.1.1/admin.jpg",
               "http://169.254.169.254/latest/meta-data", image_server.url("/good.jpg"),
               "http://[fd00::1]/x.jpg"]
    results = fetch_images_sync(private, settings(tmp_path))
    for url in private:
        assert (results[url].error or "").startswith("refused: "), (url, results[url].error)
    assert proxy.seen == [] and image_server.hits == {}


def test_guarded_fetches_of_allowed_hosts_connect_directly(proxy: FakeProxy,
                                                           image_server: ImageServer,
                                                           tmp_path: Path) -> None:
    url = image_server.url("/good.jpg")  # the one "public" server the test allows
    result = fetch_images_sync([url], settings(tmp_path, trusted=image_server))[url]
    assert result.ok, result.error
    assert proxy.seen == [] and image_server.hits["/good.jpg"] == 1


def test_with_private_networks_allowed_the_proxy_decides(proxy: FakeProxy,
                                                         image_server: ImageServer,
                                                         tmp_path: Path) -> None:
    """ADR 002: the check is off, the user's proxy is used (a mirror behind a proxy)."""
    url = image_server.url("/good.jpg")
    result = fetch_images_sync([url], settings(tmp_path, allow_private_network=True))[url]
    assert result.ok, result.error
    assert proxy.seen == [f"GET {url}"] and image_server.hits == {}


def test_a_direct_connection_that_fails_behind_a_proxy_says_the_proxy_was_not_used(
        proxy: FakeProxy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A corporate network that lets only its proxy out: the failure says why."""
    with socket.create_server(("127.0.0.1", 0)) as sock:
        port = sock.getsockname()[1]  # closed again: nothing listens there
    url = f"http://127.0.0.1:{port}/x.jpg"
    closed = types.SimpleNamespace(host="127.0.0.1", port=port)
    behind = fetch_images_sync([url], settings(tmp_path, trusted=closed))[url]  # type: ignore[arg-type]
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy"):
        monkeypatch.delenv(name)
    direct = fetch_images_sync([url], settings(tmp_path, trusted=closed))[url]  # type: ignore[arg-type]
    note = ("(images are fetched directly, not through the environment's proxy, while "
            "private networks are refused; ADR 218)")
    assert behind.error is not None and note in behind.error, behind.error
    assert direct.error is not None and note not in direct.error, direct.error
    assert proxy.seen == []


def test_the_import_names_the_url_whose_certificate_failed_and_goes_on(
        ca, project, image_server: ImageServer, tmp_path: Path) -> None:
    import json

    from core.ingest.importer import import_jsonl

    tls = ImageServer(tls=ca.server(hosts=["img.test"], self_signed=True)).start()
    good = image_server.url("/good.jpg")
    bad = f"https://alice:hunter2@img.test:{tls.port}/good.jpg?token=tok3n"
    src = tmp_path / "posts.jsonl"
    src.write_text("\n".join(json.dumps({"id": f"p{k}", "text": "t", "image_urls": [u]})
                             for k, u in enumerate([good, bad])) + "\n")
    both = settings(tmp_path, cache_dir=tmp_path / "cache")
    both.trusted = frozenset({("127.0.0.1", tls.port), ("127.0.0.1", image_server.port)})
    try:
        report = import_jsonl(project, src, fetch_settings=both)
    finally:
        tls.stop()
    assert report.images_fetched == 1 and report.images_failed == 1
    [err] = report.image_errors
    assert err["lines"] == [2]
    assert err["error"] == f"{VERIFY} (self-signed certificate)"
    assert err["url"] == f"https://***@img.test:{tls.port}/good.jpg?token=***"
    assert project.conn.execute("SELECT count(*) FROM posts").fetchone()[0] == 2


def test_no_code_turns_certificate_checks_off() -> None:
    import re

    repo = Path(__file__).resolve().parents[2]
    off = re.compile(r"verify\s*=\s*False|CERT_NONE|check_hostname\s*=\s*False|"
                     r"_create_unverified_context|PYTHONHTTPSVERIFY")
    found = [f"{path.relative_to(repo)}: {m.group(0)}"
             for folder in ("core", "ui", "app") for path in (repo / folder).rglob("*.py")
             for m in off.finditer(path.read_text(encoding="utf-8"))]
    assert (repo / "core" / "http_pools.py").is_file() and found == [], found
