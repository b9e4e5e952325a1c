"""Writing rater files under attack: a decompression bomb or a broken output among the
images, a full disk, SIGKILL mid-write.  Each leaves no file half-written, no session
without files, and a message naming the image."""

from __future__ import annotations

import errno
import random
import shutil
import signal
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest
from rating_helpers import MODELS, SAMPLES, build_project, png

from core.files import TEMP_MARK
from core.rating import sessions
from core.rating.design import SessionDesign
from core.rating.images import SessionImageError
from core.rating.merge import merge_file
from core.rating.returned import read_returned
from core.rating.sessions import create_and_write, list_sessions
from core.store import Project

REPO = Path(__file__).resolve().parents[2]


def _bomb(width: int = 30000, height: int = 30000) -> bytes:
    """A valid PNG header that claims ``width``×``height`` pixels (a few hundred bytes)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(b"\x00" * 1000)) + chunk(b"IEND", b""))


def _design(name: str = "w") -> SessionDesign:
    return SessionDesign(name=name, protocol="ranking", sample_ids=SAMPLES, models=MODELS,
                         raters=2, seed=1, gold_rate=0.2)


@pytest.mark.parametrize(("bad", "message"), [
    (_bomb(), "decompression bomb: 30000×30000 pixels exceeds the 80 MP limit"),
    (_bomb(10000, 9000), "decompression bomb: 10000×9000 pixels exceeds the 80 MP limit"),
    (png(7)[:60], "truncated PNG: "),
], ids=["beyond Pillow's limit", "beyond Winnow's limit", "truncated"])
def test_a_bad_output_is_named_and_nothing_is_left(tmp_path: Path, bad: bytes,  # type: ignore[no-untyped-def]
                                                   message: str) -> None:
    def output(k: int, model: str) -> tuple[bytes, str]:
        if (k, model) == (2, MODELS[1]):
            return bad, "png"
        return png(k * 10 + MODELS.index(model)), "png"

    project = build_project(tmp_path / "p.winnow", output=output)
    out = tmp_path / "out"
    try:
        with pytest.raises(SessionImageError, match=message) as info:
            create_and_write(project, _design(), out)
        assert "sample s002" in str(info.value)
        assert list_sessions(project) == []
        assert not out.exists() or list(out.iterdir()) == []
    finally:
        project.close()


def test_a_full_disk_while_copying_a_file_into_place(rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                     monkeypatch) -> None:
    real = shutil.copyfileobj
    calls: list[int] = []

    def full(src, dst, length=0):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 2:
            dst.write(src.read(1000))
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(src, dst, length)

    monkeypatch.setattr(sessions.shutil, "copyfileobj", full)
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(OSError, match="No space left"):
        create_and_write(rproject, _design(), out)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]  # R1 taken back, no temps
    assert (out / "notes.txt").read_text() == "mine"
    assert list_sessions(rproject) == []
    monkeypatch.setattr(sessions.shutil, "copyfileobj", real)
    files = create_and_write(rproject, _design(), out)
    assert [f.name for f in files] == ["w-R1.winnow-session", "w-R2.winnow-session"]


CHILD = r"""
import sys
from pathlib import Path
from core.rating.design import SessionDesign
from core.rating.sessions import create_and_write
from core.store import Project

design = SessionDesign(name="k", protocol="side_by_side", sample_ids=tuple(sys.argv[3:]),
                       models=("aurora-xl", "brushwork-2", "pixelforge", "lumen-edit"),
                       raters=3, criteria=("preference", "coherence"), gold_rate=0.3, seed=2)
with Project.open(sys.argv[1]) as project:
    print("ready", flush=True)
    create_and_write(project, design, Path(sys.argv[2]))
print("finished", flush=True)
"""


def _trial_project(pristine: Path, folder: Path) -> Path:
    """A copy of the pristine project (its assets linked: they are content-addressed)."""
    folder.mkdir()
    shutil.copy(pristine, folder / "p.winnow")
    (folder / "p.assets").symlink_to(pristine.with_name("p.assets"))
    return folder / "p.winnow"


def _run(project_path: Path, out: Path, kill_after: float | None) -> tuple[str, float]:
    """Run the child; SIGKILL it ``kill_after`` s after it is ready. (outcome, seconds)."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(project_path), str(out),
                              *SAMPLES], cwd=REPO, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    started = time.perf_counter()
    if kill_after is None:
        assert child.stdout.readline().strip() == "finished"
    else:
        time.sleep(kill_after)
        child.send_signal(signal.SIGKILL)
    child.communicate()
    return ("killed" if child.returncode == -signal.SIGKILL else "finished",
            time.perf_counter() - started)


def test_sigkill_while_creating_leaves_whole_files_and_the_next_run_resumes(
        tmp_path: Path) -> None:
    """As the safety suite's kill harness does for ``session create``: kill at a random
    moment of the work, check what is on disk, run the same command again: it finishes."""
    pristine = tmp_path / "pristine" / "p.winnow"
    pristine.parent.mkdir()
    build_project(pristine, output=lambda k, m: (_photo(k * 10 + MODELS.index(m)), "png")
                  ).close()
    _outcome, duration = _run(_trial_project(pristine, tmp_path / "probe"),
                              tmp_path / "probe" / "out", None)
    rng = random.Random(7)
    seen: list[str] = []
    for trial in range(8):
        project_path = _trial_project(pristine, tmp_path / f"t{trial}")
        out = tmp_path / f"t{trial}" / "out"
        outcome, _ = _run(project_path, out, rng.uniform(0.0, duration))
        names = sorted(p.name for p in out.iterdir()) if out.exists() else []
        for name in names:
            if TEMP_MARK in name:
                continue
            found = read_returned(out / name)  # a whole file: header, tasks, chain
            assert found.problems == [] and found.meta["tasks_mac"] and found.task_rows
        seen.append(f"{outcome}:{len(names)}")
        with Project.open(project_path) as project:
            assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert _run(project_path, out, None)[0] == "finished"  # the user runs it again
        assert sorted(p.name for p in out.iterdir()) == [f"k-R{k}.winnow-session"
                                                        for k in (1, 2, 3)]
        with Project.open(project_path) as project:
            assert [s.name for s in list_sessions(project)] == ["k"]
            for path in out.iterdir():
                assert merge_file(project, path).added == 0  # whole, signed, ours
    killed = [s for s in seen if s.startswith("killed")]
    assert len(killed) >= 6, seen
    assert any(not s.endswith(":0") for s in killed), seen  # some died mid-write


def _photo(seed: int) -> bytes:
    import io

    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    out = io.BytesIO()
    Image.fromarray(rng.integers(0, 255, (288, 384, 3), dtype=np.uint8)).save(out, "PNG")
    return out.getvalue()


def test_a_rated_file_left_in_the_way_is_never_replaced(tmp_path: Path) -> None:
    """A resumed run replaces only files the killed run wrote and no rater touched."""
    from tamper_helpers import rate_all

    project = build_project(tmp_path / "p.winnow")
    design = _design()
    out = tmp_path / "out"
    sessions.create_session(project, design)
    files = sessions.write_session_files(project, "w", tmp_path / "first")
    # as if killed before the paths were recorded: unrecord them, put a file in the way
    with project.transaction() as conn:
        conn.execute("UPDATE rating_files SET path = NULL, tasks_mac = NULL")
    out.mkdir()
    shutil.copy(files[0], out / files[0].name)
    rate_all(out / files[0].name, "Ada")
    before = (out / files[0].name).read_bytes()
    with pytest.raises(FileExistsError, match="is not an unrated file of session 'w'"):
        create_and_write(project, design, out)
    assert (out / files[0].name).read_bytes() == before
    (out / files[0].name).rename(tmp_path / "kept.winnow-session")
    shutil.copy(files[1], out / files[1].name)  # unrated and ours: replaced
    written = create_and_write(project, design, out)
    assert [f.name for f in written] == ["w-R1.winnow-session", "w-R2.winnow-session"]
    project.close()
