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

import sqlite3
from collections.abc import Sequence
from typing import Any

from core.mac_chain import ChainEntry, MacChain, canonical, mac, new_secret, same

__all__ = ["ChainEntry", "append", "canonical", "chain_start", "derive", "ensure_secret",
           "judgment_entry", "mac", "new_secret", "next_key", "plan_key", "rater_entry",
           "stored_secret", "tasks_document", "tasks_key", "verify"]

#: the rating domain of the shared MAC machinery (:mod:`core.mac_chain`)
CHAIN = MacChain("winnow-rating/")
_WHERE = "outside the rater view"


def derive(secret: bytes, label: str) -> bytes:
    """A key for one purpose, derived from the session secret (HMAC-SHA256)."""
    return CHAIN.derive(secret, label)


def plan_key(secret: bytes) -> bytes:
    """The key :func:`core.rating.planning.plan_session` mixes into its seed and tokens."""
    return derive(secret, "plan")


def tasks_key(secret: bytes, file_uid: str) -> bytes:
    """Signs a rater file's task list (never written into the file)."""
    return derive(secret, f"tasks/{file_uid}")


def chain_start(secret: bytes, file_uid: str) -> bytes:
    """``K0`` of a rater file's key chain (written into the fresh file)."""
    return derive(secret, f"chain/{file_uid}")


def next_key(key: bytes) -> bytes:
    """``K_{i+1}`` from ``K_i`` (one-way)."""
    return CHAIN.next_key(key)


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
    return CHAIN.append(state, entry)


def verify(secret: bytes, file_uid: str, document: bytes, tasks_mac: str | None,
           entries: Sequence[ChainEntry], state: tuple[Any, Any, Any] | None) -> list[str]:
    """Check a file's tasks MAC and its whole chain; the problems found (empty = intact).

    ``state`` is the file's stored (position, key hex, last mac), or None when missing.
    """
    expected = mac(tasks_key(secret, file_uid), document)
    if not same(expected, tasks_mac):
        return ["its task list, settings or images are not the ones the project "
                "wrote (tasks MAC does not match)"]
    assert isinstance(tasks_mac, str)
    return CHAIN.verify(chain_start(secret, file_uid), tasks_mac, entries, state, _WHERE)


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
