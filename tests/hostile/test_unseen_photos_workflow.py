"""A photographer's release workflow attacked: a release killed with SIGKILL right after
its file was written, two `winnow anonymize` runs into one folder at once, a Release all
of 50 photos cancelled half-way, and a file of the same name already in the folder."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core.files import TEMP_MARK
from core.imaging import photos as repo
from core.imaging.detect import DetectSettings
from core.imaging.loading import load_rgb
from core.imaging.release import ReleaseRefused, encode_clean, release_photo
from core.imaging.release_all import BulkRelease, release_all
from core.jobs import Cancelled, JobState

REPO = Path(__file__).resolve().parents[2]
NO_FACES = DetectSettings(face_detector="hog", plates=False)



def _released(photo_id: int, ext: str = "jpg") -> str:
    """The name a photo is released under (ADR 164)."""
    return f"photo-{photo_id:05d}.{ext}"

def _noise_jpeg(path: Path, seed: int, size: tuple[int, int] = (160, 120)) -> Path:
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(rng.integers(0, 255, (size[1], size[0], 3), dtype=np.uint8)).save(path)
    return path


def _reviewed(project, path: Path) -> int:
    photo_id, _new = repo.import_photo(project, path)
    repo.add_region(project, photo_id, kind="face", x=10, y=10, w=40, h=30)
    repo.set_status(project, photo_id, "reviewed")
    return photo_id


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


_KILLED_RELEASE = """
import os, signal, sys
from core.store import Project
from core.imaging import photos as repo
from core.imaging.detect import DetectSettings
from core.imaging.loading import load_rgb
from core.imaging.release import ReleaseRefused, encode_clean, release_photo

def killed(*args, **kwargs):  # the file is in place, the project does not know it yet
    os.kill(os.getpid(), signal.SIGKILL)

repo.mark_released = killed
project = Project.open(sys.argv[1])
release_photo(project, int(sys.argv[2]), sys.argv[3],
              DetectSettings(face_detector="hog", plates=False))
"""


def test_a_release_killed_after_writing_is_resumed_into_the_same_file(tmp_path: Path) -> None:
    """SIGKILL between writing the file and recording it: releasing again must not leave
    two copies (x.jpg from the killed run, x-1.jpg from the next) — the identical file
    already there is the photo's release."""
    from core.store import Project

    project = Project.create(tmp_path / "p.winnow")
    photo_id = _reviewed(project, _noise_jpeg(tmp_path / "in" / "x.jpg", 1))
    project.close()
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-c", _KILLED_RELEASE, str(tmp_path / "p.winnow"),
                           str(photo_id), str(out)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)
    assert done.returncode == -9, done.stderr
    x = _released(photo_id)  # the release's name (ADR 164)
    assert [p.name for p in out.iterdir()] == [x]  # whole, not recorded
    project = Project.open(tmp_path / "p.winnow")
    try:
        assert repo.get_photo(project, photo_id).status == "reviewed"
        path, _verification = release_photo(project, photo_id, out, NO_FACES)
        assert path == out / x
        assert sorted(p.name for p in out.iterdir()) == [x]
        photo = repo.get_photo(project, photo_id)
        assert photo.status == "released" and photo.released_path == str(out / x)
        stored = project.conn.execute("SELECT released_sha256 FROM photos WHERE id = ?",
                                      (photo_id,)).fetchone()[0]
        assert stored == _sha(out / x)
    finally:
        project.close()


def test_a_different_file_of_the_same_name_is_never_taken_for_the_release(project,
                                                                          tmp_path: Path
                                                                          ) -> None:
    """Only identical bytes are taken over; the user's own x.jpg (even a copy of the
    original photo) and a symbolic link to the very release bytes stay as they are."""
    src = _noise_jpeg(tmp_path / "in" / "x.jpg", 2)
    photo_id = _reviewed(project, src)
    out = tmp_path / "out"
    out.mkdir()
    x = _released(photo_id)  # the release's name (ADR 164)
    (out / x).write_bytes(src.read_bytes())
    first, _ = release_photo(project, photo_id, tmp_path / "probe", NO_FACES)
    (out / x.replace(".jpg", "-2.jpg")).symlink_to(first)
    path, _ = release_photo(project, photo_id, out, NO_FACES)
    assert path == out / x.replace(".jpg", "-3.jpg")
    assert (out / x).read_bytes() == src.read_bytes()
    assert (out / x.replace(".jpg", "-2.jpg")).is_symlink()
    assert _sha(path) == _sha(first)


def test_two_anonymize_runs_into_one_folder_at_once(tmp_path: Path, monkeypatch) -> None:
    """A second run that finds the outputs written by the first one between its check
    and its write (as two terminals running the same command do) reports them as kept
    or names them; it never stops with a bare errno message and no summary."""
    from core.imaging import batch

    for k in range(4):
        _noise_jpeg(tmp_path / "in" / f"p{k}.jpg", 10 + k)
    _noise_jpeg(tmp_path / "in" / "q.jpg", 99)
    out = tmp_path / "out"
    real_render = batch.render_verified
    raced: list[bool] = []

    def other_run_finishes_first(*args, **kwargs):
        if not raced:
            raced.append(True)
            monkeypatch.setattr(batch, "render_verified", real_render)
            batch.anonymize_folder(tmp_path / "in", out, settings=NO_FACES)
            (out / "q.jpg").unlink()
            (out / "q.jpg").write_bytes(b"someone else's file")  # not Winnow's: never replaced
        return real_render(*args, **kwargs)

    monkeypatch.setattr(batch, "render_verified", other_run_finishes_first)
    report = batch.anonymize_folder(tmp_path / "in", out, settings=NO_FACES)
    assert [k["file"] for k in report["kept"]] == ["p0.jpg", "p1.jpg", "p2.jpg", "p3.jpg"]
    assert [e["file"] for e in report["errors"]] == ["q.jpg"]
    assert "q.jpg" in report["errors"][0]["error"]
    assert "never replace" in report["errors"][0]["error"]
    assert report["photos"] == []
    assert (out / "q.jpg").read_bytes() == b"someone else's file"
    assert not [p for p in out.iterdir() if TEMP_MARK in p.name]


def test_two_anonymize_commands_at_once_both_print_a_summary(tmp_path: Path) -> None:
    """The real thing: two processes, the same folders; both exit 0 or 1 with a JSON
    summary, every output is whole and recorded once per write."""
    for k in range(12):
        _noise_jpeg(tmp_path / "in" / f"p{k:02d}.jpg", k)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-m", "app", "anonymize", str(tmp_path / "in"), "--out",
           str(tmp_path / "out"), "--face-detector", "hog", "--no-plates"]
    runs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env) for _ in range(2)]
    results = [(r.wait(timeout=240), r.stdout.read(), r.stderr.read()) for r in runs]  # type: ignore[union-attr]  # PIPE given
    for code, stdout, stderr in results:
        if code == 2:  # lost the race before writing anything: refused, naming the file
            assert "already exist" in stderr and "Errno" not in stderr, stderr
            continue
        assert code == 0, stderr
        summary = json.loads(stdout)
        assert len(summary["written"]) + len(summary["kept"]) == 12
    outputs = sorted(p.name for p in (tmp_path / "out").iterdir() if not p.name.startswith("."))
    assert outputs == [f"p{k:02d}.jpg" for k in range(12)]
    for name in outputs:
        with Image.open(tmp_path / "out" / name) as image:
            image.load()


def test_release_all_of_50_cancelled_half_way_is_consistent(project, tmp_path: Path) -> None:
    """Cancel after 20 of 50: 20 files, each the release its photo records; 30 photos
    still reviewed with nothing written; no temporary file left; releasing again
    finishes the rest without touching the first 20."""
    ids = [_reviewed(project, _noise_jpeg(tmp_path / "in" / f"p{k:02d}.jpg", k, (48, 36)))
           for k in range(50)]
    out = tmp_path / "out"
    state = JobState("release")
    state.subscribe(lambda s: s.cancel() if s.done == 20 and not s.cancelled() else None)
    report = BulkRelease(str(out))
    with pytest.raises(Cancelled):
        release_all(project, out, NO_FACES, state, report)
    assert report.cancelled and len(report.released) == 20
    assert report.summary().startswith("Cancelled: released 20 of 50")
    files = sorted(out.iterdir())
    assert [p.name for p in files] == [_released(i) for i in ids[:20]]
    before = {p.name: _sha(p) for p in files}
    for photo_id in ids:
        photo = repo.get_photo(project, photo_id)
        sha = project.conn.execute("SELECT released_sha256 FROM photos WHERE id = ?",
                                   (photo_id,)).fetchone()[0]
        if photo.status == "released":
            assert sha == _sha(Path(photo.released_path or ""))
        else:
            assert photo.status == "reviewed" and sha is None
    again = release_all(project, out, NO_FACES)
    assert len(again.released) == 30 and len(again.already) == 20 and not again.renamed
    assert {p.name: _sha(p) for p in out.iterdir() if p.name in before} == before
    assert len(list(out.iterdir())) == 50


def test_two_copies_of_one_photo_never_share_a_released_file(project, tmp_path: Path) -> None:
    """The same picture imported twice (once with its GPS, once as a phone's share sheet
    wrote it without) renders to identical bytes; the second release must still get its
    own file, or a later re-release of the first would change the second's."""
    rng = np.random.default_rng(5)
    pixels = Image.fromarray(rng.integers(0, 255, (120, 160, 3), dtype=np.uint8))
    exif = Image.Exif()
    exif[0x010F] = "Phone"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    pixels.save(tmp_path / "a" / "IMG_1.png", exif=exif)
    pixels.save(tmp_path / "b" / "IMG_1.png")
    first, second = (_reviewed(project, tmp_path / d / "IMG_1.png") for d in ("a", "b"))
    out = tmp_path / "out"
    one, _ = release_photo(project, first, out, NO_FACES)
    two, _ = release_photo(project, second, out, NO_FACES)
    assert _sha(one) == _sha(two) and one != two
    assert two == out / _released(second, "png")


def test_a_read_only_project_releases_nothing(tmp_path: Path) -> None:
    """A project open read-only (a second window, a copy on a CD) refuses a release
    before a byte is written: no file in the folder, nothing added to its assets."""
    from core.store import Project, ReadOnlyProjectError

    project = Project.create(tmp_path / "p.winnow")
    photo_id = _reviewed(project, _noise_jpeg(tmp_path / "in" / "x.jpg", 7))
    project.close()
    assets = sorted(p.name for p in (tmp_path / "p.assets").rglob("*"))
    project = Project.open(tmp_path / "p.winnow", readonly=True)
    try:
        with pytest.raises(ReadOnlyProjectError, match="read-only"):
            release_photo(project, photo_id, tmp_path / "out", NO_FACES)
    finally:
        project.close()
    assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in (tmp_path / "p.assets").rglob("*")) == assets


@pytest.mark.parametrize("room", [2.5, 3.5])
def test_release_all_onto_a_full_disk_leaves_only_recorded_files(project, tmp_path: Path,
                                                                 monkeypatch, room: float
                                                                 ) -> None:
    """The disk fills up during Release all: every photo not released is named with the
    reason, every file in the folder is whole and recorded as its photo's release (no
    unrecorded copy for the next run to step around), and once there is room again the
    next Release all finishes with one file per photo."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "safety"))
    from safety_helpers import FullDisk

    ids = [_reviewed(project, _noise_jpeg(tmp_path / "in" / f"p{k}.jpg", 20 + k))
           for k in range(5)]
    out = tmp_path / "out"
    disk = FullDisk(monkeypatch, 0)
    one = len(encode_clean(load_rgb(tmp_path / "in" / "p0.jpg")))
    disk.left = int(one * room)  # one release and its stored copy, then part of the next
    report = release_all(project, out, NO_FACES)
    assert len(report.released) == 1 and len(report.failed) == 4
    assert all("No space left on device" in reason for _p, reason in report.failed)
    recorded = {repo.get_photo(project, i).released_path for i in ids} - {None}
    assert {str(p) for p in out.iterdir()} == recorded
    disk.left = 10**9
    again = release_all(project, out, NO_FACES)
    assert len(again.released) == 4 and not again.renamed and not again.failed
    assert sorted(p.name for p in out.iterdir()) == [_released(i) for i in ids]


def test_anonymize_into_a_path_that_is_a_file_is_refused_before_any_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--out naming a file (a typo, a tab-completed photo) used to run the detector on
    every photo and then report each one as 'cannot write …: File exists'."""
    from app.cli import run_cli

    for k in range(3):
        _noise_jpeg(tmp_path / "in" / f"p{k}.jpg", 30 + k)
    (tmp_path / "notes.txt").write_text("mine")
    code = run_cli(["anonymize", str(tmp_path / "in"), "--out", str(tmp_path / "notes.txt"),
                    "--face-detector", "hog", "--no-plates"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert "notes.txt is a file, not a folder" in captured.err
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_importing_a_folder_names_every_file_it_leaves_out(project, tmp_path: Path) -> None:
    """A phone dump holds WebP screenshots, an animated GIF, a TIFF scan, a video and a
    PDF beside the JPEGs: the intake said 'Imported 1 photos' and nothing about the rest
    (winnow anonymize lists them under skipped); now each is named with the reason."""
    folder = tmp_path / "dump"
    _noise_jpeg(folder / "IMG_1.jpg", 40)
    frames = [Image.new("RGB", (20, 20), c) for c in ("red", "blue")]
    frames[0].save(folder / "loop.gif", save_all=True, append_images=frames[1:])
    frames[0].save(folder / "shot.webp")
    frames[0].save(folder / "scan.tiff")
    (folder / "clip.mp4").write_bytes(b"\0\0\0\x18ftypmp42")
    (folder / "sub").mkdir()
    (folder / "sub" / "notes.pdf").write_bytes(b"%PDF-1.4")
    (folder / ".hidden.webp").write_bytes(b"RIFF")  # hidden files stay unmentioned
    report = repo.import_folder(project, folder)
    assert len(report.imported) == 1
    skipped = dict(report.skipped)
    assert sorted(skipped) == ["clip.mp4", "loop.gif", "scan.tiff", "shot.webp",
                               "sub/notes.pdf"]
    assert "convert it first" in skipped["loop.gif"] and "not a photo" in skipped["clip.mp4"]
    assert report.to_json()["skipped"] == [{"file": f, "reason": r}
                                           for f, r in report.skipped]


def test_an_original_changed_in_the_asset_store_is_never_released(project,
                                                                   tmp_path: Path) -> None:
    """A sync tool or photo manager rotates the stored original in place (or swaps in
    another picture): the regions a person reviewed no longer lie on what would be
    released, so the release is refused, naming the photo, and nothing is written."""
    photo_id = _reviewed(project, _noise_jpeg(tmp_path / "in" / "x.jpg", 50, (160, 120)))
    stored = repo.original_path(project, repo.get_photo(project, photo_id))
    os.chmod(stored, 0o644)
    Image.open(stored).transpose(Image.Transpose.ROTATE_180).save(stored, "JPEG")
    with pytest.raises(ReleaseRefused, match=r"^x\.jpg: the original .* changed"):
        release_photo(project, photo_id, tmp_path / "out", NO_FACES)
    assert not (tmp_path / "out").exists()
    assert repo.get_photo(project, photo_id).status == "reviewed"


def test_a_photo_edited_while_it_is_being_released_is_not_released(project, tmp_path: Path,
                                                                   monkeypatch) -> None:
    """Release all renders a photo in the background while the photographer, looking at
    it, adds a region over a face the detector missed and marks it reviewed again: the
    file rendered without that region must not land in the folder nor be recorded."""
    from core.imaging import release

    photo_id = _reviewed(project, _noise_jpeg(tmp_path / "in" / "x.jpg", 60))
    real = release.render_verified

    def render_then_edit(*args, **kwargs):  # type: ignore[no-untyped-def]
        out = real(*args, **kwargs)
        repo.add_region(project, photo_id, kind="face", x=100, y=60, w=40, h=40)
        repo.set_status(project, photo_id, "reviewed")
        return out

    monkeypatch.setattr(release, "render_verified", render_then_edit)
    with pytest.raises(ReleaseRefused, match=r"^x\.jpg: the photo was edited .* while it was being released"):
        release_photo(project, photo_id, tmp_path / "out", NO_FACES)
    assert not (tmp_path / "out").exists() or list((tmp_path / "out").iterdir()) == []
    photo = repo.get_photo(project, photo_id)
    assert photo.status == "reviewed" and photo.released_path is None
    monkeypatch.setattr(release, "render_verified", real)
    path, _ = release_photo(project, photo_id, tmp_path / "out", NO_FACES)  # again: fine
    assert len(repo.regions(project, photo_id)) == 2 and path.name == _released(photo_id)
