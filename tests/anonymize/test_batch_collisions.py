"""``winnow anonymize`` attack fixes (ADR 186): every input gets an output no other input
(nor another's ``x.UNVERIFIED.jpg``, nor a folder) can take; a recorded file is replaced
only for the photo that wrote it; a photo that fails in an unexpected way, or whose name
is not UTF-8, is one error, not the end of the run; an unverified copy of an edited photo
goes once its verified output is written; folders left out are named. The detector and
verifier are a stand-in: a photo fails while it is dark (see ``fake_verifier``)."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from core.export_files import MARKER_NAME, Marker, marker_line
from core.imaging import batch
from core.imaging.loading import scan_photos
from core.imaging.release import RenderJob, Verification
from core.jobs import Cancelled

DARK, LIGHT = 20, 200


def _photo(path: Path, shade: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.full((40, 60, 3), shade, np.uint8)).save(path, "JPEG")


def _shade(path: Path) -> int:
    return int(np.asarray(Image.open(path).convert("RGB"))[0, 0, 0])


@pytest.fixture
def fake_verifier(monkeypatch: pytest.MonkeyPatch) -> None:
    """Render = plain JPEG of the pixels; a dark photo fails its verification."""

    def render(job: RenderJob, _settings: Any, fmt: str = "jpg") -> tuple[bytes, Any]:
        buffer = io.BytesIO()
        Image.fromarray(job.rgb).save(buffer, "JPEG")
        found = [{"box": [1, 1, 10, 10], "score": 0.9}] if job.rgb[0, 0, 0] < 100 else []
        return buffer.getvalue(), Verification("stand-in", outside=found)

    monkeypatch.setattr(batch, "detect_all", lambda _rgb, _settings: [])
    monkeypatch.setattr(batch, "render_verified", render)


def _names(rels: list[str]) -> dict[str, str]:
    return {k.as_posix(): v.as_posix()
            for k, v in batch.output_names([Path(r) for r in rels]).items()}


# -- D3: x.UNVERIFIED.jpg as an input ---------------------------------------------------
def test_no_output_takes_another_inputs_unverified_name() -> None:
    names = _names(["x.jpg", "x.UNVERIFIED.jpg", "y.unverified.png", "z.jpg"])
    assert names["x.jpg"] == "x.jpg" and names["z.jpg"] == "z.jpg"  # untouched
    assert names["x.UNVERIFIED.jpg"] == "x.UNVERIFIED-jpg.jpg"
    assert names["y.unverified.png"] == "y.unverified-png.png"  # any case, alone too
    outputs = {o.casefold() for o in names.values()}
    spares = {batch.unverified_name(Path(o)).as_posix().casefold() for o in names.values()}
    assert len(outputs) == len(names) and not outputs & spares


def test_an_input_named_like_an_unverified_copy_keeps_its_own_output(
        tmp_path: Path, fake_verifier: None) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    _photo(src / "x.jpg", DARK)  # fails: kept as x.UNVERIFIED.jpg
    _photo(src / "x.UNVERIFIED.jpg", LIGHT)  # a harmless photo of that name
    report = batch.anonymize_folder(src, out, keep_failed=True)
    assert report["errors"] == []
    assert _shade(out / "x.UNVERIFIED.jpg") < 100  # x.jpg's unverified copy
    [written] = [p for p in report["photos"] if p["verification"]["ok"]]
    assert written["file"] == "x.UNVERIFIED.jpg"
    assert _shade(Path(written["output"])) > 100  # the light photo's own output
    assert Marker(out).records["x.UNVERIFIED.jpg"][-1]["source"] == "x.jpg"


def test_a_recorded_file_is_replaced_only_for_the_photo_that_wrote_it(
        tmp_path: Path, fake_verifier: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """An output folder of the version before ADR 186 holds the light photo's verified
    output under x.UNVERIFIED.jpg: x.jpg's unverified copy never replaces it."""
    src, out = tmp_path / "in", tmp_path / "out"
    _photo(src / "x.UNVERIFIED.jpg", LIGHT)
    with monkeypatch.context() as m:
        m.setattr(batch, "output_names", lambda photos: {p: p for p in photos})
        batch.anonymize_folder(src, out)
    _photo(src / "x.jpg", DARK)
    report = batch.anonymize_folder(src, out, keep_failed=True, overwrite=True)
    assert _shade(out / "x.UNVERIFIED.jpg") > 100  # the light photo's, untouched
    [error] = report["errors"]
    assert error["file"] == "x.jpg" and "x.UNVERIFIED.jpg" in error["error"]


# -- D8: a folder named like an output --------------------------------------------------
def test_no_output_takes_the_name_of_a_folder() -> None:
    names = _names(["x.jpeg", "x.jpg/a.jpg", "y.jpg", "y.UNVERIFIED.jpg/b.png"])
    assert names["x.jpeg"] == "x-jpeg.jpg" and names["x.jpg/a.jpg"] == "x.jpg/a.jpg"
    assert names["y.jpg"] == "y-jpg.jpg"  # its unverified copy would land on a folder


def test_a_folder_named_like_an_output_is_written_into(
        tmp_path: Path, fake_verifier: None) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    _photo(src / "x.jpeg", LIGHT)
    _photo(src / "x.jpg" / "a.jpg", LIGHT)
    report = batch.anonymize_folder(src, out)
    assert report["errors"] == []
    assert (out / "x-jpeg.jpg").is_file() and (out / "x.jpg" / "a.jpg").is_file()
    assert batch.anonymize_folder(src, out)["errors"] == []  # and again


# -- D5: one photo failing in an unexpected way -----------------------------------------
def test_an_unexpected_failure_is_one_error_and_the_rest_is_done(
        tmp_path: Path, fake_verifier: None, monkeypatch: pytest.MonkeyPatch) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    for name in ("a.jpg", "panorama.jpg", "z.jpg"):
        _photo(src / name, LIGHT)
    render = batch.render_verified

    def broken(job: RenderJob, settings: Any, fmt: str = "jpg") -> tuple[bytes, Any]:
        if job.rgb[0, 0, 1] == 1:
            raise OSError("broken data stream when writing image file")
        return render(job, settings, fmt)

    Image.fromarray(np.full((40, 60, 3), [LIGHT, 1, 1], np.uint8)).save(
        src / "panorama.jpg", "PNG")
    monkeypatch.setattr(batch, "render_verified", broken)
    report = batch.anonymize_folder(src, out)
    [error] = report["errors"]
    assert error["file"] == "panorama.jpg"
    assert "broken data stream" in error["error"] and "nothing was written" in error["error"]
    assert [p["file"] for p in report["photos"]] == ["a.jpg", "z.jpg"]
    assert not (out / "panorama.jpg").exists()


@pytest.mark.parametrize("fatal", [KeyboardInterrupt, Cancelled])
def test_an_interrupt_or_a_cancel_still_stops_the_run(
        tmp_path: Path, fake_verifier: None, monkeypatch: pytest.MonkeyPatch,
        fatal: type[BaseException]) -> None:
    _photo(tmp_path / "in" / "a.jpg", LIGHT)

    def stop(*_a: Any, **_k: Any) -> None:
        raise fatal("stop")

    monkeypatch.setattr(batch, "render_verified", stop)
    with pytest.raises(fatal):
        batch.anonymize_folder(tmp_path / "in", tmp_path / "out")


# -- D6: a name that is not UTF-8 -------------------------------------------------------
def test_a_marker_line_keeps_a_name_that_is_not_utf8() -> None:
    name = os.fsdecode(b"caf\xe9.jpg")
    line = marker_line({"file": name, "source": name})
    line.decode("utf-8")  # the marker stays UTF-8 text
    assert json.loads(line) == {"file": name, "source": name}  # read back exactly
    assert marker_line({"file": "café.jpg"}) == '{"file": "café.jpg"}\n'.encode()


@pytest.mark.skipif(sys.platform != "linux", reason="needs a file system of byte names")
def test_a_photo_whose_name_is_not_utf8_is_anonymized_and_resumed(
        tmp_path: Path, fake_verifier: None) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    _photo(src / "a.jpg", LIGHT)
    name = os.fsdecode(b"caf\xe9.jpg")
    _photo(src / name, LIGHT)
    report = batch.anonymize_folder(src, out)
    assert report["errors"] == [] and len(report["photos"]) == 2
    assert (out / name).is_file()
    assert Marker(out).lists(name, out / name)
    report = batch.anonymize_folder(src, out)
    assert {k["file"] for k in report["kept"]} == {"a.jpg", name}


# -- D7: an unverified copy of a photo edited since -------------------------------------
def test_an_edited_photos_verified_output_removes_its_unverified_copy(
        tmp_path: Path, fake_verifier: None) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    _photo(src / "x.jpg", DARK)
    batch.anonymize_folder(src, out, keep_failed=True)
    assert (out / "x.UNVERIFIED.jpg").is_file()
    _photo(src / "x.jpg", LIGHT)  # touched up: other bytes, now it passes
    report = batch.anonymize_folder(src, out)
    assert (out / "x.jpg").is_file() and not (out / "x.UNVERIFIED.jpg").exists()
    assert [r["output"] for r in report["removed"]] == [str(out / "x.UNVERIFIED.jpg")]


def test_an_edited_photo_failing_again_without_keep_failed_removes_its_old_copy(
        tmp_path: Path, fake_verifier: None) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    _photo(src / "x.jpg", DARK)
    batch.anonymize_folder(src, out, keep_failed=True)
    _photo(src / "x.jpg", DARK + 5)
    report = batch.anonymize_folder(src, out)
    assert not (out / "x.UNVERIFIED.jpg").exists()
    assert report["removed"][0]["output"] == str(out / "x.UNVERIFIED.jpg")


def test_an_unverified_copy_of_a_photo_no_longer_there_is_named(
        tmp_path: Path, fake_verifier: None) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    _photo(src / "x.jpg", DARK)
    _photo(src / "y.jpg", LIGHT)
    batch.anonymize_folder(src, out, keep_failed=True)
    (src / "x.jpg").rename(src / "renamed.jpg")
    _photo(src / "renamed.jpg", LIGHT)
    report = batch.anonymize_folder(src, out)
    stale = out / "x.UNVERIFIED.jpg"
    assert stale.is_file()  # not this run's input: named, not removed
    [failed] = report["failed"]
    assert failed["file"] == "x.jpg" and failed["output"] == str(stale)
    assert "no longer" in failed["why"]


def test_a_users_file_under_an_unverified_name_is_never_removed(
        tmp_path: Path, fake_verifier: None) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    _photo(src / "x.jpg", LIGHT)
    out.mkdir()
    (out / "x.UNVERIFIED.jpg").write_bytes(b"the user's")
    report = batch.anonymize_folder(src, out)
    assert (out / "x.UNVERIFIED.jpg").read_bytes() == b"the user's"
    assert report["removed"] == [] and report["failed"] == []


# -- D4: folders left out ---------------------------------------------------------------
def test_linked_and_hidden_folders_with_photos_are_named(tmp_path: Path) -> None:
    src, elsewhere = tmp_path / "in", tmp_path / "elsewhere"
    _photo(src / "a.jpg", LIGHT)
    _photo(elsewhere / "b.jpg", LIGHT)
    _photo(src / ".drafts" / "c.jpg", LIGHT)
    (src / ".git").mkdir()
    (src / ".git" / "HEAD").write_text("ref")
    (src / "trip").symlink_to(elsewhere, target_is_directory=True)
    (src / "again").symlink_to(src, target_is_directory=True)  # inside: reached anyway
    photos, skipped = scan_photos(src)
    assert photos == [Path("a.jpg")]
    reasons = dict(skipped)
    assert set(reasons) == {".drafts", "trip"}
    assert "hidden folder" in reasons[".drafts"]
    assert "link to a folder outside" in reasons["trip"]


# -- the output folder --------------------------------------------------------------------
def test_a_linked_folder_in_the_output_folder_is_not_written_through(
        tmp_path: Path, fake_verifier: None) -> None:
    src, out, elsewhere = tmp_path / "in", tmp_path / "out", tmp_path / "elsewhere"
    _photo(src / "a.jpg", LIGHT)
    _photo(src / "sub" / "b.jpg", LIGHT)
    elsewhere.mkdir()
    out.mkdir()
    (out / "sub").symlink_to(elsewhere, target_is_directory=True)
    report = batch.anonymize_folder(src, out)
    assert list(elsewhere.iterdir()) == []
    [error] = report["errors"]
    assert error["file"] == "sub/b.jpg" and "link" in error["error"]
    assert (out / "a.jpg").is_file()


def test_a_read_only_output_folder_is_refused_before_any_photo(
        tmp_path: Path, fake_verifier: None, monkeypatch: pytest.MonkeyPatch) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    _photo(src / "a.jpg", LIGHT)
    out.mkdir()
    real = os.access
    monkeypatch.setattr(batch.os, "access", lambda p, mode, **k: (
        False if Path(p) == out else real(p, mode, **k)))
    with pytest.raises(ValueError, match="cannot write"):
        batch.anonymize_folder(src, out)
    assert not (out / MARKER_NAME).exists()
