"""Opening a rater's session file for rating, safely (sweep of stop 29, ADR 177).

Separate from :mod:`core.rating.session_file` so that module need not import
:mod:`core.rating.returned` (which reads files through it): a -wal left beside a file
is checked by reading the file as a returned one first.
"""

from __future__ import annotations

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
