"""Keep image URLs from reaching the user's own machine or network (SSRF), ADR 002.

A JSONL file from a stranger can name ``http://localhost:8080/admin``, a router at
``192.168.1.1``, a cloud metadata service at ``169.254.169.254`` — spelled as a name,
as ``2130706433`` or ``0x7f.1``, behind ``user:pass@``, or reached by a redirect.  So
the check is made where the connection is made: :class:`GuardedTransport` resolves
every host itself, refuses it when *any* of its addresses is loopback, private,
link-local, site-local, multicast, reserved, unspecified or shared (v4 and v6, v4 in
v6 unwrapped), and then connects to the address it checked — every connection,
redirects included, and no second DNS answer can differ from the one checked.
``allow_private_network`` turns the check off (scraping into a local mirror).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import urllib.request
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import httpcore
import httpx

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[str]]]

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
#: v6 ranges Python 3.11's ``is_global`` lets through (ADR 218): deprecated site-local
#: (RFC 3879, still routed inside some networks) and the documentation prefix of RFC 9637
_NOT_GLOBAL_V6 = ((ipaddress.ip_network("fec0::/10"), "a site-local address"),
                  (ipaddress.ip_network("3fff::/20"), "a documentation address"))
#: the shared address space of carrier-grade NAT (RFC 6598): inside the provider's network
_SHARED_V4 = ipaddress.ip_network("100.64.0.0/10")


class BlockedAddressError(Exception):
    """A URL's host is (or resolves to) an address the policy refuses."""


def address_problem(ip: Address) -> str | None:
    """Why ``ip`` may not be fetched from by default ("a loopback address"…), or None."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return address_problem(embedded)
        for network, words in _NOT_GLOBAL_V6:
            if ip in network:
                return words
    for attribute, words in (("is_loopback", "a loopback address"),
                             ("is_unspecified", "an unspecified address"),
                             ("is_link_local", "a link-local address"),
                             ("is_multicast", "a multicast address"),
                             ("is_reserved", "a reserved address"),
                             ("is_private", "a private-network address")):
        if getattr(ip, attribute):
            return words
    if isinstance(ip, ipaddress.IPv4Address) and ip in _SHARED_V4:
        return "a carrier-grade NAT (shared) address"
    if not ip.is_global:
        return "not a public internet address"
    return None


async def _system_resolver(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True)
class NetworkPolicy:
    """Which addresses image fetches may connect to.

    ``trusted`` lists exact ``(address, port)`` pairs exempt from the check — for a
    test server on 127.0.0.1 while the test proves that loopback is refused otherwise.
    """

    allow_private: bool = False
    trusted: frozenset[tuple[str, int]] = field(default_factory=frozenset)
    resolver: Resolver | None = None

    async def addresses(self, host: str, port: int) -> list[str]:
        """Resolved addresses of ``host``, every one allowed, or BlockedAddressError."""
        name = host.strip("[]")
        if "%" in name and not self.allow_private:  # a scoped literal (``fe80::1%25lo``)
            try:
                scoped = ipaddress.ip_address(unquote(name).split("%")[0])
            except ValueError:
                scoped = None
            if scoped is not None:  # refused by its address, whether the zone exists or not
                self._check(name, str(scoped), port)
        try:
            found = await (self.resolver or _system_resolver)(name, port)
        except OSError as exc:
            raise httpcore.ConnectError(f"cannot resolve {name}: {exc}") from exc
        if not found:
            raise httpcore.ConnectError(f"cannot resolve {name}")
        if self.allow_private:
            return found
        for text in found:
            self._check(name, text, port)
        return found

    def _check(self, name: str, text: str, port: int) -> None:
        """Raise BlockedAddressError when ``name``'s address ``text`` is refused."""
        if (text, port) in self.trusted:
            return
        problem = address_problem(ipaddress.ip_address(text.split("%")[0]))
        if problem:
            shown = name if name == text else f"{name} ({text})"
            raise BlockedAddressError(
                f"refused: {shown} is {problem}; Winnow does not fetch from private "
                "networks unless allowed (--allow-private-network, or the setting in "
                "the app)")


class _GuardedBackend(httpcore.AsyncNetworkBackend):
    """Resolves and checks every host, then connects to the checked address itself."""

    def __init__(self, policy: NetworkPolicy) -> None:
        self.policy = policy
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None) -> httpcore.AsyncNetworkStream:
        addresses = await self.policy.addresses(host, port)
        error: Exception | None = None
        for address in addresses:
            try:
                return await self.inner.connect_tcp(address, port, timeout, local_address,
                                                    socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
        assert error is not None
        raise error

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[Any] | None = None
                                  ) -> httpcore.AsyncNetworkStream:
        raise BlockedAddressError("refused: unix sockets are never fetched from")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class GuardedTransport(httpx.AsyncHTTPTransport):
    """``httpx`` transport whose every connection goes through :class:`NetworkPolicy`.

    It connects directly: proxies from the environment are not used while the guard is
    on (the proxy's own address would be what is checked, and the proxy would resolve
    and reach the target unchecked; ADR 218). With private networks allowed,
    :func:`make_transport` returns a plain transport that honours them.
    """

    def __init__(self, policy: NetworkPolicy, limits: httpx.Limits) -> None:
        super().__init__(limits=limits)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_GuardedBackend(policy),
        )


def proxy_note(policy: NetworkPolicy) -> str:
    """What a failed direct connection adds when the environment names a proxy the guard
    does not use (a corporate network that allows only the proxy out; ADR 218), or ""."""
    if policy.allow_private or not any(
            urllib.request.getproxies().get(k) for k in ("http", "https", "all")):
        return ""
    return (" (images are fetched directly, not through the environment's proxy, while "
            "private networks are refused; ADR 218)")


def make_transport(policy: NetworkPolicy, limits: httpx.Limits) -> httpx.AsyncBaseTransport | None:
    """The transport an image client should use: guarded, or None (httpx's default)."""
    if policy.allow_private:
        return None
    return GuardedTransport(policy, limits)
