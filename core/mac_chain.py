"""Keyed MACs and forward-secure MAC chains, shared by rater files (ADR 058) and curator
packages (ADR 131).

A *secret* stays in the project.  Keys for one purpose derive from it by HMAC-SHA256
with a label under a domain (``winnow-rating/``, ``winnow-team/``).  A chain starts
from a key ``K0`` written into the file Winnow hands out; entry *i* is stored with
``mac_i = HMAC(K_i, mac_{i-1} || entry_i)`` and the file then keeps only
``K_{i+1} = SHA-256(domain + "next" || K_i)`` (Bellare & Yee 1997; Schneier & Kelsey
1999): an entry already written cannot be changed, removed or reordered without a key
the file no longer holds, while the project, which can compute every ``K_i`` from the
secret, checks the whole chain.

:func:`register_sql_functions` lets SQLite triggers extend a chain inside the very
transaction that writes the entry (curator packages MAC their audit rows that way).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


def new_secret() -> bytes:
    """32 random bytes."""
    return secrets.token_bytes(32)


def mac(key: bytes, data: bytes) -> str:
    """HMAC-SHA256 as hex."""
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def same(a: Any, b: Any) -> bool:
    """Constant-time comparison of two hex MACs (False when either is not text)."""
    return isinstance(a, str) and isinstance(b, str) and hmac.compare_digest(a, b)


def canonical(value: Any) -> bytes:
    """The bytes a MAC covers: compact, key-sorted JSON (types kept: 5 ≠ "5"; a blob,
    which Winnow never writes where a MAC looks, as ``{"$blob": hex}``)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                      default=_blob).encode("utf-8", "surrogatepass")


def _blob(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return {"$blob": bytes(value).hex()}
    raise TypeError(f"cannot sign a {type(value).__name__}")


@dataclass(frozen=True)
class ChainEntry:
    """One entry as read back from a file: its label (for messages), bytes and MAC."""

    label: str
    entry: bytes
    mac: str | None


class MacChain:
    """Key derivation and the chain for one domain (``"winnow-rating/"`` …)."""

    def __init__(self, domain: str) -> None:
        self.domain = domain

    def derive(self, secret: bytes, label: str) -> bytes:
        """A key for one purpose, derived from the secret (HMAC-SHA256)."""
        return hmac.new(secret, (self.domain + label).encode("utf-8"), hashlib.sha256).digest()

    def next_key(self, key: bytes) -> bytes:
        """``K_{i+1}`` from ``K_i`` (one-way)."""
        return hashlib.sha256((self.domain + "next").encode("utf-8") + key).digest()

    def append(self, state: tuple[int, bytes, str],
               entry: bytes) -> tuple[str, tuple[int, bytes, str]]:
        """MAC ``entry`` with the chain's current key; returns (mac, next state).

        ``state`` = (position, key, last mac).
        """
        position, key, last = state
        tag = mac(key, bytes.fromhex(last) + entry)
        return tag, (position + 1, self.next_key(key), tag)

    def verify(self, start: bytes, first_mac: str, entries: Sequence[ChainEntry],
               state: tuple[Any, Any, Any] | None, where: str) -> list[str]:
        """Check a chain that starts at key ``start`` after ``first_mac``; the problems
        found (empty = intact).  ``state`` is the file's stored (position, key hex, last
        mac), or None when missing; ``where`` ends the messages ("outside the rater
        view")."""
        key, last = start, first_mac
        for k, item in enumerate(entries):
            tag = mac(key, bytes.fromhex(last) + item.entry)
            if not same(tag, item.mac):
                return [f"{item.label} was changed, added or moved {where} "
                        f"(MAC {k + 1} of {len(entries)} does not match)"]
            key, last = self.next_key(key), tag
        if state is None:
            return [f"its key chain is missing (removed {where})"]
        position, key_hex, last_mac = state
        if position == len(entries) and key_hex == key.hex() and last_mac == last:
            return []
        removed = self._removed(key, position, key_hex, len(entries))
        if removed:
            return [f"the last {removed} entr{'y was' if removed == 1 else 'ies were'} "
                    f"removed {where}"]
        return [f"its key chain was edited {where}"]

    def _removed(self, key: bytes, position: Any, key_hex: Any, have: int) -> int:
        """How many entries after the last one present the stored chain state has seen."""
        if not isinstance(position, int) or not isinstance(key_hex, str) or position <= have:
            return 0
        if position - have > 1_000_000:
            return 0
        for _ in range(position - have):
            key = self.next_key(key)
        return position - have if key.hex() == key_hex else 0


# -- chains extended by SQLite triggers ------------------------------------------------------
def _sql_mac(key_hex: str, last_hex: str, *values: Any) -> str:
    return mac(bytes.fromhex(key_hex), bytes.fromhex(last_hex) + canonical(list(values)))


def _sql_next(domain: str, key_hex: str) -> str:
    return MacChain(domain).next_key(bytes.fromhex(key_hex)).hex()


def sql_entry(values: Sequence[Any]) -> bytes:
    """The entry bytes ``winnow_chain_mac(key, last, *values)`` MACs (for verifying)."""
    return canonical(list(values))


def register_sql_functions(conn: sqlite3.Connection) -> None:
    """``winnow_chain_mac(key_hex, last_hex, v1, …)`` and ``winnow_chain_next(domain,
    key_hex)`` on ``conn``, for triggers that extend a chain in the writing transaction.
    A connection without them (sqlite3 at a shell) cannot write an entry at all."""
    conn.create_function("winnow_chain_mac", -1, _sql_mac, deterministic=True)
    conn.create_function("winnow_chain_next", 2, _sql_next, deterministic=True)
