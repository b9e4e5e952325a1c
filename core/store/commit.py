"""Ending a write transaction so that nothing is ever half done."""

from __future__ import annotations

import sqlite3


def commit_or_roll_back(conn: sqlite3.Connection) -> None:
    """COMMIT; when SQLite refuses it (a deferred constraint, a full disk, an I/O error)
    the transaction may stay open, so roll it back before re-raising: otherwise the next
    write fails with "cannot start a transaction within a transaction" and a later COMMIT
    would write the refused changes."""
    try:
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
