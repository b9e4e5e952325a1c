"""A project of raw posts (no samples but one imported), and a running mock VLM server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from core.ingest.importer import import_jsonl
from core.store import Project


def write_posts(root: Path) -> Path:
    """Posts as a scraper delivers them: threads with replies and images, no samples."""
    img = root / "img"
    img.mkdir(parents=True)
    Image.new("RGB", (400, 300), (200, 30, 30)).save(img / "in.png")
    Image.new("RGB", (400, 300), (30, 30, 200)).save(img / "out.png")
    Image.new("RGB", (2000, 1500), (240, 240, 240)).save(img / "shot.png")
    Image.new("RGB", (64, 64), (250, 250, 0)).save(img / "can.png")
    lines = [
        {"id": "q1", "text": "turn my cat green please #ai", "author": "@alice",
         "timestamp": "2025-03-26T10:00:00Z",
         "image_urls": [{"url": "img/in.png", "alt": "my cat"}, {"url": "img/out.png"}],
         "replies_below": [
             {"id": "q1r1", "text": "the green looks yellowish", "author": "@bob",
              "timestamp": "2025-03-26T11:00:00Z"},
             {"id": "q1r2", "text": "love it", "author": "@cy",
              "timestamp": "2025-03-26T12:00:00Z"}]},
        {"id": "q2", "text": "look at this chat", "author": "@dan",
         "timestamp": "2025-03-27T10:00:00Z",
         "image_urls": [{"url": "img/shot.png", "alt": "screenshot of my chat"}]},
        {"id": "q3", "text": "PROMPT TEMPLATE: Design a soda can called ___",
         "author": "@eve", "timestamp": "2025-03-28T10:00:00Z",
         "image_urls": ["img/can.png"],
         "replies_below": [
             {"id": "q3r1", "text": "FIZZ POP", "author": "@fay",
              "timestamp": "2025-03-28T10:30:00Z"},
             {"id": "q3r2", "text": "Bubble Up", "author": "@gus",
              "timestamp": "2025-03-28T10:40:00Z"}]},
        {"id": "q4", "text": "a unicorn with zebra stripes in a misty forest",
         "author": "@gil", "timestamp": "2025-03-29T10:00:00Z",
         "replies_below": [{"id": "q4r1", "text": "great result", "author": "@hal",
                            "timestamp": "2025-03-29T11:00:00Z"}]},
        {"id": "q5", "text": "gore", "author": "@ivy", "timestamp": "2025-03-30T10:00:00Z"},
        {"id": "p9", "text": "an imported one", "author": "@jo",
         "timestamp": "2025-03-31T10:00:00Z"},
        {"id": "s9", "post_id": "p9", "prompt": "an imported prompt", "quality": "Benchmark",
         "split": "t2i"},
    ]
    path = root / "posts.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def posts_project(tmp_path: Path):  # type: ignore[no-untyped-def]
    """The raw posts above in a fresh project, open for writing."""
    project = Project.create(tmp_path / "posts.winnow")
    report = import_jsonl(project, write_posts(tmp_path / "src"))
    assert not report.errors, report.errors
    yield project
    project.close()


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    from vlm_server import VlmServer

    with VlmServer() as srv:
        yield srv
