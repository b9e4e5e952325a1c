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
    (_bomb(), "too many pixels to decode"),
    (_bomb(10000, 9000), "10000×9000 pixels is more than the 80,000,000 Winnow decodes"),
    (png(7)[:60], "cannot decode the image"),
])
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
from core.rating.sessions import write_session_files
from core.store import Project

with Project.open(sys.argv[1]) as project:
    write_session_files(project, "k", sys.argv[2])
print("finished", flush=True)
"""


def test_sigkill_while_writing_leaves_whole_files_or_none(tmp_path: Path) -> None:
    project = build_project(tmp_path / "p.winnow")
    sessions.create_session(project, SessionDesign(
        name="k", protocol="side_by_side", sample_ids=SAMPLES, models=MODELS, raters=3,
        criteria=("preference", "coherence"), gold_rate=0.3, seed=2))
    project.close()
    rng = random.Random(7)
    seen_whole = seen_temp = 0
    for trial in range(8):
        out = tmp_path / f"out{trial}"
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path / "p.winnow"),
                                  str(out)], cwd=REPO, stdout=subprocess.PIPE, text=True)
        time.sleep(rng.uniform(0.3, 2.5))
        child.send_signal(signal.SIGKILL)
        child.communicate()
        names = sorted(p.name for p in out.iterdir()) if out.exists() else []
        for name in names:
            if TEMP_MARK in name:
                seen_temp += 1
                continue
            found = read_returned(out / name)  # a whole file: header, tasks, chain
            assert found.problems == [] and found.meta["tasks_mac"] and found.task_rows
            seen_whole += 1
        # the next run cleans the killed run's temporary files before anything else
        with Project.open(tmp_path / "p.winnow") as project:
            assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            try:
                sessions.write_session_files(project, "k", out)
            except FileExistsError as exc:
                assert "already exists; choose an empty folder" in str(exc)
        assert not [p for p in out.iterdir() if TEMP_MARK in p.name]
    assert seen_whole + seen_temp > 0  # the kills landed mid-write at least once
