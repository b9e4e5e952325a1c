"""Bulk writes that keep the full-text indexes exact without per-row triggers.

The search indexes (``posts_fts``, ``samples_fts`` and Curate's ``sample_search``,
ADR 032) are kept in step by triggers.  For one row that is right; for an import of
tens of thousands it is most of the time: every feedback row rewrites its sample's
whole search document.  :func:`deferred_search_index` lifts the *insert* triggers
inside the caller's transaction, lets it insert, then brings every index up to date
with one ``INSERT … SELECT`` each and puts the triggers back — all in the same
transaction, so a crash or a rollback leaves the old triggers and indexes untouched.
Update and delete triggers stay active throughout.

If the schema's triggers are not exactly the ones this module knows — same names and
same SQL, pinned by :data:`TRIGGERS_SHA256` (a later migration renamed or rewrote one) —
nothing is lifted: slower, never wrong.  ``tests/ingest/test_bulk_index.py`` fails when
the current schema's triggers stop matching the pin, so whoever changes a trigger
updates the bulk statements here too.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from collections.abc import Iterator

from core.store.migrations.m009_search import DOCUMENT

#: The insert triggers lifted, and what replaces them in bulk.
LIFTED = ("posts_fts_ai", "sample_search_post_ai", "samples_fts_ai", "sample_search_ai",
          "sample_search_fb_ai")

_BULK = (
    # posts_fts_ai
    "INSERT INTO posts_fts(rowid, text) SELECT rowid, text FROM posts WHERE rowid > :post",
    # sample_search_post_ai: older samples whose post arrived now
    "UPDATE sample_search SET (post_text, meta) = (SELECT p.text, s.id || ' ' || s.post_id "
    "|| ' ' || coalesce(p.author, '') || ' ' || coalesce(p.keyword, '') FROM samples s "
    "JOIN posts p ON p.id = s.post_id WHERE s.rowid = sample_search.rowid) WHERE rowid IN "
    "(SELECT s.rowid FROM posts p CROSS JOIN samples s ON s.post_id = p.id "  # from the new
    "WHERE p.rowid > :post AND s.rowid <= :sample)",  # posts, not every older sample (ADR 029)
    # samples_fts_ai
    "INSERT INTO samples_fts(rowid, prompt, original_prompt) SELECT rowid, prompt, "
    "original_prompt FROM samples WHERE rowid > :sample",
    # sample_search_ai (new samples, their feedback already in place)
    "INSERT INTO sample_search(rowid, prompt, post_text, feedback, meta) SELECT s.rowid, "
    f"{DOCUMENT} FROM samples s LEFT JOIN posts p ON p.id = s.post_id "
    "WHERE s.rowid > :sample",
    # sample_search_fb_ai: older samples that received feedback rows
    "UPDATE sample_search SET feedback = coalesce((SELECT group_concat(f.text, ' ') FROM "
    "feedback f JOIN samples s ON s.id = f.sample_id WHERE s.rowid = sample_search.rowid), '') "
    "WHERE rowid IN (SELECT s.rowid FROM samples s JOIN temp.bulk_feedback b ON b.id = s.id "
    "WHERE s.rowid <= :sample)",
)


#: SHA-256 of the lifted triggers' SQL (name order) that :data:`_BULK` reproduces.
TRIGGERS_SHA256 = "a3377a33d3a7c2f1ab7606391be1aaced347b36e345c93175c426ab2d1a890b1"


def triggers_digest(sql_by_name: dict[str, str]) -> str:
    """The pin of a schema's lifted triggers (compared with :data:`TRIGGERS_SHA256`)."""
    text = "\n".join(f"{name}\n{sql_by_name.get(name, '')}" for name in LIFTED)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _max_rowid(conn: sqlite3.Connection, table: str) -> int:
    return int(conn.execute(f"SELECT coalesce(max(rowid), 0) FROM {table}").fetchone()[0])


@contextlib.contextmanager
def deferred_search_index(conn: sqlite3.Connection) -> Iterator[None]:
    """Inside an open transaction: insert posts, samples and feedback; the full-text
    indexes are updated in bulk when the block ends (see the module docstring)."""
    names = ",".join("?" * len(LIFTED))
    saved = dict(conn.execute(
        f"SELECT name, sql FROM main.sqlite_master WHERE type = 'trigger' AND name IN ({names})",
        LIFTED).fetchall())
    if set(saved) != set(LIFTED) or triggers_digest(saved) != TRIGGERS_SHA256:
        yield
        return
    marks = {"post": _max_rowid(conn, "posts"), "sample": _max_rowid(conn, "samples")}
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS bulk_feedback(id TEXT PRIMARY KEY)")
    conn.execute("DELETE FROM temp.bulk_feedback")
    conn.execute("CREATE TEMP TRIGGER bulk_feedback_ai AFTER INSERT ON main.feedback BEGIN "
                 "INSERT OR IGNORE INTO bulk_feedback(id) VALUES (new.sample_id); END")
    try:
        for name in LIFTED:
            conn.execute(f"DROP TRIGGER main.{name}")
        yield
        for sql in _BULK:
            conn.execute(sql, marks)
        for name in LIFTED:
            conn.execute(saved[name])
    finally:
        conn.execute("DROP TRIGGER IF EXISTS temp.bulk_feedback_ai")
