"""Walk the segments of a JPEG and the chunks of a PNG, safely, without decoding pixels.

One iterator for every place that looks inside image files: the release verifier
(:func:`core.imaging.release.metadata_found`) and the rating session checks
(:mod:`core.rating.images`, :mod:`core.rating.audit`).  Hostile files are expected:

- a length that runs past the end, a segment cut short, a file without its end marker
  or with bytes that are not a marker where one must be → :class:`SegmentError`
  (naming the byte offset), raised when the walk reaches the problem, after the parts
  before it were yielded;
- any number of fill bytes (``0xFF``) before a JPEG marker, and megabytes of stuffed
  ``FF 00`` in scan data, are skipped by regular expressions in C, not byte by byte;
- a PNG chunk whose CRC does not match is yielded with ``crc_ok=False`` (the caller
  decides);
- bytes after the end (JPEG EOI, PNG IEND) are yielded as one part of kind
  :data:`TRAILING`.

A JPEG scan (SOS) is one part: its ``payload`` is the scan header, ``scan`` the range
of the entropy-coded data after it (restart markers included).  Progressive files have
several scans, with tables, comments or application segments between them: each is
its own part.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
JPEG_SOI = b"\xff\xd8"
#: kind of the part that holds bytes after the image's end marker
TRAILING = "trailing"

_FILL = re.compile(rb"\xff+")
# a marker inside scan data: 0xFF not followed by stuffing (00), a restart marker
# (D0-D7) or another fill byte
_SCAN_END = re.compile(rb"\xff(?![\x00\xd0-\xd7\xff])", re.DOTALL)
_STANDALONE = {0x01, 0xD8, 0xD9, *range(0xD0, 0xD8)}  # TEM, SOI, EOI, RSTn
_NAMES = {0xC4: "DHT", 0xC8: "JPG", 0xCC: "DAC", 0xD8: "SOI", 0xD9: "EOI", 0xDA: "SOS",
          0xDB: "DQT", 0xDC: "DNL", 0xDD: "DRI", 0xDE: "DHP", 0xDF: "EXP", 0xFE: "COM",
          0x01: "TEM"}


class SegmentError(ValueError):
    """The file's structure is broken (the message gives the byte offset)."""


@dataclass(frozen=True)
class Segment:
    """One JPEG segment or PNG chunk (or the bytes after the end, kind ``trailing``)."""

    kind: str                 # "SOI", "APP1", "DQT", "SOF0", "SOS", "COM", "EOI" / "IHDR", "tEXt"
    offset: int               # where it starts (JPEG: its 0xFF; PNG: the length field)
    end: int                  # just past it (JPEG SOS: past its entropy-coded data)
    payload: bytes            # JPEG: body after the length field; PNG: chunk data
    marker: int | None = None  # JPEG marker byte
    crc_ok: bool = True       # PNG: whether the stored CRC matches
    scan: tuple[int, int] | None = None  # JPEG SOS: entropy-coded data range


def marker_name(marker: int) -> str:
    """``0xE1`` → ``"APP1"``, ``0xC2`` → ``"SOF2"``, ``0xD3`` → ``"RST3"``."""
    if 0xE0 <= marker <= 0xEF:
        return f"APP{marker - 0xE0}"
    if 0xD0 <= marker <= 0xD7:
        return f"RST{marker - 0xD0}"
    if marker in _NAMES:
        return _NAMES[marker]
    if 0xC0 <= marker <= 0xCF:
        return f"SOF{marker - 0xC0}"
    return f"marker 0x{marker:02X}"


def image_kind(data: bytes) -> str | None:
    """``"jpeg"``, ``"png"`` or None, from the first bytes."""
    if data.startswith(PNG_SIGNATURE):
        return "png"
    if data.startswith(JPEG_SOI):
        return "jpeg"
    return None


def segments(data: bytes) -> Iterator[Segment]:
    """The parts of a JPEG or PNG (see :func:`jpeg_segments`, :func:`png_chunks`)."""
    kind = image_kind(data)
    if kind == "png":
        return png_chunks(data)
    if kind == "jpeg":
        return jpeg_segments(data)
    raise SegmentError("not a JPEG or PNG file")


def jpeg_segments(data: bytes) -> Iterator[Segment]:
    """Every segment of a JPEG from SOI to EOI, then any trailing bytes."""
    if not data.startswith(JPEG_SOI):
        raise SegmentError("not a JPEG file (no start-of-image marker)")
    yield Segment("SOI", 0, 2, b"", 0xD8)
    size = len(data)
    pos = 2
    while True:
        fill = _FILL.match(data, pos)
        if fill is None:
            raise SegmentError(f"byte {pos}: expected a JPEG marker, found "
                               f"0x{data[pos]:02X}" if pos < size else
                               f"byte {pos}: the file ends without an end-of-image marker")
        start = fill.end() - 1  # the last 0xFF before the marker byte
        if fill.end() >= size:
            raise SegmentError(f"byte {start}: the file ends inside a marker")
        marker = data[fill.end()]
        name = marker_name(marker)
        if marker == 0x00:
            raise SegmentError(f"byte {start}: stuffed byte outside scan data")
        if marker in _STANDALONE:
            end = start + 2
            yield Segment(name, start, end, b"", marker)
            if marker == 0xD9:
                if end < size:
                    yield Segment(TRAILING, end, size, data[end:])
                return
            pos = end
            continue
        if start + 4 > size:
            raise SegmentError(f"byte {start}: {name} is cut off before its length")
        length = int.from_bytes(data[start + 2:start + 4], "big")
        if length < 2:
            raise SegmentError(f"byte {start}: {name} declares an impossible length {length}")
        body_end = start + 2 + length
        if body_end > size:
            raise SegmentError(f"byte {start}: {name} declares {length} bytes but only "
                               f"{size - start - 2} are left (truncated)")
        payload = data[start + 4:body_end]
        if marker != 0xDA:
            yield Segment(name, start, body_end, payload, marker)
            pos = body_end
            continue
        found = _SCAN_END.search(data, body_end)
        if found is None or found.start() + 1 >= size:
            raise SegmentError(f"byte {start}: scan data runs to the end of the file "
                               "(no end-of-image marker)")
        yield Segment(name, start, found.start(), payload, marker,
                      scan=(body_end, found.start()))
        pos = found.start()


def png_chunks(data: bytes) -> Iterator[Segment]:
    """Every chunk of a PNG from IHDR to IEND, then any trailing bytes."""
    if not data.startswith(PNG_SIGNATURE):
        raise SegmentError("not a PNG file (bad signature)")
    size = len(data)
    pos = len(PNG_SIGNATURE)
    while True:
        if pos + 12 > size:
            raise SegmentError(f"byte {pos}: the file ends without an IEND chunk"
                               if pos == size else f"byte {pos}: chunk header cut off")
        length = int.from_bytes(data[pos:pos + 4], "big")
        kind = data[pos + 4:pos + 8]
        name = kind.decode("latin-1")
        if length > 0x7FFFFFFF:
            raise SegmentError(f"byte {pos}: chunk {name!r} declares {length} bytes "
                               "(more than a PNG allows)")
        end = pos + 12 + length
        if end > size:
            raise SegmentError(f"byte {pos}: chunk {name!r} declares {length} bytes but "
                               f"only {max(0, size - pos - 12)} are left (truncated)")
        body = data[pos + 8:pos + 8 + length]
        crc = int.from_bytes(data[end - 4:end], "big")
        yield Segment(name, pos, end, body, crc_ok=zlib.crc32(kind + body) == crc)
        if kind == b"IEND":
            if end < size:
                yield Segment(TRAILING, end, size, data[end:])
            return
        pos = end
