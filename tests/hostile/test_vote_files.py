"""Vote files that are not text: the error says what the file is, naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.stats.csvcolumns import CsvFormatError
from core.stats.votefiles import read_vote_file


@pytest.mark.parametrize(("name", "data", "says"), [
    ("zeros.jsonl", b"\x00" * 1000 + b"\n", "binary data (NUL bytes)"),  # was "UTF-16 text"
    ("zeros.csv", b"\x00\x00\x00\x00", "binary data (NUL bytes)"),
    ("mixed.csv", b"a,b,winner\nx,y,a\x00\n", "binary data (NUL bytes)"),
    ("u16.csv", "a,b,winner\nx,y,a\n".encode("utf-16-le"), "UTF-16 text"),
    ("u16be.json", '[{"model_a": "x"}]'.encode("utf-16-be"), "UTF-16 text"),
])
def test_binary_files_say_what_they_are(tmp_path: Path, name: str, data: bytes,
                                        says: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(CsvFormatError) as err:
        read_vote_file(path)
    assert str(err.value).startswith(f"{name}: ") and says in str(err.value)


def test_a_missing_vote_file_is_named_without_an_errno(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from app.cli import run_cli

    missing = tmp_path / "votes.csv"
    assert run_cli(["stats", "elo", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"{missing}: no such file" in err and "Errno" not in err
