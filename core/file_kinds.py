"""What a file that is not text is, told from its first bytes, for clear refusals.

An import or a statistics command handed the wrong file (a project, an image, an
archive) says what the file is and what to do, once, instead of one "not valid UTF-8"
per line (ADR 195).
"""

from __future__ import annotations

import os
from typing import BinaryIO

#: (leading bytes, what a file starting so is); checked in order
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"SQLite format 3\x00", "an SQLite database (a Winnow project or rater file?)"),
    (b"\x1f\x8b", "gzip-compressed; decompress it first"),
    (b"PK\x03\x04", "a zip archive; extract the file first"),
    (b"PAR1", "a Parquet file"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF-", "a PDF document"),
)


def binary_kind(head: bytes, *, allow_parquet: bool = False,
                by_nul: bool = True) -> str | None:
    """What the file starting with ``head`` is when it is not text — a known format by its
    magic bytes ("a PNG image", "gzip-compressed; decompress it first"), else "binary data
    (NUL bytes)" when ``head`` holds any (unless not ``by_nul``: a line-by-line import
    lets a line of NULs be that line's error) — or None for text (and for Parquet when
    ``allow_parquet``).  A kind the user can fix says how
    after "; ".  UTF-16
    and UTF-32 text hold NUL bytes too: callers that take or name them check first."""
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "a WebP image"
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return None if allow_parquet and magic == b"PAR1" else what
    if by_nul and b"\x00" in head:
        return "binary data (NUL bytes)"
    return None


#: UTF-32's byte-order marks (the little-endian one begins with UTF-16's: test it first)
UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")


def first_hole(fd: int, size: int) -> int | None:
    """Where the first hole of a sparse file begins (a hole reads as NUL bytes, so a text
    file with one is refused without reading gigabytes of them), or None: no hole, or a
    file system that does not say."""
    try:
        hole = os.lseek(fd, 0, os.SEEK_HOLE)
    except (OSError, AttributeError):  # no SEEK_HOLE here, or not a seekable file
        return None
    return hole if hole < size else None


def line_at(fh: BinaryIO, offset: int) -> int:
    """The 1-based line of byte ``offset`` of the open file ``fh``, read a MiB at a time."""
    fh.seek(0)
    lines, left = 1, offset
    while left > 0 and (chunk := fh.read(min(left, 2**20))):
        lines += chunk.count(b"\n")
        left -= len(chunk)
    return lines
