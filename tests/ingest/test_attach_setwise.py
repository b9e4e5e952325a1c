"""Storing fetched images updates rows set-wise: statements do not grow with the images.

One ``UPDATE … WHERE ref = ?`` per image searched every touched sample's rows, so
attaching 4,000 images took 32 s and 30,000 would take about half an hour; now a
temporary table of outcomes feeds one ``UPDATE … FROM`` per table.
"""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from core.ingest.importer import import_jsonl
from core.store import Project


def _write(root: Path, n: int) -> Path:
    (root / "img").mkdir(parents=True)
    lines = []
    for k in range(n):
        Image.new("RGB", (8 + k, 8), (k, 0, 0)).save(root / "img" / f"{k}.png")
        lines.append({"id": f"s{k}", "prompt": "p", "input_images": [f"img/{k}.png"],
                      "output_images": [f"img/{k}.png", "img/missing.png"],
                      "output_bboxs": [[0, 0, 4, 4], None]})
    path = root / "s.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def _image_updates(tmp_path: Path, n: int) -> tuple[int, Project]:
    project = Project.create(tmp_path / f"p{n}.winnow")
    statements: list[str] = []
    project.conn.set_trace_callback(statements.append)
    try:
        import_jsonl(project, _write(tmp_path / f"src{n}", n))
    finally:
        project.conn.set_trace_callback(None)
    updates = [s for s in statements if s.lstrip().upper().startswith("UPDATE")
               and ("sample_images" in s or "post_images" in s)]
    return len(updates), project


def test_updates_do_not_grow_with_the_images(tmp_path: Path) -> None:
    few, _ = _image_updates(tmp_path, 3)
    many, project = _image_updates(tmp_path, 40)
    assert few == many <= 4
    rows = project.conn.execute(
        "SELECT ref, sha256, error, bbox_w FROM sample_images ORDER BY sample_id, role, "
        "position").fetchall()
    assert len(rows) == 40 * 3
    stored = [r for r in rows if r[0] != "img/missing.png"]
    missing = [r for r in rows if r[0] == "img/missing.png"]
    assert all(r[1] is not None and r[2] is None for r in stored)
    assert all(r[1] is None and r[2] for r in missing)
    # a box inside the image is kept (it is a crop still to make)
    assert sum(1 for r in stored if r[3] == 4) == 40
    refs_by_image = {r[1]: r[0] for r in stored}
    assert len(refs_by_image) == 40  # one image per file, each row pointing at its own


def test_a_crop_already_made_loses_its_box_and_others_keep_theirs(tmp_path: Path) -> None:
    """The benchmark export writes a crop with the box it came from (ADR 194)."""
    root = tmp_path / "src"
    (root / "img").mkdir(parents=True)
    Image.new("RGB", (30, 20), "red").save(root / "img" / "crop.png")
    Image.new("RGB", (30, 20), "blue").save(root / "img" / "whole.png")
    lines = [{"id": "a", "prompt": "p", "output_images": ["img/crop.png"],
              "output_bboxs": [[50, 40, 30, 20]]},
             {"id": "b", "prompt": "p", "output_images": ["img/whole.png"],
              "output_bboxs": [[0, 0, 30, 20]]},
             {"id": "c", "prompt": "p", "output_images": ["img/whole.png"],
              "output_bboxs": [[5, 5, 10, 10]]}]
    (root / "s.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    project = Project.create(tmp_path / "p.winnow")
    import_jsonl(project, root / "s.jsonl")
    boxes = dict(project.conn.execute(
        "SELECT sample_id, json_array(bbox_x, bbox_y, bbox_w, bbox_h) FROM sample_images"))
    assert json.loads(boxes["a"]) == [None] * 4
    assert json.loads(boxes["b"]) == [0, 0, 30, 20]
    assert json.loads(boxes["c"]) == [5, 5, 10, 10]
