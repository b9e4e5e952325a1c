"""A small curate project built through the real importer: posts with reply trees,
whole-image samples, a screenshot with boxes, a template, a missing image."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from core.ingest.importer import import_jsonl
from core.store import Project


def _pattern(size: tuple[int, int], seed: int) -> Image.Image:
    """An image whose every pixel is distinct enough to check crops exactly."""
    w, h = size
    img = Image.new("RGB", size)
    img.putdata([((x * 7 + seed) % 256, (y * 5 + seed * 3) % 256, (x * y + seed) % 256)
                 for y in range(h) for x in range(w)])
    return img


def write_sources(root: Path) -> Path:
    """Write JSONL + images under ``root``; return the JSONL path."""
    img = root / "img"
    img.mkdir(parents=True)
    Image.new("RGB", (40, 30), (200, 30, 30)).save(img / "in.png")
    Image.new("RGB", (40, 30), (30, 30, 200)).save(img / "out.png")
    Image.new("RGB", (20, 20), (30, 200, 30)).save(img / "extra.png")
    _pattern((240, 160), 11).save(img / "shot.png")
    Image.new("RGB", (32, 32), (250, 250, 0)).save(img / "can.png")
    lines = [
        {"id": "ctx", "text": "what are people doing with the new model?", "author": "@q",
         "timestamp": "2025-03-25T10:00:00Z"},
        {"id": "p1", "parent_id": "ctx", "text": "turn my cat green <b>bold</b> please",
         "author": "@alice", "timestamp": "2025-03-26T10:00:00Z",
         "url": "https://x.example/alice/1", "engagement": {"likes": 12, "views": 300},
         "image_urls": [{"url": "img/in.png", "alt": "my cat"}, {"url": "img/out.png"},
                        {"url": "img/extra.png", "alt": "meme"}],
         "replies_below": [{"id": "r1", "text": "the green looks yellowish", "author": "@bob",
                            "timestamp": "2025-03-26T11:00:00Z"},
                           {"id": "r2", "text": "love it", "author": "@cy",
                            "timestamp": "2025-03-26T12:00:00Z"}]},
        {"id": "r1a", "parent_id": "r1", "text": "agreed, zebra stripes too",
         "author": "@alice", "timestamp": "2025-03-26T13:00:00Z"},
        {"id": "s1", "post_id": "p1", "prompt": "Change the colour of the cat to green",
         "quality": "Benchmark", "split": "i2i", "input_images": [0], "output_images": [1],
         "community_feedback": [{"post_id": "r1", "text": "the green looks yellowish"}],
         "tags": ["colour"]},
        {"id": "p2", "text": "look at this chat", "author": "@dan",
         "timestamp": "2025-03-27T10:00:00Z", "image_urls": ["img/shot.png"]},
        {"id": "s2", "post_id": "p2", "prompt": "make it a watercolor", "quality": None,
         "split": "i2i", "is_screenshot": True, "input_images": [0], "output_images": [0],
         "input_bboxs": [[10, 20, 50, 40]], "output_bboxs": [[100, 30, 120, 100]]},
        {"id": "p3", "text": "PROMPT TEMPLATE: Design a soda can called ___",
         "author": "@eve", "timestamp": "2025-03-28T10:00:00Z", "image_urls": ["img/can.png"],
         "replies_below": [{"id": "r3", "text": "FIZZ POP", "author": "@fay",
                            "timestamp": "2025-03-28T10:30:00Z"}]},
        {"id": "s3", "post_id": "p3", "prompt": "Design a soda can called ___",
         "quality": "Benchmark", "split": "t2i", "output_images": [0],
         "community_feedback": [{"post_id": "r3", "text": "FIZZ POP"}],
         "tags": ["template", "fill-in-the-blank"]},
        {"id": "p4", "text": "zebra unicorn mashup", "author": "@gil",
         "timestamp": "2025-03-29T10:00:00Z"},
        {"id": "s4", "post_id": "p4", "prompt": "a unicorn with zebra stripes",
         "quality": "Analysis", "split": "t2i", "output_images": ["img/missing.png"]},
        {"id": "s5", "post_id": "p4", "prompt": "off topic rant", "quality": "Trash",
         "split": "t2i"},
    ]
    path = root / "posts.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def curate_project(tmp_path: Path):  # type: ignore[no-untyped-def]
    """The small project above, open for writing."""
    src = write_sources(tmp_path / "src")
    project = Project.create(tmp_path / "c.winnow")
    report = import_jsonl(project, src)
    assert not report.errors, report.errors
    yield project
    project.close()
