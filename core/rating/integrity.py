"""Tamper evidence for rater files (ADR 058): a secret per session, MACs, a key chain.

The project keeps one random secret per session (table ``rating_keys``); no rater file
ever holds it.  From it, per rater file:

- ``tasks key`` = HMAC(secret, "tasks/" + file_uid): the project signs the file's task
  list, settings and image digests with it (``meta.tasks_mac``).  The key is never in
  the file, so a task list the project did not write cannot be made valid.
- ``K0`` = HMAC(secret, "chain/" + file_uid): the first key of a *forward-secure* chain
  (Bellare & Yee 1997; Schneier & Kelsey 1999).  Entry *i* (the rater's name, then each
  judgment in order) is stored with ``mac_i = HMAC(K_i, mac_{i-1} || entry_i)``
  (``mac_{-1}`` = the tasks MAC), after which the file keeps only
  ``K_{i+1} = SHA-256("next" || K_i)``.  An entry already written cannot be edited,
  removed or reordered without a key the file no longer holds; the project, which can
  compute every ``K_i`` from the secret, checks the whole chain when it merges.

Also: the plan key (what makes option tokens and shuffles unpredictable to a rater who
knows the seed) and per-image seeds.  Pure functions, plus two that read or create the
secret in a project.
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

_LABEL = "winnow-rating/"


def new_secret() -> bytes:
    """32 random bytes for a new session."""
    return secrets.token_bytes(32)


def derive(secret: bytes, label: str) -> bytes:
    """A key for one purpose, derived from the session secret (HMAC-SHA256)."""
    return hmac.new(secret, (_LABEL + label).encode("utf-8"), hashlib.sha256).digest()


def plan_key(secret: bytes) -> bytes:
    """The key :func:`core.rating.design.plan_session` mixes into its seed and tokens."""
    return derive(secret, "plan")


def tasks_key(secret: bytes, file_uid: str) -> bytes:
    """Signs a rater file's task list (never written into the file)."""
    return derive(secret, f"tasks/{file_uid}")


def chain_start(secret: bytes, file_uid: str) -> bytes:
    """``K0`` of a rater file's key chain (written into the fresh file)."""
    return derive(secret, f"chain/{file_uid}")


def next_key(key: bytes) -> bytes:
    """``K_{i+1}`` from ``K_i`` (one-way)."""
    return hashlib.sha256(b"winnow-rating/next" + key).digest()


def mac(key: bytes, data: bytes) -> str:
    """HMAC-SHA256 as hex."""
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def canonical(value: Any) -> bytes:
    """The bytes a MAC covers: compact, key-sorted JSON (types kept: 5 ≠ "5"; a blob,
    which Winnow never writes where a MAC looks, as ``{"$blob": hex}``)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                      default=_blob).encode("utf-8", "surrogatepass")


def _blob(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return {"$blob": bytes(value).hex()}
    raise TypeError(f"cannot sign a {type(value).__name__}")


def tasks_document(meta: dict[str, str], tasks: Sequence[Sequence[Any]],
                   image_digests: Sequence[str]) -> bytes:
    """What the tasks MAC covers: identity, protocol, settings, every task row (as
    stored), and the digests of the images the file carries."""
    fields = ("format", "session_uid", "file_uid", "slot", "protocol", "settings")
    return canonical({"meta": {k: meta.get(k) for k in fields},
                      "tasks": [list(t) for t in tasks],
                      "images": sorted(image_digests)})


def rater_entry(name: Any, copy_uid: Any, started_at: Any) -> bytes:
    """Chain entry 0: who rates this file."""
    return canonical(["rater", name, copy_uid, started_at])


def judgment_entry(row: Sequence[Any]) -> bytes:
    """Chain entry for one judgment row: (seq, uid, task_id, answer, flag, reason,
    supersedes, time_ms, penalty_ms, shown_at, submitted_at) exactly as stored."""
    return canonical(["judgment", *row])


def append(state: tuple[int, bytes, str], entry: bytes) -> tuple[str, tuple[int, bytes, str]]:
    """MAC ``entry`` with the chain's current key; returns (mac, next state).

    ``state`` = (position, key, last mac).
    """
    position, key, last = state
    tag = mac(key, bytes.fromhex(last) + entry)
    return tag, (position + 1, next_key(key), tag)


@dataclass(frozen=True)
class ChainEntry:
    """One entry as read back from a file: its label (for messages), bytes and MAC."""

    label: str
    entry: bytes
    mac: str | None


def verify(secret: bytes, file_uid: str, document: bytes, tasks_mac: str | None,
           entries: Sequence[ChainEntry], state: tuple[Any, Any, Any] | None) -> list[str]:
    """Check a file's tasks MAC and its whole chain; the problems found (empty = intact).

    ``state`` is the file's stored (position, key hex, last mac), or None when missing.
    """
    problems: list[str] = []
    expected = mac(tasks_key(secret, file_uid), document)
    if not isinstance(tasks_mac, str) or not hmac.compare_digest(expected, tasks_mac):
        problems.append("its task list, settings or images are not the ones the project "
                        "wrote (tasks MAC does not match)")
        return problems
    key, last = chain_start(secret, file_uid), tasks_mac
    for k, item in enumerate(entries):
        tag = mac(key, bytes.fromhex(last) + item.entry)
        if not isinstance(item.mac, str) or not hmac.compare_digest(tag, item.mac):
            problems.append(f"{item.label} was changed, added or moved outside the rater "
                            f"view (MAC {k + 1} of {len(entries)} does not match)")
            return problems
        key, last = next_key(key), tag
    if state is None:
        problems.append("its key chain is missing (removed outside the rater view)")
        return problems
    position, key_hex, last_mac = state
    if position == len(entries) and key_hex == key.hex() and last_mac == last:
        return problems
    removed = _entries_removed(key, position, key_hex, len(entries))
    if removed:
        problems.append(f"the last {removed} entr{'y was' if removed == 1 else 'ies were'} "
                        "removed outside the rater view")
    else:
        problems.append("its key chain was edited outside the rater view")
    return problems


def _entries_removed(key: bytes, position: Any, key_hex: Any, have: int) -> int:
    """How many entries after the last one present the stored chain state has seen."""
    if not isinstance(position, int) or not isinstance(key_hex, str) or position <= have:
        return 0
    if position - have > 1_000_000:
        return 0
    for _ in range(position - have):
        key = next_key(key)
    return position - have if key.hex() == key_hex else 0


# -- the secret in the project ----------------------------------------------------------------
def stored_secret(conn: sqlite3.Connection, session_id: int) -> bytes | None:
    """The session's secret, or None for a session made before tamper evidence."""
    row = conn.execute("SELECT secret FROM rating_keys WHERE session_id = ?",
                       (session_id,)).fetchone()
    return None if row is None else bytes(row[0])


def ensure_secret(conn: sqlite3.Connection, session_id: int, now: str) -> bytes:
    """The session's secret, created (inside the caller's transaction) if missing."""
    found = stored_secret(conn, session_id)
    if found is not None:
        return found
    secret = new_secret()
    conn.execute("INSERT INTO rating_keys(session_id, secret, created_at) VALUES (?,?,?)",
                 (session_id, secret, now))
    return secret
