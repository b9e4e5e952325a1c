"""Post import: a local image path holding a NUL byte is one image error naming its line;
it no longer ends the whole import ('embedded null byte' from os.path.realpath)."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from core.ingest.importer import import_jsonl
from core.store import Project


def test_nul_in_a_local_path_is_an_image_error(tmp_path: Path) -> None:
    Image.new("RGB", (8, 8), (10, 200, 30)).save(tmp_path / "ok.png")
    urls = ["a\x00b.png", "ok.png", "x" * 5000 + ".png", "../outside.png"]
    lines = [{"id": f"p{k}", "text": "t", "image_urls": [u]} for k, u in enumerate(urls)]
    jsonl = tmp_path / "posts.jsonl"
    jsonl.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    with Project.create(tmp_path / "p.winnow") as project:
        report = import_jsonl(project, jsonl)
        stored = project.conn.execute("SELECT url FROM post_images WHERE sha256 IS NOT NULL"
                                      ).fetchall()
    assert report.imported == len(urls) and report.errors == []
    assert stored == [("ok.png",)]
    by_line = {e["lines"][0]: e["error"] for e in report.image_errors}
    assert sorted(by_line) == [1, 3, 4]
    assert "NUL" in by_line[1]
    assert "File name too long" in by_line[3] or "cannot read" in by_line[3]
    assert by_line[4].startswith("refused: local images must be inside")
