"""A post whose image is listed twice (a repost, a scraper's duplicate) and a sample
that uses one copy as input and the other as output: both roles are in the strip, each
can be changed and undone (the output was hidden behind the input before; the list said
"1 out" and nothing in the strip showed it or let it be changed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from core.curate.commands import UndoStack
from core.curate.detail import load_sample
from core.curate.image_edits import set_image_role
from core.ingest.importer import import_jsonl
from core.store import Project


@pytest.fixture
def twice(tmp_path: Path):  # type: ignore[no-untyped-def]
    Image.new("RGB", (30, 20), (200, 30, 30)).save(tmp_path / "a.png")
    (tmp_path / "copy").mkdir()
    Image.new("RGB", (30, 20), (200, 30, 30)).save(tmp_path / "copy" / "a.png")
    lines = [{"id": "p", "text": "before / after", "image_urls": ["a.png", "copy/a.png"]},
             {"id": "s", "prompt": "same", "post_id": "p", "input_images": [0],
              "output_images": [1]}]
    src = tmp_path / "posts.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    project = Project.create(tmp_path / "p.winnow")
    assert not import_jsonl(project, src).errors
    yield project
    project.close()


def test_each_use_of_the_image_has_its_own_strip_item(twice: Project) -> None:
    items = load_sample(twice, "s").images
    assert [i.label for i in items] == ["input", "output"]
    assert len({i.key for i in items}) == 2 and len({i.row_id for i in items}) == 2
    assert items[0].sha256 == items[1].sha256


def test_the_second_use_can_be_changed_and_undone(twice: Project) -> None:
    output = load_sample(twice, "s").images[1]
    stack = UndoStack(twice)
    stack.push(set_image_role("s", "unused", row_id=output.row_id, sha256=output.sha256,
                              ref=output.ref))
    assert [i.label for i in load_sample(twice, "s").images] == ["input", "unused"]
    stack.undo()
    assert [i.label for i in load_sample(twice, "s").images] == ["input", "output"]


def test_the_strip_shows_both(qtbot, twice: Project) -> None:
    pytest.importorskip("PySide6")
    from tests.curate.test_curate_gui import Harness

    h = Harness(qtbot, twice)
    h.select("s")
    strip = h.ws.view.images.strip
    assert strip.count() == 2
    assert [strip.item(k).text() for k in range(2)] == ["1. input", "2. output"]
