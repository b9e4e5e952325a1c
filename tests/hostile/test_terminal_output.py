"""A stranger's file names and URLs reach the terminal through the command line's reports:
their control characters are spelt out, never sent to the terminal (ADR 176). An escape
sequence could retitle the window, clear the screen, recolour or hide the lines after it,
or (in some terminals) write the clipboard; a carriage return could print a fake line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from app.cli import run_cli
from core.store import Project
from core.store.project import now_iso

EVIL = "\x1b]0;pwned\x07\x1b[2J\x9b31m\x7f\rline 1: all fine\u202e"
CONTROLS = [chr(c) for c in (*range(0x00, 0x09), *range(0x0b, 0x20), *range(0x7f, 0xa0))]


def _controls(text: str) -> list[str]:
    return [c for c in CONTROLS if c in text]


def test_import_report_spells_control_characters(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"text": "t", "url": "u1", "image_urls": [EVIL + ".png"]})
                   + "\n", encoding="utf-8")
    assert run_cli(["import", "posts", str(src), "-p", str(tmp_path / "p.winnow")]) == 1
    out = capsys.readouterr().out
    assert _controls(out) == []
    assert ("⟨U+001B⟩]0;pwned⟨U+0007⟩⟨U+001B⟩[2J⟨U+009B⟩31m⟨U+007F⟩⟨U+000D⟩line 1: all "
            "fine⟨U+202E⟩.png") in out  # and the override (ADR 160)


def test_json_output_keeps_the_exact_text_and_sends_no_control_character(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"text": "t", "url": "u1", "image_urls": [EVIL + ".png"]})
                   + "\n", encoding="utf-8")
    assert run_cli(["import", "posts", str(src), "-p", str(tmp_path / "p.winnow"),
                    "--json"]) == 1
    out = capsys.readouterr().out
    assert _controls(out.replace("\n", "")) == []
    assert json.loads(out)["images"]["errors"][0]["url"] == EVIL + ".png"


def test_file_names_in_an_outputs_report_and_in_errors(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    with Project.create(tmp_path / "p.winnow") as project, project.transaction() as conn:
        conn.execute("INSERT INTO samples(id, prompt, original_prompt, split, quality, "
                     "created_at, modified_at) VALUES ('s1','p','p','text-to-image',"
                     "'Benchmark',?,?)", (now_iso(), now_iso()))
    (tmp_path / "outs" / "m1").mkdir(parents=True)
    buf = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buf, "PNG")
    (tmp_path / "outs" / "m1" / "x\x1b[8m.png").write_bytes(buf.getvalue())  # hides what follows
    assert run_cli(["import", "outputs", str(tmp_path / "outs"), "-p",
                    str(tmp_path / "p.winnow")]) == 0
    out = capsys.readouterr().out
    assert _controls(out) == [] and "m1/x⟨U+001B⟩[8m.png" in out
    assert run_cli(["import", "posts", str(tmp_path / "nope\x1b[2J.jsonl"), "-p",
                    str(tmp_path / "q.winnow")]) == 2
    err = capsys.readouterr().err
    assert _controls(err.rstrip("\n")) == [] and "nope⟨U+001B⟩[2J.jsonl" in err


def test_a_megabyte_url_is_shown_shortened(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The report printed a 5-MB URL whole, twice (in the line and in its error): a
    JSONL of such lines poured gigabytes into the terminal. `--json` keeps it whole."""
    src = tmp_path / "in.jsonl"
    url = "img/" + "x" * 5_000_000 + ".png"
    src.write_text(json.dumps({"text": "t", "url": "u1", "image_urls": [url]}) + "\n")
    assert run_cli(["import", "posts", str(src), "-p", str(tmp_path / "p.winnow")]) == 1
    out = capsys.readouterr().out
    assert len(out) < 2_000 and "(5,000,008 characters)" in out
    assert run_cli(["import", "posts", str(src), "-p", str(tmp_path / "p.winnow"),
                    "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["images"]["errors"][0]["url"] == url
