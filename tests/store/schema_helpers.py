"""Turning a current file back into what an earlier Winnow left, for tests of opening,
migrating and merging files written before a migration."""

from __future__ import annotations

import sqlite3


def undo_m013(conn: sqlite3.Connection) -> None:
    """Put each sample's ``raw``/``raw_hash`` back into its row and drop ``sample_raw``,
    as schema 12 kept them (inside the caller's transaction; version left as it is)."""
    conn.execute("ALTER TABLE samples ADD COLUMN raw TEXT")
    conn.execute("ALTER TABLE samples ADD COLUMN raw_hash TEXT")
    conn.execute("UPDATE samples SET raw = r.raw, raw_hash = r.raw_hash FROM sample_raw r "
                 "WHERE r.sample_id = samples.id")
    conn.execute("DROP TABLE sample_raw")


def undo_m014(conn: sqlite3.Connection) -> None:
    """Drop ``photo_regions.edited``, as schema 13 had no such column (ADR 189)."""
    conn.execute("ALTER TABLE photo_regions DROP COLUMN edited")


def undo_m015(conn: sqlite3.Connection) -> None:
    """Drop ``photo_rejections``, as schema 14 had no such table (ADR 201)."""
    conn.execute("DROP TABLE photo_rejections")
