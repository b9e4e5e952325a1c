"""The one JPEG/PNG segment iterator (core/imaging/segments.py) on clean and hostile files,
and the release verifier built on it."""

from __future__ import annotations

import io
import zlib

import pytest
from PIL import Image, PngImagePlugin

from core.imaging.release import metadata_found
from core.imaging.segments import TRAILING, SegmentError, jpeg_segments, png_chunks, segments


def _jpeg(progressive: bool = False, size: tuple[int, int] = (64, 48)) -> bytes:
    img = Image.radial_gradient("L").resize(size).convert("RGB")
    out = io.BytesIO()
    img.save(out, "JPEG", quality=80, progressive=progressive)
    return out.getvalue()


def _png(text: dict[str, str] | None = None) -> bytes:
    info = PngImagePlugin.PngInfo()
    for k, v in (text or {}).items():
        info.add_text(k, v)
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (10, 20, 30)).save(out, "PNG", pnginfo=info)
    return out.getvalue()


def _segment(marker: int, payload: bytes) -> bytes:
    return bytes([0xFF, marker]) + (len(payload) + 2).to_bytes(2, "big") + payload


def _chunk(kind: bytes, payload: bytes, crc: int | None = None) -> bytes:
    crc = zlib.crc32(kind + payload) if crc is None else crc
    return len(payload).to_bytes(4, "big") + kind + payload + crc.to_bytes(4, "big")


def _second_scan(data: bytes) -> int:
    first = data.find(b"\xff\xda")
    return data.find(b"\xff\xda", first + 2)


def test_a_clean_jpeg_is_covered_exactly_by_its_segments() -> None:
    data = _jpeg()
    parts = list(jpeg_segments(data))
    kinds = [p.kind for p in parts]
    assert kinds[0] == "SOI" and kinds[-1] == "EOI" and "SOF0" in kinds
    assert kinds.count("SOS") == 1 and "DQT" in kinds and "DHT" in kinds
    # contiguous, nothing skipped, nothing left over
    assert [p.offset for p in parts[1:]] == [p.end for p in parts[:-1]]
    assert parts[-1].end == len(data)
    sos = parts[kinds.index("SOS")]
    assert sos.scan is not None and sos.scan[1] - sos.scan[0] > 10
    assert Image.open(io.BytesIO(data)).size == (64, 48)


def test_progressive_scans_and_a_comment_between_them_are_all_seen() -> None:
    data = _jpeg(progressive=True)
    at = _second_scan(data)
    hostile = data[:at] + _segment(0xFE, b"made by pixelforge") + data[at:]
    kinds = [p.kind for p in jpeg_segments(hostile)]
    assert kinds.count("SOS") > 2 and "COM" in kinds
    assert kinds.index("COM") > kinds.index("SOS")
    # the verifier used to stop at the first scan and miss it
    assert "JPEG comment" in metadata_found(hostile)
    assert metadata_found(data) == []


def test_bytes_after_the_end_are_a_trailing_part() -> None:
    data = _jpeg() + b"pixelforge v2 seed=42"
    parts = list(segments(data))
    assert parts[-1].kind == TRAILING and parts[-1].payload == b"pixelforge v2 seed=42"
    assert "bytes after the end of the image" in metadata_found(data)
    png = _png() + b"\x00model=aurora"
    assert list(png_chunks(png))[-1].kind == TRAILING
    assert "bytes after the end of the image" in metadata_found(png)


def test_fill_bytes_before_a_marker_are_skipped() -> None:
    data = _jpeg()
    at = data.find(b"\xff\xdb")  # first DQT
    padded = data[:at] + b"\xff" * 100_000 + data[at:]
    assert [p.kind for p in jpeg_segments(padded)] == [p.kind for p in jpeg_segments(data)]
    assert metadata_found(padded) == []


def test_endless_fill_bytes_end_with_an_error_not_a_hang() -> None:
    hostile = b"\xff\xd8" + b"\xff" * 5_000_000
    with pytest.raises(SegmentError, match="ends inside a marker"):
        list(jpeg_segments(hostile))
    assert any("damaged JPEG" in f for f in metadata_found(hostile))


def test_megabytes_of_stuffed_bytes_in_scan_data_are_one_scan() -> None:
    data = _jpeg()
    sos = next(p for p in jpeg_segments(data) if p.kind == "SOS")
    assert sos.scan is not None
    body = data[:sos.scan[0]] + b"\xff\x00" * 2_000_000 + b"\xff\xd3" + data[sos.scan[0]:]
    parts = list(jpeg_segments(body))
    scan = next(p for p in parts if p.kind == "SOS")
    assert scan.scan is not None and scan.scan[1] - scan.scan[0] > 4_000_000
    assert parts[-1].kind == "EOI"


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d[:d.find(b"\xff\xdb") + 10], "truncated"),                  # cut in a DQT
    (lambda d: d[:4] + b"\xff\xff" + d[6:], "truncated|expected a JPEG marker"),  # huge length
    (lambda d: d[:2] + _segment(0xE1, b"")[:2] + b"\x00\x01" + d[2:], "impossible length"),
    (lambda d: d[:d.rfind(b"\xff\xd9")], "no end-of-image"),               # no EOI
    (lambda d: d[:2] + b"garbage" + d[2:], "expected a JPEG marker"),
    (lambda d: d[:3], "ends inside a marker|cut off"),
])
def test_hostile_jpegs_raise_a_segment_error_naming_the_byte(mutate, message) -> None:  # type: ignore[no-untyped-def]
    hostile = mutate(_jpeg())
    with pytest.raises(SegmentError, match=message) as info:
        list(jpeg_segments(hostile))
    assert "byte" in str(info.value)
    found = metadata_found(hostile)
    assert found and any("damaged JPEG structure" in f for f in found)


def test_a_length_past_the_end_is_refused_even_for_the_last_segment() -> None:
    hostile = b"\xff\xd8" + b"\xff\xe1\x40\x00" + b"Exif\x00\x00" + b"x" * 20
    with pytest.raises(SegmentError, match="declares 16384 bytes but only 28 are left"):
        list(jpeg_segments(hostile))
    found = metadata_found(hostile)
    assert "EXIF" in found and any("damaged" in f for f in found)


def test_png_chunks_text_crc_and_order() -> None:
    data = _png({"parameters": "pixelforge", "Software": "aurora-xl"})
    kinds = [c.kind for c in png_chunks(data)]
    assert kinds[0] == "IHDR" and kinds[-1] == "IEND" and kinds.count("tEXt") == 2
    assert all(c.crc_ok for c in png_chunks(data))
    assert metadata_found(data) == ["PNG tEXt chunk"]
    ihdr = next(png_chunks(data))
    bad = data[:ihdr.end - 1] + bytes([data[ihdr.end - 1] ^ 0xFF]) + data[ihdr.end:]
    assert [c.crc_ok for c in png_chunks(bad)][0] is False
    assert "PNG IHDR chunk with a bad CRC" in metadata_found(bad)


@pytest.mark.parametrize(("tail", "message"), [
    (_chunk(b"tEXt", b"k\x00v")[:9], "chunk header cut off"),
    (b"\x00\x00\x10\x00tEXt" + b"x" * 30, "truncated"),
    (b"\x90\x00\x00\x00tEXt" + b"\x00" * 8, "more than a PNG allows"),
    (b"", "without an IEND"),
])
def test_hostile_pngs_raise_a_segment_error(tail: bytes, message: str) -> None:
    head = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", b"\x00" * 13)
    with pytest.raises(SegmentError, match=message):
        list(png_chunks(head + tail))
    assert any("damaged PNG structure" in f for f in metadata_found(head + tail))


def test_neither_jpeg_nor_png() -> None:
    with pytest.raises(SegmentError, match="not a JPEG or PNG"):
        list(segments(b"GIF89a...."))
    assert metadata_found(b"GIF89a") == ["not a JPEG or PNG"]
