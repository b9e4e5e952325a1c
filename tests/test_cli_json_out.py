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
