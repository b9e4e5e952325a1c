"""Read a file line by line without ever holding more than one bounded line in memory.

``for raw in fh`` reads a whole line before anyone can look at its length: a 2 GB file
with no newline needs 2 GB (and ``/dev/zero`` never ends). :class:`BoundedLines`
reads fixed-size chunks and, once a line passes the limit, stops keeping it and only
counts its bytes up to the next newline, so memory stays at ``limit + chunk`` whatever
the file holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

CHUNK = 1 << 20


class BoundedLines:
    """Iterate ``(line number, line)``; ``line`` is the bytes without the newline, or
    the line's length (an ``int``) when it is longer than ``limit`` bytes.

    ``offset`` is how many bytes have been read so far (for progress).
    """

    def __init__(self, fh: BinaryIO, limit: int, chunk: int = CHUNK) -> None:
        self.fh = fh
        self.limit = limit
        self.chunk = chunk
        self.offset = 0

    def __iter__(self) -> Iterator[tuple[int, bytes | int]]:
        lineno = 0
        pending: list[bytes] = []  # pieces of the current line (empty once too long)
        length = 0  # bytes of the current line so far
        too_long = False
        while True:
            data = self.fh.read(self.chunk)
            if not data:
                break
            self.offset += len(data)
            pieces = data.split(b"\n")
            last = len(pieces) - 1
            for k, piece in enumerate(pieces):
                length += len(piece)
                if not too_long:
                    if length > self.limit:
                        too_long = True
                        pending.clear()
                    else:
                        pending.append(piece)
                if k == last:
                    break  # the line goes on in the next chunk
                lineno += 1
                if too_long:
                    yield lineno, length
                else:
                    yield lineno, pending[0] if len(pending) == 1 else b"".join(pending)
                pending, length, too_long = [], 0, False
        if too_long:
            yield lineno + 1, length
        elif length:
            yield lineno + 1, b"".join(pending)
