"""Builders shared by the interop tests (images, a small benchmark, a released photo)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from PIL import Image

from core.store import Project


def pattern(size: tuple[int, int], seed: int) -> Image.Image:
    """An image whose pixels differ enough to check crops exactly."""
    w, h = size
    img = Image.new("RGB", size)
    img.putdata([((x * 7 + seed) % 256, (y * 5 + seed * 3) % 256, (x * y + seed) % 256)
                 for y in range(h) for x in range(w)])
    return img


def png_bytes(img: Image.Image, fmt: str = "PNG") -> bytes:
    out = io.BytesIO()
    img.save(out, fmt)
    return out.getvalue()


def write_sources(root: Path) -> Path:
    """JSON Lines + images: whole images, a screenshot with two boxes, a JPEG, a
    missing image, unicode text, feedback, tags, an edited prompt later."""
    img = root / "img"
    img.mkdir(parents=True)
    pattern((40, 30), 1).save(img / "in.png")
    pattern((40, 30), 2).save(img / "out.png")
    pattern((240, 160), 11).save(img / "shot.png")
    pattern((32, 24), 5).save(img / "can.jpg", quality=90)
    lines = [
        {"id": "p1", "text": "turn my cat green 🐱", "author": "@alice",
         "timestamp": "2025-03-26T10:00:00Z", "url": "https://x.example/alice/1",
         "keyword": "gpt-image", "engagement": {"likes": 12, "views": 300},
         "image_urls": [{"url": "img/in.png", "alt": "my cat"}, {"url": "img/out.png"}],
         "replies_below": [{"id": "r1", "text": "the green looks yellowish", "author": "@bob",
                            "timestamp": "2025-03-26T11:00:00Z"}]},
        {"id": "s1", "post_id": "p1", "prompt": "Change the colour of the cat to green",
         "quality": "Benchmark", "split": "i2i", "input_images": [0], "output_images": [1],
         "community_feedback": [{"post_id": "r1", "text": "the green looks yellowish"}],
         "tags": ["colour", "animal"], "notes": "good one"},
        {"id": "p2", "text": "look at this chat", "author": "@dan",
         "timestamp": "2025-03-27T10:00:00Z", "image_urls": ["img/shot.png"]},
        {"id": "s2", "post_id": "p2", "prompt": "make it a watercolor", "quality": "Benchmark",
         "split": "i2i", "is_screenshot": True, "input_images": [0], "output_images": [0],
         "input_bboxs": [[10, 20, 50, 40]], "output_bboxs": [[100, 30, 120, 100]]},
        {"id": "p3", "text": "Design a soda can called FIZZ", "author": "@eve",
         "timestamp": "2025-03-28T10:00:00Z", "image_urls": ["img/can.jpg"]},
        {"id": "s3", "post_id": "p3", "prompt": "Design a soda can called «FIZZ»",
         "quality": "Benchmark", "split": "t2i", "output_images": [0], "tags": ["text"]},
        {"id": "s4", "prompt": "a unicorn with zebra stripes", "quality": "Benchmark",
         "split": "t2i", "output_images": ["img/missing.png"]},
        {"id": "s5", "prompt": "an analysis-only sample", "quality": "Analysis",
         "split": "t2i", "output_images": ["img/out.png"]},
    ]
    path = root / "posts.jsonl"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n",
                    encoding="utf-8")
    return path


def release(project: Project, path: Path, **fields: str) -> int:
    """Import a photo, review it and record a release (the released file = a re-encode)."""
    from core.imaging import photos as repo

    pid, _ = repo.import_photo(project, path)
    if fields:
        repo.update_photo(project, pid, **fields)
    repo.set_status(project, pid, "reviewed")
    data = png_bytes(Image.open(path).convert("RGB").transpose(Image.Transpose.FLIP_LEFT_RIGHT))
    sha, _ = project.assets.put(data, "png")
    repo.mark_released(project, pid, sha, str(path.parent / f"released-{path.stem}.png"), {})
    return pid
