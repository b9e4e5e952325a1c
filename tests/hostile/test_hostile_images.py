"""Hostile and unusual image files through model-output import, the one decoder and a
rating session (which re-encodes every image): bad files are errors naming the file,
odd-but-valid ones decode to upright RGB, and nothing crashes."""

from __future__ import annotations

import io
import struct
import sys
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core.imaging.decode import decode_rgb
from core.ingest.outputs import import_outputs
from core.store import Project
from core.store.project import now_iso

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rating"))
from rating_helpers import build_project, make_session  # noqa: E402


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def _bad() -> dict[str, tuple[bytes, str]]:
    """name -> (bytes, what the error must say)."""
    bomb = (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 50000, 50000, 8, 2,
                                                                  0, 0, 0))
            + _chunk(b"IDAT", zlib.compress(b"\0" * (1 << 20), 9)) + _chunk(b"IEND", b""))
    jpg = io.BytesIO()
    Image.new("RGB", (16, 16), (1, 2, 3)).save(jpg, "JPEG")
    huge = bytearray(jpg.getvalue())
    sof = huge.find(b"\xff\xc0")
    huge[sof + 5:sof + 9] = struct.pack(">HH", 65000, 65000)
    z = io.BytesIO()
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("a.txt", "hi")
    return {"bomb.png": (bomb, "decompression bomb"),
            "hugejpeg.jpg": (bytes(huge), "decompression bomb"),
            "trunc.jpg": (jpg.getvalue()[:300], "truncated"),
            "zip.jpg": (z.getvalue(), "not an image"),
            "empty.png": (b"", "empty file"),
            "svg.png": (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "SVG")}


def _odd() -> dict[str, tuple[bytes, tuple[int, int]]]:
    """name -> (bytes, upright (height, width))."""
    out: dict[str, tuple[bytes, tuple[int, int]]] = {}

    def save(name: str, img: Image.Image, fmt: str, **kw: object) -> None:
        buf = io.BytesIO()
        img.save(buf, fmt, **kw)
        out[name] = (buf.getvalue(), (img.height, img.width))

    save("cmyk.jpg", Image.new("CMYK", (20, 12), (0, 100, 0, 0)), "JPEG")
    save("i16.png", Image.new("I;16", (20, 12), 3000), "PNG")
    save("la.png", Image.new("LA", (20, 12)), "PNG")
    save("pal.png", Image.new("P", (20, 12)), "PNG")
    frames = [Image.new("RGB", (20, 12), (k * 40, 0, 0)) for k in range(4)]
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:])
    out["anim.gif"] = (buf.getvalue(), (12, 20))
    save("x.webp", Image.new("RGB", (20, 12)), "WEBP")
    for k in (5, 6, 7, 8):
        exif = Image.Exif()
        exif[0x0112] = k
        buf = io.BytesIO()
        Image.new("RGB", (20, 12), (0, 0, 255)).save(buf, "JPEG", exif=exif)
        out[f"orient{k}.jpg"] = (buf.getvalue(), (20, 12))  # 5-8 swap the sides
    buf = io.BytesIO()
    Image.new("RGB", (20, 12)).save(buf, "JPEG",
                                    exif=b"Exif\0\0MM\0*\0\0\0\x08\xff\xff\xff")
    out["badexif.jpg"] = (buf.getvalue(), (12, 20))
    buf = io.BytesIO()
    Image.new("RGB", (20, 12)).save(buf, "JPEG", icc_profile=b"not an icc profile at all")
    out["badicc.jpg"] = (buf.getvalue(), (12, 20))
    return out


def test_output_import_names_each_bad_file_and_keeps_the_rest(tmp_path: Path) -> None:
    files = {**{n: b for n, (b, _) in _bad().items()}, **{n: b for n, (b, _) in _odd().items()}}
    (tmp_path / "out" / "m1").mkdir(parents=True)
    for name, data in files.items():
        (tmp_path / "out" / "m1" / name).write_bytes(data)
    with Project.create(tmp_path / "p.winnow") as project, project.transaction() as conn:
        for name in files:
            conn.execute("INSERT INTO samples(id, prompt, original_prompt, split, quality, "
                         "created_at, modified_at) VALUES (?,?,?,?,?,?,?)",
                         (name.split(".")[0], "p", "p", "text-to-image", "Benchmark",
                          now_iso(), now_iso()))
    with Project.open(tmp_path / "p.winnow") as project:
        report = import_outputs(project, tmp_path / "out")
        stored = {r[0] for r in project.conn.execute("SELECT sample_id FROM model_outputs")}
    errors = {e["file"]: e["error"] for e in report.errors}
    assert set(errors) == {f"m1/{n}" for n in _bad()}
    for name, (_, says) in _bad().items():
        assert name in errors[f"m1/{name}"] and says in errors[f"m1/{name}"]
    assert stored == {n.split(".")[0] for n in _odd()}


@pytest.mark.parametrize("name", sorted(_odd()))
def test_odd_images_decode_upright_to_rgb(name: str) -> None:
    data, shape = _odd()[name]
    rgb = decode_rgb(data, name)
    assert rgb.dtype == np.uint8 and rgb.shape == (*shape, 3)


def test_a_rating_session_re_encodes_every_odd_image(tmp_path: Path) -> None:
    odd = _odd()
    names = sorted(odd)

    def output(k: int, model: str) -> tuple[bytes, str]:
        return odd[names[k]][0], names[k].rsplit(".", 1)[1]

    project = build_project(tmp_path / "p.winnow", n_samples=len(names), models=("m1", "m2"),
                            output=output)
    try:
        files = make_session(project, tmp_path / "s", "likert", models=("m1", "m2"),
                             sample_ids=tuple(f"s{k:03d}" for k in range(len(names))),
                             raters=1)
    finally:
        project.close()
    assert len(files) == 1 and files[0].stat().st_size > 0
