"""A benchmark Winnow exported imports into another project as it was (ADR 194).

Before, ``winnow import posts`` refused every line of ``winnow export benchmark``'s own
``samples.jsonl``: a whole image's box is written ``null`` (refused as "must be [x, y,
width, height]"), and the line names its post by ``post_id`` with the post's fields
beside it, not embedded ("post … is not in the project").  Past that, the crops would
have been cropped again (the export's boxes say where a crop came from), a post placed
as a reply lost its parent when a later line embedded it, and replies of replies came
back as replies of the post.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from test_importer import write_jsonl

from core.curate.export import export_benchmark
from core.ingest.importer import import_jsonl
from core.store import Project

#: what a round trip may change: the post's own image list is not carried over (the
#: sample names its image files), and a crop's origin box is not kept
NOT_CARRIED = {"image_urls", "input_bboxs", "output_bboxs"}


def _lines(folder: Path) -> dict[str, dict]:  # type: ignore[type-arg]
    with open(folder / "samples.jsonl", encoding="utf-8") as fh:
        return {(d := json.loads(line))["id"]: d for line in fh}


def _images(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((folder / "images").rglob("*")) if p.is_file()}


def test_export_import_export_gives_the_same_benchmark(demo_template: Path,
                                                       tmp_path: Path) -> None:
    demo = tmp_path / "demo.winnow"
    shutil.copy(demo_template, demo)
    shutil.copytree(demo_template.with_suffix(".assets"), tmp_path / "demo.assets")
    with Project.open(demo) as source:
        first = export_benchmark(source, tmp_path / "first")
    assert first.exported > 40 and first.skipped == []
    with Project.create(tmp_path / "other.winnow") as other:
        report = import_jsonl(other, tmp_path / "first" / "samples.jsonl")
        assert report.errors == [] and report.images_failed == 0
        assert report.imported == first.exported
        second = export_benchmark(other, tmp_path / "second")
    assert second.skipped == [] and second.exported == first.exported
    before, after = _lines(tmp_path / "first"), _lines(tmp_path / "second")
    assert before.keys() == after.keys()
    for sid, line in before.items():
        for key in line.keys() - NOT_CARRIED:
            assert after[sid][key] == line[key], (sid, key)
    assert _images(tmp_path / "first") == _images(tmp_path / "second")  # not cropped twice
    nested = [r for line in before.values() for r in line["replies_below"] if r["depth"] > 1]
    assert nested  # the demo has replies of replies: they keep their parent


def test_a_null_box_is_a_whole_image(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from PIL import Image

    Image.new("RGB", (40, 30), "red").save(tmp_path / "a.png")
    Image.new("RGB", (50, 20), "blue").save(tmp_path / "b.png")
    line = {"id": "s1", "prompt": "p", "input_images": ["a.png", "b.png"],
            "input_bboxs": [None, [5, 2, 10, 8]]}
    report = import_jsonl(project, write_jsonl(tmp_path / "s.jsonl", [line]))
    assert report.errors == []
    rows = project.conn.execute(
        "SELECT ref, bbox_x, bbox_y, bbox_w, bbox_h FROM sample_images "
        "WHERE sample_id = 's1' AND role = 'input' ORDER BY position").fetchall()
    assert [tuple(r) for r in rows] == [("a.png", None, None, None, None),
                                         ("b.png", 5, 2, 10, 8)]


def test_a_post_embedded_after_it_came_as_a_reply_keeps_its_parent(
        project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lines = [{"id": "root", "text": "the original post",
              "replies_below": [{"id": "r1", "text": "my try"}]},
             {"id": "s1", "prompt": "p", "post": {"id": "r1", "text": "my try",
                                                  "author": "@sam"}}]
    report = import_jsonl(project, write_jsonl(tmp_path / "p.jsonl", lines))
    assert report.errors == []
    row = project.conn.execute("SELECT parent_id, author FROM posts WHERE id = 'r1'")
    assert tuple(row.fetchone()) == ("root", "@sam")
