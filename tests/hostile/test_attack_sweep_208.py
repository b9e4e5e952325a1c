"""ADR 208: an attack on the features added most recently (ADRs 196-206).

Each test failed before its fix."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from core import export_files
from core.export_files import MARKER_NAME, Marker, append_to_marker, export_bytes
from core.files import WriteError


def test_a_short_write_of_the_marker_on_a_full_disk_is_an_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk lets ``write`` take part of a marker line and report it (no error):
    the rest was dropped, the run went on as if the file were recorded, and the next run
    refused Winnow's own output as 'not written by Winnow'. Now the write is finished or
    fails, naming the marker, and the file is not put in place."""
    export_bytes(tmp_path / "a.txt", b"first", root=tmp_path)
    real_write = os.write
    calls = []

    def full_disk(fd: int, data: bytes) -> int:
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, data[:10])  # what fitted
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(export_files.os, "write", full_disk)
    with pytest.raises(WriteError, match="No space left") as info:
        export_bytes(tmp_path / "b.txt", b"second", root=tmp_path)
    assert MARKER_NAME in str(info.value)
    monkeypatch.undo()
    assert not (tmp_path / "b.txt").exists()
    marker = Marker(tmp_path)
    assert set(marker.files) == {"a.txt"}  # the torn line is nobody's
    append_to_marker(tmp_path, [{"file": "c.txt", "size": 1, "sha256": "0" * 64}])
    assert set(Marker(tmp_path).files) == {"a.txt", "c.txt"}
