"""Building a rater file: images staged beside it and stored in digest order (ADR 191).

A file whose sealing fails is closed again, so that its folder, staging database
included, can be removed on any system (Windows keeps an open file).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from rating_helpers import MODELS, SAMPLES, make_session

from core.rating import file_build


def test_a_file_whose_sealing_fails_is_closed(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    conn = file_build.new_file(tmp_path / "f.sqlite", {"format": "x"})
    file_build.add_image(conn, "ab" * 32, "jpg", b"data")

    def fail(*_args: object) -> str:
        raise OSError("disk full")

    monkeypatch.setattr(file_build.integrity, "tasks_document", fail)
    with pytest.raises(OSError, match="disk full"):
        file_build.seal(conn, b"k" * 32, b"c" * 32)
    with pytest.raises(sqlite3.ProgrammingError):  # closed: its files can be removed
        conn.execute("SELECT 1")


def test_written_files_have_no_staging_left_and_no_free_pages(
        rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    files = make_session(rproject, out, "likert", raters=2, overlap=2,
                         gold_rate=0.25, sample_ids=SAMPLES, models=MODELS)
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in files)
    for path in files:
        conn = sqlite3.connect(path)
        try:
            assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
            digests = [d for (d,) in conn.execute("SELECT sha256 FROM images ORDER BY rowid")]
            assert digests == sorted(digests)
        finally:
            conn.close()
