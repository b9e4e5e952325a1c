"""Opening a rater's session file for rating, safely (sweep of stop 29, ADR 177).

Separate from :mod:`core.rating.session_file` so that module need not import
:mod:`core.rating.returned` (which reads files through it): a -wal left beside a file
is checked by reading the file as a returned one first.  :func:`answers_left_in_wal`
is the other end: what closing the rater view tells the rater when another program
keeps answers out of the file (ADR 210).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from core.rating import session_file as sf
from core.rating.returned import read_returned
from core.readonly_db import pending_wal


def open_for_rating(path: str | Path) -> sf.RatingSession:
    """:meth:`RatingSession.open <core.rating.session_file.RatingSession.open>` after
    :func:`refuse_foreign_logs`."""
    refuse_foreign_logs(Path(path))
    return sf.RatingSession.open(path)


def refuse_foreign_logs(path: Path) -> None:
    """Raise :class:`SessionFileError` when the ``-wal`` beside ``path`` is not this file's
    (left by another copy of it), or a ``-journal`` lies beside a file in WAL mode (for
    which Winnow never makes one): opening the file for writing would fold either in and
    damage the file for good.  A -wal a crash left is read, read-only, and must only add
    to the file."""
    if not path.is_file():
        return
    journal = Path(f"{path}-journal")
    if journal.is_file() and journal.stat().st_size > 0:
        with open(path, "rb") as fh:
            header = fh.read(20)
        if header[18:20] == b"\x02\x02":  # WAL mode: that journal is another copy's
            raise sf.SessionFileError(
                f"{path.name}: the {journal.name} beside it is not this file's (another "
                "program left it); opening the file would damage it. Move the -journal "
                "elsewhere (keep it) and open the file again")
    if pending_wal(path):
        read_returned(path)


def answers_left_in_wal(session: sf.RatingSession) -> str | None:
    """Fold the session's -wal into its file (:meth:`RatingSession.checkpoint`); None
    when the file alone now holds every answer, else what to tell the rater: another
    program reading the file inside a transaction (a database viewer, a backup or sync
    tool) keeps SQLite from copying answers given since it began, and the file sent back
    alone would lack them, without a word at the merge (ADR 210)."""
    if session.closed or session.checkpoint():
        return None
    total = int(session.conn.execute("SELECT count(*) FROM judgments").fetchone()[0])
    try:
        alone = sqlite3.connect(f"{session.path.resolve().as_uri()}?mode=ro&immutable=1",
                                uri=True)
        try:
            missing = total - int(alone.execute("SELECT count(*) FROM judgments").fetchone()[0])
        finally:
            alone.close()
    except sqlite3.Error:
        missing = total
    if missing <= 0:  # only the open/pause log is behind: nothing a merge counts
        return None
    name, wal = session.path.name, f"{session.path.name}-wal"
    count = "1 of your answers is" if missing == 1 else f"{missing} of your answers are"
    return (f"{count} not in the file {session.path} yet: another program has the file "
            f"open (a database viewer, a backup or sync tool), so the answers wait in "
            f"{wal} beside it. They are safe there, but {name} sent back alone would lack "
            f"them.\n\nClose that other program, then choose Try again. If you close "
            f"anyway, open {name} in Winnow again later and close it once the other program "
            f"is closed, or send back {name} together with {wal}.")
