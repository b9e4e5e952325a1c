"""A real HTTP server on 127.0.0.1 for the image-fetch tests, plus image builders.

Each route reproduces one thing the internet does to an image download (404,
flaky 500, slow server, lying Content-Length, HTML instead of a picture…).  The
server counts requests per path and the peak number of requests in flight.
Every sleep is bounded and wakes up when the server stops.
"""

from __future__ import annotations

import functools
import io
import socket
import ssl
import struct
import threading
import zlib
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from PIL import Image

from core.ingest.fetch import FetchSettings

HTML = b"<!DOCTYPE html><html><head><title>Login</title></head><body>Sign in</body></html>"


def make_image(fmt: str = "JPEG", size: tuple[int, int] = (64, 48)) -> bytes:
    """A small noisy image encoded as ``fmt``."""
    buf = io.BytesIO()
    Image.effect_noise(size, 40).convert("RGB").save(buf, fmt)
    return buf.getvalue()


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    return (
        struct.pack(">I", len(payload))
        + kind
        + payload
        + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)
    )


def make_bomb_png(width: int = 20000, height: int = 20000) -> bytes:
    """A few hundred bytes of PNG whose header declares ``width``×``height`` 1-bit pixels."""
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # 1-bit greyscale
    row = b"\x00" * (1 + (width + 7) // 8)
    idat = zlib.compress(row * 4, 9)  # only the first rows: never decoded anyway
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", ihdr)
        + _png_chunk(b"IDAT", idat)
        + _png_chunk(b"IEND", b"")
    )


@functools.cache
def make_gzip_bomb(size: int = 2**28) -> bytes:
    """gzip of ``size`` zero bytes (256 MB → about 260 KB), built once per test run."""
    import gzip

    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as gz:
        block = b"\0" * 2**20
        for _ in range(size // len(block)):
            gz.write(block)
    return out.getvalue()


class _V6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


class ImageServer:
    """Threaded HTTP server with fault-injecting routes (see ``_Handler.do_GET``), on
    ``host`` (an IPv6 address too), speaking https when given a ``tls`` context."""

    def __init__(self, host: str = "127.0.0.1", tls: ssl.SSLContext | None = None) -> None:
        self.host = host
        self.scheme = "https" if tls is not None else "http"
        self.jpeg = make_image("JPEG", (64, 48))
        self.png = make_image("PNG", (40, 30))
        self.bomb = make_bomb_png()
        self.extra: dict[str, bytes] = {}  # more JPEG routes a test adds (path -> body)
        self.hits: Counter[str] = Counter()  # path (with query) -> requests received
        self.in_flight = 0
        self.max_in_flight = 0
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._httpd = (_V6Server if ":" in host else ThreadingHTTPServer)((host, 0), _Handler)
        if tls is not None:  # the handshake happens on accept; a failed one drops the client
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True)
        self._httpd.daemon_threads = True
        self._httpd.app = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @staticmethod
    @functools.cache
    def big_jpeg() -> bytes:
        """A ~1 MB noisy JPEG (built once)."""
        buf = io.BytesIO()
        Image.effect_noise((1400, 1000), 60).convert("RGB").save(buf, "JPEG", quality=95)
        return buf.getvalue()

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    def url(self, path: str) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}{path}"

    def start(self) -> ImageServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()  # wakes every sleeping handler
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def sleep(self, seconds: float) -> None:
        """Sleep at most ``seconds`` (less when the server is stopping)."""
        self.stopping.wait(min(seconds, 5.0))

    def enter(self, path: str) -> int:
        with self._lock:
            self.hits[path] += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return self.hits[path]

    def leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


class _Handler(BaseHTTPRequestHandler):
    server_version = "WinnowTest/1.0"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib name
        pass  # keep pytest output clean

    @property
    def app(self) -> ImageServer:
        return self.server.app  # type: ignore[attr-defined]

    def _send(
        self,
        status: int,
        body: bytes = b"",
        ctype: str | None = "image/jpeg",
        headers: dict[str, str] | None = None,
        length: int | None = None,
    ) -> None:
        self.send_response(status)
        if ctype is not None:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        count = self.app.enter(self.path)
        try:
            self._route(count)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (size cap, timeout, cancellation)
        finally:
            self.app.leave()

    def _route(self, count: int) -> None:
        app = self.app
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        path = parts.path
        if path in app.extra:
            self._send(200, app.extra[path])
        elif path == "/good.jpg":
            self._send(200, app.jpeg)
        elif path == "/good.png":
            self._send(200, app.png, "image/png; charset=binary")
        elif path == "/octet.png":
            self._send(200, app.png, "application/octet-stream")
        elif path == "/missing":
            self._send(404, b"not here", "text/plain")
        elif path == "/forbidden":
            self._send(403, b"no", "text/plain")
        elif path == "/flaky.jpg":  # 500 on the first request, then the image
            if count == 1:
                self._send(500, b"oops", "text/plain")
            else:
                self._send(200, app.jpeg)
        elif path == "/always500":
            self._send(500, b"oops", "text/plain")
        elif path == "/ratelimited.jpg":  # 429 + Retry-After on the first request
            if count == 1:
                self._send(429, b"slow down", "text/plain", {"Retry-After": query["after"]})
            else:
                self._send(200, app.jpeg)
        elif path == "/slow.jpg":  # no answer within a short read timeout
            app.sleep(float(query.get("s", 2)))
            self._send(200, app.jpeg)
        elif path == "/delay.jpg":  # answers after a short pause (concurrency tests)
            app.sleep(float(query.get("s", 0.1)))
            self._send(200, app.jpeg)
        elif path == "/huge-length.jpg":  # claims 10 GB
            self._send(200, app.jpeg[:100], length=10 * 2**30)
        elif path == "/stream-big.jpg":  # no Content-Length, body far over any test cap
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.end_headers()
            self.wfile.write(app.jpeg[:1000])
            chunk = b"\0" * 65536
            for _ in range(64):  # 4 MB at most
                if app.stopping.is_set():
                    break
                self.wfile.write(chunk)
        elif path == "/dropped.jpg":  # promises 5000 bytes, sends 100 and hangs up
            self._send(200, app.jpeg[:100], length=5000)
        elif path == "/truncated.jpg":  # a complete HTTP response carrying half a JPEG
            self._send(200, app.jpeg[: len(app.jpeg) // 2])
        elif path == "/page.html":
            self._send(200, HTML, "text/html; charset=utf-8")
        elif path == "/fake.jpg":  # says image/jpeg, is a web page
            self._send(200, HTML, "image/jpeg")
        elif path == "/bomb.png":
            self._send(200, app.bomb, "image/png")
        elif path == "/redirect":
            self._send(302, b"", None, {"Location": "/good.jpg"})
        elif path == "/redirect-loop":
            self._send(302, b"", None, {"Location": "/redirect-loop"})
        elif path == "/redirect-to":  # redirect to any URL given as ?u= (status ?code=)
            self._send(int(query.get("code", 302)), b"", None, {"Location": query["u"]})
        elif path == "/endless.jpg":  # a body that never ends (until the client gives up)
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.end_headers()
            self.wfile.write(app.jpeg[:1000])
            chunk = b"\0" * 65536
            for _ in range(100_000):  # ~6 GB at most; the client stops long before
                if app.stopping.is_set():
                    break
                self.wfile.write(chunk)
        elif path == "/drip.jpg":  # one byte every 0.1 s: never idle long enough to time out
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", str(len(app.jpeg)))
            self.end_headers()
            for byte in app.jpeg:
                if app.stopping.is_set():
                    break
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                app.sleep(0.1)
        elif path == "/gzip-bomb.jpg":  # 256 MB of zeros in ~260 KB of gzip
            self._send(200, make_gzip_bomb(), "image/jpeg", {"Content-Encoding": "gzip"})
        elif path == "/brotli.jpg":
            self._send(200, app.jpeg, "image/jpeg", {"Content-Encoding": "br"})
        else:
            self._send(404, b"unknown route", "text/plain")


def fetch_settings(tmp_path: Path, trusted: ImageServer | None = None,
                   **kw: object) -> FetchSettings:
    """Short timeouts and a 256 KiB cap for the hostile-server tests; ``trusted``: the one
    local server a fetch may reach (every other loopback address stays refused)."""
    values: dict[str, object] = dict(connect_timeout=1, read_timeout=1, total_timeout=4,
                                     retries=1, backoff=0.01, max_backoff=0.05,
                                     max_bytes=256 * 1024, download_dir=tmp_path / "dl")
    if trusted is not None:
        values["trusted"] = frozenset({(trusted.host, trusted.port)})
    values.update(kw)
    return FetchSettings(**values)  # type: ignore[arg-type]
