"""Fixtures for the ingest tests: a real local HTTP server serving good and bad images."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

try:  # works whether or not tests/ is a package
    from .http_server import ImageServer
except ImportError:  # pragma: no cover - depends on the layout
    from http_server import ImageServer  # type: ignore[no-redef]

_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture
def image_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ImageServer]:
    """A started :class:`ImageServer` on 127.0.0.1 (random port), stopped afterwards."""
    for name in _PROXY_VARS:  # requests to 127.0.0.1 must not go through a proxy
        monkeypatch.delenv(name, raising=False)
    server = ImageServer().start()
    try:
        yield server
    finally:
        server.stop()
