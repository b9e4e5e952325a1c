"""Which image servers a fetch has given up on (ADR 193).

A server is its host and port, however a URL writes them: the name without case or the
root's trailing dot (``Example.COM.`` is ``example.com``), the port its scheme implies
when none is written (``http://h/`` and ``http://h:80/`` are one server, ``https://h/``
another), an IPv6 address in one spelling (``[0:0::1]`` is ``[::1]``), never userinfo.
:class:`Hosts` counts, per server, the downloads that failed in a row for want of an
answer; at :data:`HOST_BREAK_AFTER` the server is given up on for the rest of the fetch.
The server blamed is the one asked last: a redirector that answered is not.
"""

from __future__ import annotations

import ipaddress

import httpx

__all__ = ["HOST_BREAK_AFTER", "Hosts", "server"]

#: downloads of one server that fail in a row, unanswered, before it is not asked again
HOST_BREAK_AFTER = 5
_DEFAULT_PORTS = {"http": 80, "https": 443}


def server(url: str | httpx.URL) -> str:
    """``host:port`` of the server ``url`` is asked at (``[v6]:port`` for an IPv6
    address), or ``""`` when ``url`` names none."""
    try:
        parsed = url if isinstance(url, httpx.URL) else httpx.URL(url.strip())
        name = parsed.raw_host.decode("ascii").lower().rstrip(".")
    except (httpx.InvalidURL, UnicodeDecodeError):
        return ""
    if not name:
        return ""
    port = parsed.port if parsed.port is not None else _DEFAULT_PORTS.get(parsed.scheme, 0)
    if ":" in name:  # an IPv6 literal
        try:
            name = ipaddress.IPv6Address(name).compressed
        except ValueError:
            pass
        return f"[{name}]:{port}"
    return f"{name}:{port}"


class Hosts:
    """Per server, the downloads that failed unanswered in a row, and the servers given
    up on (with why).  An answer of any kind (an image, a 404, a web page, a redirect)
    starts a server's count again.  Used from one event loop: no locking needed."""

    def __init__(self) -> None:
        self.in_a_row: dict[str, int] = {}
        self.broken: dict[str, str] = {}

    def given_up(self, url: str | httpx.URL) -> str | None:
        """Why ``url`` is not fetched (its server was given up on), or None."""
        return self.broken.get(server(url))

    def answered(self, url: str | httpx.URL) -> None:
        """The server of ``url`` answered: its count starts again."""
        key = server(url)
        if key and key not in self.broken:
            self.in_a_row[key] = 0

    def unanswered(self, url: str | httpx.URL, error: str | None) -> None:
        """A download failed at the server of ``url`` for want of an answer (``error``,
        after its retries); the :data:`HOST_BREAK_AFTER`-th in a row gives it up."""
        key = server(url)
        if not key or key in self.broken:
            return
        n = self.in_a_row[key] = self.in_a_row.get(key, 0) + 1
        if n >= HOST_BREAK_AFTER:
            self.broken[key] = (
                f"not fetched: {key} failed {n} downloads in a row (last: {error}), so its "
                "other images were not asked for in this import; import the file again to "
                "try them again")
