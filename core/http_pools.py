"""One set-up for httpx clients that keep many requests in flight (image fetch, VLM
judges, proposals).

Two costs of httpcore, measured with cProfile (docs/performance.md, "Proposals" and
"One HTTP client set-up"), that every such client avoids here:

- httpcore tries ``import sniffio`` for every lock it makes; with sniffio absent each
  try searches ``sys.path`` again (eight a request).  :func:`quiet_missing_sniffio`
  marks the absent module absent once.
- httpcore's connection pool does work proportional to connections × waiting requests
  on every request.  :class:`ClientPools` spreads ``concurrency`` request slots over
  several pools of at most :data:`PER_POOL` connections each.

Two limits every such request needs, here once: httpx's timeouts bound each *step*
(connect, one read), so a server trickling a byte at a time holds a request forever;
:func:`deadline` bounds the whole request (ADR 143).  :func:`read_capped` reads a body
up to a size cap, so a hostile 2 GB answer costs nothing but the cap.
:func:`shown_url` is an endpoint's URL as messages and records show it (no password,
no key in the query; ADR 198).  :func:`transport_detail` says in short words why a
connection failed (a TLS certificate that could not be verified, a handshake that failed,
a connection the server closed; ADR 218).

httpx is imported on use: start-up need not pay for it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json as json_module
import re
import ssl
import sys
import zlib
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from core.retry import Transient

if TYPE_CHECKING:
    import httpx

#: connections per httpx pool (3.9 ms of pool work a request at 32 connections in one pool)
PER_POOL = 8


def quiet_missing_sniffio() -> None:
    """Record an absent ``sniffio`` as absent, so httpcore's per-lock ``import sniffio``
    fails at once instead of searching ``sys.path`` (an installed sniffio is left alone)."""
    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        # None in sys.modules is Python's documented "known missing" marker (import
        # raises ModuleNotFoundError at once); typeshed types the mapping's values as modules
        sys.modules["sniffio"] = None  # type: ignore[assignment]


def pool_sizes(concurrency: int, per_pool: int = PER_POOL) -> list[int]:
    """Connections of each pool for ``concurrency`` slots: as few pools as allow at most
    ``per_pool`` connections each, sizes differing by at most one (20 → [7, 7, 6])."""
    n = max(1, concurrency)
    pools = -(-n // per_pool)
    return [len(range(k, n, pools)) for k in range(pools)]


class ClientPools:
    """``concurrency`` request slots over a few small ``httpx.AsyncClient`` pools.

    ``make(limits)`` builds one client with the given ``httpx.Limits`` (its caller's
    headers, timeouts, transport).  Use :meth:`slot` around each request: it waits for
    a free slot and yields the client that slot belongs to, so at most ``concurrency``
    requests are in flight and no pool holds more than its share.  Close with
    :meth:`aclose`.
    """

    def __init__(self, concurrency: int, make: Callable[[httpx.Limits], httpx.AsyncClient]) -> None:
        import httpx

        quiet_missing_sniffio()
        sizes = pool_sizes(concurrency)
        self.clients = [
            make(httpx.Limits(max_connections=size, max_keepalive_connections=size))
            for size in sizes
        ]
        self.concurrency = sum(sizes)
        self._lanes: asyncio.Queue[int] = asyncio.Queue()  # one entry per free slot
        for slot in range(self.concurrency):
            self._lanes.put_nowait(slot % len(sizes))

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[httpx.AsyncClient]:
        """A free request slot (waiting for one), as the client it belongs to."""
        lane = await self._lanes.get()
        try:
            yield self.clients[lane]
        finally:
            self._lanes.put_nowait(lane)

    async def aclose(self) -> None:
        """Close every pool (idempotent)."""
        clients, self.clients = self.clients, []
        for client in clients:
            await client.aclose()


#: hosts an endpoint client always connects to directly, whatever ``HTTP_PROXY`` says: a
#: proxy cannot reach the user's own loopback, and the request (prompt, images, API key)
#: is not the proxy's to see (ADR 218); for httpx's ``mounts`` (None: no proxy)
LOOPBACK_DIRECT: dict[str, None] = {"all://localhost": None, "all://*.localhost": None,
                                    "all://127.0.0.1": None, "all://[::1]": None}


#: query (or fragment) parameters whose value is a secret by its name (ADR 198): a
#: name holding one of these (``x-api-key``, ``Access_Token``) …
_SECRET_NAME = re.compile(r"key|token|secret|passw|pwd|sig|auth|cred|session|bearer",
                          re.IGNORECASE)
#: … or made of parts one of which is one of these (``pass``, ``db_pw``; not ``passes``)
_SECRET_PART = re.compile(r"(?:^|[-_.])(?:pass|pw|jwt|otp)(?:$|[-_.])", re.IGNORECASE)
#: a value, bare parameter or path segment that is a key by its shape (ADR 208): a
#: provider's key prefix (OpenAI, Hugging Face, Groq, GitHub, Slack, Google, Replicate,
#: NVIDIA, Perplexity, xAI, a Telegram bot) …
_KEY_SHAPE = re.compile(r"(?:sk|pk|rk|hf|gsk|ghp|gho|ghs|github_pat|xox[abpr]|r8|nvapi|"
                        r"pplx|xai)[-_][A-Za-z0-9_-]{8,}|AIza[A-Za-z0-9_-]{20,}|"
                        r"bot\d+:[A-Za-z0-9_-]{20,}")
#: … or a long opaque token (letters and digits, 32 or more characters of the base64url
#: alphabet: a model or deployment name has dots or words shorter than that)
_OPAQUE = re.compile(r"(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{32,}")
#: what a hidden secret is shown as
HIDDEN = "***"


def _secret_name(name: str) -> bool:
    name = unquote_plus(name)  # ``k%65y`` is ``key`` to the server
    return bool(_SECRET_NAME.search(name) or _SECRET_PART.search(name))


def _key_shaped(text: str) -> bool:
    text = unquote_plus(text)
    return bool(_KEY_SHAPE.fullmatch(text) or _OPAQUE.fullmatch(text))


def _hide_values(text: str) -> str:
    """``a=1&api_key=s`` → ``a=1&api_key=***`` (each pair whose name suggests a secret,
    or whose value looks like a key; ``&`` and ``;`` both separate pairs)."""
    pieces = re.split(r"([&;])", text)
    for i in range(0, len(pieces), 2):
        name, eq, value = pieces[i].partition("=")
        if eq and (_secret_name(name) or _key_shaped(value)):
            pieces[i] = f"{name}={HIDDEN}"
        elif not eq and _key_shaped(name):
            pieces[i] = HIDDEN
    return "".join(pieces)


def _hide_path(path: str) -> str:
    """``/v1/sk-…/chat`` → ``/v1/***/chat``: a segment shaped like a key is hidden (a
    model or deployment name is kept, so endpoints stay told apart)."""
    shown = []
    for seg in path.split("/"):
        head, semi, params = seg.partition(";")  # ``/v1;key=…``: a segment's parameters
        shown.append(HIDDEN if _key_shaped(head) else head)
        if semi:
            shown[-1] += f";{_hide_values(params)}"
    return "/".join(shown)


def _without_userinfo(text: str) -> str | None:
    """A URL whose scheme was forgotten (``alice:pw@host/v1`` splits as scheme ``alice``):
    everything up to the last ``@`` before the first ``/``, ``?`` or ``#`` is a user name
    and password; None when there is no ``@`` there."""
    head = re.split(r"[/?#]", text, maxsplit=1)[0]
    if "@" not in head:
        return None
    return f"{HIDDEN}@{text[len(head.rpartition('@')[0]) + 1:]}"


def shown_url(url: str) -> str:
    """``url`` as a message, a log or a record in the project may show it: a user name
    and password (``https://user:pass@host``) become ``***@``, and the value of each
    query or fragment parameter named like a secret (key, token, secret, password,
    signature, auth…) becomes ``***`` (ADR 198), as does a value or path segment shaped
    like a key (``sk-…``, ``hf_…``, a long opaque token; ADR 208). The request itself
    still uses the URL as given."""
    text = url.strip()
    try:
        parts = urlsplit(text)
    except ValueError:  # an unclosed IPv6 bracket: show no part that might be a secret
        scheme, sep, _rest = text.partition("//")
        return f"{scheme if sep else ''}{sep}{HIDDEN} (not a valid URL)"
    if not parts.netloc:  # ``alice:pw@host``, ``https:alice:pw@host``, ``https:///a:pw@h``
        after = text[len(parts.scheme) + 1:].lstrip("/") if parts.scheme else text
        for rest in (text, after):
            bare = _without_userinfo(rest)
            if bare is not None:
                return shown_url(f"//{bare}")[2:]
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{HIDDEN}@{netloc.rpartition('@')[2]}"
    return urlunsplit((parts.scheme, netloc, _hide_path(parts.path),
                       _hide_values(parts.query), _hide_values(parts.fragment)))


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from (httpx → httpcore → ssl/OS)."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        yield link
        link = link.__cause__ or link.__context__


def certificate_problem(exc: BaseException) -> str | None:
    """"the server's TLS certificate could not be verified (…)" when ``exc`` comes from
    a certificate check that failed (self-signed, expired, another host's), else None.
    Retrying cannot fix it; verification is never turned off (ADR 218)."""
    for link in _chain(exc):
        if isinstance(link, ssl.SSLCertVerificationError):
            why = (link.verify_message or link.reason or "not trusted").rstrip(".")
            return f"the server's TLS certificate could not be verified ({why})"
    return None


def transport_detail(exc: BaseException) -> str:
    """Short words for a failed connection: a certificate that could not be verified, a
    TLS handshake that failed (a plain-HTTP server on an https URL), or the first message
    in the chain of causes ("[Errno 104] Connection reset by peer") — never an empty one."""
    problem = certificate_problem(exc)
    if problem:
        return problem
    for link in _chain(exc):
        if isinstance(link, ssl.SSLError):
            why = (link.reason or str(link)).lower().replace("_", " ")
            return f"the TLS handshake failed ({why}; is it an https server?)"
    for link in _chain(exc):
        text = str(link).strip()
        if text:
            return text
    names = {type(link).__name__ for link in _chain(exc)}
    if names & {"EndOfStream", "BrokenResourceError", "RemoteProtocolError"}:
        return "the server closed the connection"
    return type(exc).__name__


class CertificateError(Exception):
    """An endpoint whose TLS certificate could not be verified: not worth another try
    (every request to it fails alike); ``str()`` names the endpoint (ADR 218)."""


@contextmanager
def transport_failures(base_url: str, timeout: float) -> Iterator[None]:
    """Turn an httpx timeout or connection failure inside the block into a
    :class:`core.retry.Transient` that names it (both are worth another try); a TLS
    certificate that could not be verified into a :class:`CertificateError` (not)."""
    import httpx

    try:
        yield
    except httpx.TimeoutException:
        raise Transient(f"timed out after {timeout:g} s") from None
    except httpx.TransportError as exc:
        problem = certificate_problem(exc)
        if problem:
            raise CertificateError(f"cannot reach {shown_url(base_url)}: {problem}") from None
        raise Transient(f"cannot reach {shown_url(base_url)} ({type(exc).__name__}: "
                        f"{transport_detail(exc)})") from None


class DeadlineExceeded(Transient):
    """No complete response before a request's overall deadline (see :func:`deadline`)."""


@asynccontextmanager
async def deadline(seconds: float, *, start: float | None = None) -> AsyncIterator[None]:
    """Bound everything in the block (connecting, sending, every read of the body) to end
    ``seconds`` after ``start`` (the event loop's clock; default now).

    Raises :class:`DeadlineExceeded` ("timed out: no complete response within N s"), a
    :class:`core.retry.Transient`: a per-request deadline is worth another try like any
    timeout; a caller whose deadline spans all its attempts stops on it instead.
    """
    begin = asyncio.get_running_loop().time() if start is None else start
    limit = asyncio.timeout_at(begin + seconds)
    try:
        async with limit:
            yield
    except TimeoutError:
        if not limit.expired():
            raise
        raise DeadlineExceeded(f"timed out: no complete response within {seconds:g} s") \
            from None


class ResponseTooLarge(Exception):
    """A response body over the cap (not read further; not worth another try)."""


def hide_secrets(body: bytes, secrets: Iterable[str | None]) -> bytes:
    """``body`` with every secret (an API key a server echoes back, ADR 214) written as
    :data:`HIDDEN`, whether plain or escaped as JSON writes it."""
    for secret in secrets:
        if not secret or len(secret) < 4:
            continue
        forms = {secret, json_module.dumps(secret)[1:-1],
                 json_module.dumps(secret, ensure_ascii=False)[1:-1]}
        for form in sorted(forms, key=len, reverse=True):
            body = body.replace(form.encode("utf-8", "surrogatepass"), HIDDEN.encode())
    return body


#: most bytes one decompression step may produce (a gzip bomb cannot expand at once)
_DECODE_STEP = 1 << 20


async def _decoded(resp: httpx.Response) -> AsyncIterator[bytes]:
    """The body of ``resp`` decoded (identity, gzip, deflate) in steps of at most
    :data:`_DECODE_STEP` bytes, so the caller's cap holds before a bomb expands (ADR 214)."""
    if resp.is_stream_consumed:  # a body given whole (a mock transport): already decoded
        yield resp.content
        return
    encoding = resp.headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity"):
        async for chunk in resp.aiter_raw():
            yield chunk
        return
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise Transient(f"the server sent a {encoding}-compressed body, which is not read")
    z = zlib.decompressobj(zlib.MAX_WBITS | 32)  # gzip or zlib, by the header
    try:
        async for chunk in resp.aiter_raw():
            piece = z.decompress(chunk, _DECODE_STEP)
            while piece:
                yield piece
                piece = z.decompress(z.unconsumed_tail, _DECODE_STEP)
    except zlib.error as exc:
        raise Transient(f"the response body cannot be decoded ({exc})") from None


async def read_capped(client: httpx.AsyncClient, method: str, url: str, cap: int,
                      *, json: Any = None, secrets: Iterable[str | None] = ()
                      ) -> tuple[int, Mapping[str, str], bytes]:
    """Send a request and read its body up to ``cap`` bytes: (status, headers, body).

    Raises :class:`ResponseTooLarge` when the declared length or the bytes received pass
    the cap (what was read is dropped); ``json`` is the request's JSON body.  Each of
    ``secrets`` (the API key) is hidden in the body returned (:func:`hide_secrets`): what
    a server echoes is never shown or stored.
    """
    async with client.stream(method, url, json=json,
                             headers={"Accept-Encoding": "gzip, deflate"}) as resp:
        declared = resp.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > cap:
            raise ResponseTooLarge(f"the response is too large ({int(declared):,} bytes; at "
                                   f"most {cap:,} are read)")
        chunks: list[bytes] = []
        size = 0
        async for chunk in _decoded(resp):
            size += len(chunk)
            if size > cap:
                raise ResponseTooLarge(f"the response is too large (over {cap:,} bytes); it "
                                       "was not read further")
            chunks.append(chunk)
        return resp.status_code, resp.headers, hide_secrets(b"".join(chunks), secrets)
