"""Issue #11 item 4: ``winnow anonymize`` never maps two inputs onto one output, lists
what it skips, exits non-zero when anything asked for was not written, and resumes."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image
from safety_helpers import snapshot, winnow

from core.export_files import Marker
from core.imaging.batch import output_names
from core.imaging.loading import decode_rgb


def _photo(seed: int, fmt: str) -> bytes:
    img = Image.new("RGB", (64, 48), ((seed * 70) % 256, (seed * 30) % 256, 90))
    img.putpixel((seed % 64, seed % 48), (255, 255, 255))
    out = io.BytesIO()
    img.save(out, fmt)
    return out.getvalue()


def test_output_names_are_distinct_stable_and_case_safe() -> None:
    rels = [Path(n) for n in ("x.jpg", "x.jpeg", "x.JPG", "x.heic", "x.png", "y.jpeg",
                              "sub/a.jpg", "sub/A.JPG", "b.heif")]
    names = {k.as_posix(): v.as_posix() for k, v in output_names(rels).items()}
    # x.JPG and x.jpg differ only in case, which Windows and macOS ignore: counted on
    assert names == {"x.jpg": "x-jpg-2.jpg", "x.jpeg": "x-jpeg.jpg", "x.JPG": "x-JPG.jpg",
                     "x.heic": "x-heic.jpg", "x.png": "x.png", "y.jpeg": "y.jpg",
                     "sub/a.jpg": "sub/a-jpg-2.jpg", "sub/A.JPG": "sub/A-JPG.jpg",
                     "b.heif": "b.jpg"}
    assert output_names(list(reversed(rels))) == output_names(rels)  # order does not matter
    # a name the renaming would produce already belongs to another input: counted on
    tricky = [*rels, Path("x-jpg.jpeg")]
    names = {k.as_posix(): v.as_posix() for k, v in output_names(tricky).items()}
    assert names["x-jpg.jpeg"] == "x-jpg.jpg"
    assert len({o.casefold() for o in names.values()}) == len(tricky)  # distinct, any case


@pytest.fixture
def photo_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "x.jpg").write_bytes(_photo(1, "JPEG"))
    (folder / "x.jpeg").write_bytes(_photo(2, "JPEG"))
    (folder / "x.JPG").write_bytes(_photo(3, "JPEG"))
    (folder / "x.png").write_bytes(_photo(4, "PNG"))
    (folder / "y.webp").write_bytes(_photo(5, "WEBP"))
    (folder / "z.tiff").write_bytes(_photo(6, "TIFF"))
    (folder / "notes.txt").write_text("shot on holiday")
    (folder / ".DS_Store").write_bytes(b"\0")
    try:
        import pillow_heif

        pillow_heif.register_heif_opener()
        Image.open(io.BytesIO(_photo(7, "PNG"))).save(folder / "x.heic", format="HEIF")
    except (ImportError, OSError, KeyError):
        (folder / "x.heic").write_bytes(b"\0\0\0\x18ftypheic")  # listed as skipped then
    return folder


def test_every_input_gets_its_own_output_and_the_rest_is_listed(photo_folder: Path,
                                                                tmp_path: Path) -> None:
    out = tmp_path / "out"
    originals = snapshot(photo_folder)
    done = winnow("anonymize", photo_folder, "--out", out, "--face-detector", "hog",
                  "--no-plates", "--report", tmp_path / "report.json")
    assert done.returncode == 1, done.stderr  # some files were not written: say so
    summary = json.loads(done.stdout)
    written = {w["file"]: Path(w["output"]).name for w in summary["written"]}
    heic = "x.heic" in written
    expected = {"x.jpg": "x-jpg-2.jpg", "x.jpeg": "x-jpeg.jpg", "x.JPG": "x-JPG.jpg",
                "x.png": "x.png"}
    if heic:
        expected["x.heic"] = "x-heic.jpg"
    assert written == expected
    assert summary["photos"] == len(expected)
    skipped = {s["file"]: s["reason"] for s in summary["skipped"]}
    assert set(skipped) == {"y.webp", "z.tiff", "notes.txt"} | (set() if heic else {"x.heic"})
    assert ".webp images are not supported" in skipped["y.webp"]
    assert ".tiff images are not supported" in skipped["z.tiff"]
    assert "not a photo" in skipped["notes.txt"]
    # every output is a whole image of its own input, and listed in the marker
    marker = Marker(out)
    for src, name in expected.items():
        assert decode_rgb((out / name).read_bytes()).shape == (48, 64, 3)
        assert marker.records[name][-1]["source"] == src
    assert sorted(p.name for p in out.iterdir()) == sorted([*expected.values(),
                                                            ".winnow-files.jsonl"])
    assert json.loads((tmp_path / "report.json").read_text())["skipped"] == summary["skipped"]
    assert snapshot(photo_folder) == originals  # originals untouched

    # run again: nothing is redone or replaced, everything is reported as kept
    before = snapshot(out)
    again = winnow("anonymize", photo_folder, "--out", out, "--face-detector", "hog",
                   "--no-plates", "--report", tmp_path / "report.json")
    assert again.returncode == 1, again.stderr  # the skipped files are still not written
    summary = json.loads(again.stdout)
    assert summary["photos"] == 0 and len(summary["kept"]) == len(expected)
    assert snapshot(out) == before


def test_only_supported_photos_exit_zero(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.jpg").write_bytes(_photo(1, "JPEG"))
    (folder / "b.png").write_bytes(_photo(2, "PNG"))
    done = winnow("anonymize", folder, "--out", tmp_path / "out", "--face-detector", "hog",
                  "--no-plates")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["skipped"] == [] and summary["photos"] == 2
