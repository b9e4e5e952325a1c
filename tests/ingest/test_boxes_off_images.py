"""A box that lies wholly outside its image is imported (its size is not known while the
line is read) but named in the report, with its line, so the curator hears of it before
the export leaves the sample out (ADR 205); the plain CLI prints the notes too."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from app.cli import run_cli
from core.ingest.importer import import_jsonl
from core.store import Project


def _write(root: Path) -> Path:
    Image.new("RGB", (64, 48), (10, 200, 10)).save(root / "shot.png")
    lines = [
        {"id": "p", "text": "a screenshot", "image_urls": ["shot.png"]},
        {"id": "in", "prompt": "inside", "post_id": "p", "input_images": [0],
         "input_bboxs": [[10, 10, 20, 20]]},
        {"id": "edge", "prompt": "past the edge", "post_id": "p", "input_images": [0],
         "input_bboxs": [[50, 40, 100, 100]]},
        {"id": "off", "prompt": "off the image", "post_id": "p", "input_images": [0],
         "output_images": [0], "input_bboxs": [[10, 10, 5, 5]],
         "output_bboxs": [[64, 0, 10, 10]]},
    ]
    path = root / "posts.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def test_a_box_off_its_image_is_a_note_naming_line_sample_and_box(tmp_path: Path) -> None:
    src = _write(tmp_path)
    with Project.create(tmp_path / "p.winnow") as project:
        report = import_jsonl(project, src)
        assert not report.errors and report.imported == 4
        assert report.notes == [{"line": 4, "note": (
            "sample 'off': its output box [64, 0, 10, 10] lies outside shot.png (64×48); "
            "the export leaves the sample out until the box is redrawn in Curate")}]
        stored = project.conn.execute("SELECT bbox_x FROM sample_images WHERE "
                                      "sample_id = 'off' AND role = 'output'").fetchone()
        assert stored == (64,)  # imported as written: nothing is changed behind the curator


def test_the_plain_cli_prints_notes_and_image_lines(tmp_path: Path, capsys) -> None:
    src = _write(tmp_path)
    with src.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"id": "q", "text": "gone", "image_urls": ["missing.png"]}) + "\n")
    assert run_cli(["import", "posts", str(src), "--project", str(tmp_path / "p.winnow")]) == 1
    out = capsys.readouterr().out
    assert "  image missing.png (line 5): " in out
    assert "  note, line 4: sample 'off': its output box [64, 0, 10, 10] lies outside" in out
