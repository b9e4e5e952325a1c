"""``winnow anonymize`` never leaves an output that failed verification where a user
would share it (ADR 163): not written by default, ``x.UNVERIFIED.jpg`` with
``--keep-failed``, never taken as finished by a re-run, and Winnow's own unverified
copies go once they are superseded. The detector and the verifier are replaced by a
stand-in that fails every photo whose name contains "bad", so the rules are tested
without models (the real verifier has its own tests)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from core.export_files import MARKER_NAME, Marker
from core.imaging import batch
from core.imaging.release import RenderJob, Verification

FAILING = {"bad"}


def _photo(path: Path, shade: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.full((40, 60, 3), shade, np.uint8)).save(path, "JPEG")


@pytest.fixture
def fake_verifier(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Render = plain JPEG of the pixels; a photo fails while its shade is in FAIL."""
    calls: list[str] = []

    def render(job: RenderJob, _settings: Any, fmt: str = "jpg") -> tuple[bytes, Any]:
        buffer = io.BytesIO()
        Image.fromarray(job.rgb).save(buffer, "JPEG")
        shade = int(job.rgb[0, 0, 0])
        calls.append(str(shade))
        failing = shade < 100 and "bad" in FAILING  # the "bad" photos are dark
        found = [{"box": [1, 1, 10, 10], "score": 0.9}] if failing else []
        return buffer.getvalue(), Verification("stand-in", outside=found)

    monkeypatch.setattr(batch, "detect_all", lambda _rgb, _settings: [])
    monkeypatch.setattr(batch, "render_verified", render)
    return calls


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    src = tmp_path / "in"
    _photo(src / "good.jpg", 200)
    _photo(src / "sub" / "bad.jpg", 20)
    return src


def test_a_failed_output_is_not_written_and_the_report_says_why(
        folder: Path, tmp_path: Path, fake_verifier: list[str]) -> None:
    out = tmp_path / "out"
    report = batch.anonymize_folder(folder, out)
    assert (out / "good.jpg").is_file()
    assert not (out / "sub" / "bad.jpg").exists()
    assert not (out / "sub" / "bad.UNVERIFIED.jpg").exists()
    [failed] = report["failed"]
    assert failed["file"] == "sub/bad.jpg" and failed["output"] is None
    assert failed["why"] == ("verification failed: 1 face(s) detected outside every "
                             "region")
    assert [p["file"] for p in report["photos"]] == ["good.jpg"]
    # nothing of the failed photo is in the marker either
    assert set(Marker(out).records) == {"good.jpg"}


def test_keep_failed_writes_a_name_that_says_so(
        folder: Path, tmp_path: Path, fake_verifier: list[str]) -> None:
    out = tmp_path / "out"
    report = batch.anonymize_folder(folder, out, keep_failed=True)
    assert not (out / "sub" / "bad.jpg").exists()
    kept = out / "sub" / "bad.UNVERIFIED.jpg"
    assert kept.is_file()
    assert report["failed"][0]["output"] == str(kept)
    assert Marker(out).records["sub/bad.UNVERIFIED.jpg"][-1]["verified"] is False
    assert Marker(out).records["good.jpg"][-1]["verified"] is True


def test_a_rerun_never_takes_an_unverified_output_as_finished(
        folder: Path, tmp_path: Path, fake_verifier: list[str]) -> None:
    out = tmp_path / "out"
    batch.anonymize_folder(folder, out, keep_failed=True)
    fake_verifier.clear()
    report = batch.anonymize_folder(folder, out, keep_failed=True)
    assert [k["file"] for k in report["kept"]] == ["good.jpg"]  # verified: finished
    assert fake_verifier == ["20"]  # the failed photo was tried again
    assert (out / "sub" / "bad.UNVERIFIED.jpg").is_file()  # replaced by Winnow's own
    assert report["errors"] == []
    # now it passes (a better detector, say): its verified output is written and the
    # unverified copy, provably Winnow's, goes
    FAILING.clear()
    try:
        report = batch.anonymize_folder(folder, out)
    finally:
        FAILING.add("bad")
    assert (out / "sub" / "bad.jpg").is_file()
    assert not (out / "sub" / "bad.UNVERIFIED.jpg").exists()
    assert [r["output"] for r in report["removed"]] == [str(out / "sub" / "bad.UNVERIFIED.jpg")]


def test_a_run_without_keep_failed_removes_only_winnows_own_unverified_copy(
        folder: Path, tmp_path: Path, fake_verifier: list[str]) -> None:
    out = tmp_path / "out"
    batch.anonymize_folder(folder, out, keep_failed=True)
    batch.anonymize_folder(folder, out)
    assert not (out / "sub" / "bad.UNVERIFIED.jpg").exists()
    # a file of the user's under that name is never removed, and no other file either
    (out / "sub" / "bad.UNVERIFIED.jpg").write_bytes(b"the user's")
    report = batch.anonymize_folder(folder, out)
    assert (out / "sub" / "bad.UNVERIFIED.jpg").read_bytes() == b"the user's"
    assert report["removed"] == []
    # nor is it replaced with --keep-failed: an error names it
    report = batch.anonymize_folder(folder, out, keep_failed=True)
    assert (out / "sub" / "bad.UNVERIFIED.jpg").read_bytes() == b"the user's"
    assert "bad.UNVERIFIED.jpg" in report["errors"][0]["error"]


def test_an_older_versions_failed_output_is_made_again_not_kept(
        folder: Path, tmp_path: Path, fake_verifier: list[str]) -> None:
    """Before ADR 163 a failed output was written under the plain name and its marker
    record did not say it failed: a re-run (same settings) does not keep it as finished,
    and, failing again, removes it (the marker proves it is Winnow's, of this photo)."""
    out = tmp_path / "out"
    batch.anonymize_folder(folder, out, keep_failed=True)
    # make the folder look like an old version's: the failed output under the plain name
    # and marker lines without "verified"
    old = out / "sub" / "bad.UNVERIFIED.jpg"
    marker = out / MARKER_NAME
    lines = marker.read_text().splitlines()
    rewritten = [lines[0]]
    for line in lines[1:]:
        record = json.loads(line)
        record.pop("verified", None)
        record["file"] = record["file"].replace(".UNVERIFIED", "")
        rewritten.append(json.dumps(record, sort_keys=True))
    marker.write_text("\n".join(rewritten) + "\n")
    old.rename(out / "sub" / "bad.jpg")
    report = batch.anonymize_folder(folder, out)
    assert not (out / "sub" / "bad.jpg").exists()
    assert report["removed"][0]["output"] == str(out / "sub" / "bad.jpg")
    assert (out / "good.jpg").is_file() and report["errors"] == []
    # the good one (no "verified" on record) was made again, not refused
    assert [p["file"] for p in report["photos"]] == ["good.jpg"]


def test_the_cli_exits_1_and_names_each_failure(
        folder: Path, tmp_path: Path, fake_verifier: list[str],
        capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import run_cli
    from core import extras

    if not extras.available("anonymize"):
        pytest.skip("the anonymize extra is not installed")
    out = tmp_path / "out"
    code = run_cli(["anonymize", str(folder), "--out", str(out), "--face-detector", "hog",
                    "--report", str(tmp_path / "r.json")])
    summary = json.loads(capsys.readouterr().out)
    assert code == 1
    assert summary["failed"] == [{"file": "sub/bad.jpg", "output": None, "why": (
        "verification failed: 1 face(s) detected outside every region")}]
    assert [w["file"] for w in summary["written"]] == ["good.jpg"]
    assert json.loads((tmp_path / "r.json").read_text())["failed"][0]["output"] is None
    code = run_cli(["anonymize", str(folder), "--out", str(out), "--face-detector", "hog",
                    "--keep-failed"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 1 and summary["failed"][0]["output"].endswith("bad.UNVERIFIED.jpg")
    assert summary["written"] == []  # good.jpg kept from the first run; nothing else


def test_a_link_under_the_unverified_name_is_never_followed_nor_removed(
        folder: Path, tmp_path: Path, fake_verifier: list[str]) -> None:
    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    precious = tmp_path / "precious.jpg"
    precious.write_bytes(b"the user's photo")
    (out / "sub" / "bad.UNVERIFIED.jpg").symlink_to(precious)
    report = batch.anonymize_folder(folder, out)
    assert report["removed"] == [] and (out / "sub" / "bad.UNVERIFIED.jpg").is_symlink()
    report = batch.anonymize_folder(folder, out, keep_failed=True)
    assert "bad.UNVERIFIED.jpg" in report["errors"][0]["error"]
    assert precious.read_bytes() == b"the user's photo"
    assert (out / "sub" / "bad.UNVERIFIED.jpg").is_symlink()


def test_a_full_disk_stops_the_run_and_names_what_was_not_written(
        folder: Path, tmp_path: Path, fake_verifier: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    from core.files import WriteError

    def full(path: Path, *_a: Any, **_k: Any) -> Path:
        raise WriteError(path, OSError(errno.ENOSPC, "No space left on device"))

    out = tmp_path / "out"
    monkeypatch.setattr(batch, "export_bytes", full)
    report = batch.anonymize_folder(folder, out, keep_failed=True)
    assert "No space left" in report["errors"][0]["error"]
    assert report["not_written"] == ["sub/bad.jpg"]  # named, not silently dropped
    assert not list(out.rglob("*.jpg"))


def test_a_250_byte_name_gets_an_unverified_name_that_fits(
        tmp_path: Path, fake_verifier: list[str]) -> None:
    """ADR 228: ``x.UNVERIFIED.jpg`` of a 250-byte photo name is 261 bytes, over the file
    system's 255: the kept copy could not be written.  Its stem is shortened, keeping the
    extension and a hash of the whole name, so two such names still differ."""
    src = tmp_path / "in"
    names = ["bad-" + "é" * 120 + "-a.jpg", "bad-" + "é" * 120 + "-b.jpg"]
    assert all(len(n.encode()) == 250 for n in names)
    for name in names:
        _photo(src / name, 20)
    out = tmp_path / "out"
    report = batch.anonymize_folder(src, out, keep_failed=True)
    assert report["errors"] == []
    kept = sorted(p.name for p in out.iterdir() if p.name != MARKER_NAME)
    assert len(kept) == 2 and kept[0] != kept[1]
    for name in kept:
        assert len(name.encode()) <= 255 and name.endswith(".UNVERIFIED.jpg")
        assert name.startswith("bad-éé")
    assert sorted(Path(f["output"]).name for f in report["failed"]) == kept
    again = batch.anonymize_folder(src, out, keep_failed=True)  # found again, replaced
    assert again["errors"] == [] and sorted(
        p.name for p in out.iterdir() if p.name != MARKER_NAME) == kept
    FAILING.clear()
    try:
        fixed = batch.anonymize_folder(src, out)  # verified now: the copies go
    finally:
        FAILING.add("bad")
    assert sorted(p.name for p in out.iterdir() if p.name != MARKER_NAME) == names
    assert len(fixed["removed"]) == 2
