"""The JSON a command prints is valid UTF-8 whatever the names in it (ADR 160, 186)."""

from __future__ import annotations

import io
import json
import sys

import pytest

from app.cli import print_json


def test_a_name_that_is_not_utf8_is_printed_as_an_escape(monkeypatch: pytest.MonkeyPatch) -> None:
    """A photo named ``caf\\xe9.jpg`` (Latin-1 bytes) is read by Python as a lone surrogate;
    written raw, stdout was not UTF-8 and ``json.load`` failed on the summary."""
    name = b"caf\xe9.jpg".decode("utf-8", "surrogateescape")
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape")
    monkeypatch.setattr(sys, "stdout", stream)
    print_json({"written": [name], "note": "\x9b ok"})
    stream.flush()
    text = raw.getvalue().decode("utf-8")  # strict: valid UTF-8
    assert json.loads(text) == {"written": [name], "note": "\x9b ok"}
    assert "\\udce9" in text and "\\u009b" in text


class _FullDisk(io.StringIO):
    def flush(self) -> None:
        raise OSError(28, "No space left on device")


def test_a_full_disk_under_stdout_is_named_as_standard_output(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``winnow stats bt votes.csv > /dev/full`` said only "[Errno 28] No space left on
    device", as if the vote file were the problem."""
    from app.cli import run_cli

    votes = tmp_path / "votes.csv"
    votes.write_text("model_a,model_b,winner\nx,y,model_a\ny,x,model_b\n", encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", _FullDisk())
    assert run_cli(["stats", "bt", str(votes)]) == 2
    err = capsys.readouterr().err
    assert "cannot write the result to standard output (No space left on device)" in err
