"""core.files: the one way Winnow writes a file."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys

import pytest

from core import files


@pytest.fixture
def umask():
    """Run a test under a chosen umask (restored afterwards)."""
    old = os.umask(0o022)
    os.umask(old)

    def set_mask(mask: int) -> None:
        os.umask(mask)
        files._umask_cache = None

    yield set_mask
    os.umask(old)
    files._umask_cache = None


@pytest.mark.parametrize("mask, want", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_written_files_honour_the_umask(tmp_path, umask, mask, want):
    umask(mask)
    path = files.write_text(tmp_path / "a.csv", "x,y\n")
    assert stat.S_IMODE(path.stat().st_mode) == want
    folder = files.new_temp_dir(tmp_path, "export")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o777 & ~mask


def test_refuses_to_replace_an_existing_file(tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    with pytest.raises(FileExistsError):
        files.write_bytes(target, b"winnow")
    assert target.read_text() == "mine"
    assert os.listdir(tmp_path) == ["notes.txt"]


def test_refuses_a_dangling_symlink_in_the_way(tmp_path):
    link = tmp_path / "out.csv"
    link.symlink_to(tmp_path / "elsewhere.csv")
    with pytest.raises(FileExistsError):
        files.write_text(link, "x")
    assert not (tmp_path / "elsewhere.csv").exists()


def test_replace_only_when_asked(tmp_path):
    target = tmp_path / "r.json"
    files.write_text(target, "1")
    files.write_text(target, "2", replace=True)
    assert target.read_text() == "2"


def test_an_exception_leaves_no_trace(tmp_path):
    target = tmp_path / "big.bin"
    with pytest.raises(RuntimeError), files.atomic_writer(target) as fh:
        fh.write(b"half")
        raise RuntimeError("disk full")
    assert os.listdir(tmp_path) == []


def test_text_mode_keeps_newlines_and_utf8(tmp_path):
    target = files.write_text(tmp_path / "t.txt", "é\r\nß\n")
    assert target.read_bytes() == "é\r\nß\n".encode()


def test_without_hard_links_an_existing_file_is_still_not_replaced(tmp_path, monkeypatch):
    def no_links(src, dst):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    target = files.write_text(tmp_path / "a.txt", "first")
    assert target.read_text() == "first"
    with pytest.raises(FileExistsError):
        files.write_text(target, "second")
    assert target.read_text() == "first"
    assert os.listdir(tmp_path) == ["a.txt"]


def test_stale_temps_of_dead_processes_are_cleaned_and_nothing_else(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(dead.stdout)
    host = files._host_tag()
    stale_file = tmp_path / f".x.csv{files.TEMP_MARK}{dead_pid}-{host}-abcd1234"
    stale_file.write_text("half")
    stale_dir = tmp_path / f".export{files.TEMP_MARK}{dead_pid}-{host}-0000aaaa"
    stale_dir.mkdir()
    (stale_dir / "samples.jsonl").write_text("{}")
    live = tmp_path / f".y.csv{files.TEMP_MARK}{os.getpid()}-{host}-abcd1234"
    live.write_text("in progress")
    other_host = tmp_path / f".z.csv{files.TEMP_MARK}{dead_pid}-otherbox-abcd1234"
    other_host.write_text("someone else's")
    user_file = tmp_path / ".x.csv.tmp-1234"
    user_file.write_text("not ours")

    assert files.stale_temps(tmp_path) == sorted([stale_file, stale_dir])
    removed = files.clean_stale_temps(tmp_path)
    assert sorted(removed) == sorted([stale_file, stale_dir])
    assert live.exists() and other_host.exists() and user_file.exists()


def test_temp_names_are_recognised_as_ours():
    name = files.temp_name("samples.jsonl")
    owner = files._temp_owner(name)
    assert owner == (os.getpid(), files._host_tag())
    assert files._temp_owner(".samples.jsonl.tmp-123") is None
    assert files._temp_owner("plain.txt") is None
