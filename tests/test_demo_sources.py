"""The demo data set: deterministic, valid ADR-001 JSONL, real images, exact screenshot boxes."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core.demo.sources import DemoSources, generate_demo_sources
from core.export_files import MARKER_NAME, Marker, NotOwnedError
from core.export_folder import foreign_entries

POST_FIELDS = {"id", "text", "timestamp", "keyword", "url", "author", "image_urls", "replies_above",
               "replies_below", "engagement"}
SAMPLE_FIELDS = {"id", "post_id", "prompt", "quality", "split", "community_feedback", "input_images",
                 "output_images", "is_screenshot", "input_bboxs", "output_bboxs", "tags"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoSources:
    return generate_demo_sources(tmp_path_factory.mktemp("demo") / "src", seed=0)


def _lines(demo: DemoSources) -> list[dict]:
    return [json.loads(line) for line in demo.posts_jsonl.read_text(encoding="utf-8").splitlines()]


def _samples(demo: DemoSources) -> list[dict]:
    return [line for line in _lines(demo) if "prompt" in line]


def _all_posts(demo: DemoSources) -> list[dict]:
    """Every post object, replies included (depth-first)."""
    out: list[dict] = []

    def walk(p: dict) -> None:
        out.append(p)
        for q in (*p["replies_above"], *p["replies_below"]):
            walk(q)

    for line in _lines(demo):
        if "prompt" not in line:
            walk(line)
    return out


def test_same_seed_gives_identical_bytes(tmp_path: Path) -> None:
    a = generate_demo_sources(tmp_path / "a", seed=3, n_threads=30)
    b = generate_demo_sources(tmp_path / "b", seed=3, n_threads=30)
    c = generate_demo_sources(tmp_path / "c", seed=4, n_threads=30)
    assert a.posts_jsonl.read_bytes() == b.posts_jsonl.read_bytes()
    assert a.posts_jsonl.read_bytes() != c.posts_jsonl.read_bytes()
    files_a = sorted(p.relative_to(a.root) for p in a.root.rglob("*")
                     if p.is_file() and p.name != MARKER_NAME)  # the marker has times
    files_b = sorted(p.relative_to(b.root) for p in b.root.rglob("*")
                     if p.is_file() and p.name != MARKER_NAME)
    assert files_a == files_b
    for rel in files_a:
        assert (a.root / rel).read_bytes() == (b.root / rel).read_bytes(), rel
    assert a.screenshot_boxes == b.screenshot_boxes


def test_lines_have_adr001_fields(demo: DemoSources) -> None:
    lines = _lines(demo)
    for line in lines:
        if "prompt" in line:
            assert line.keys() >= SAMPLE_FIELDS
            assert line["quality"] in ("Benchmark", "Analysis", "Trash", None)
            assert line["split"] in ("text-to-image", "image-to-image")
            assert all(fb.keys() == {"post_id", "text"} for fb in line["community_feedback"])
        else:
            assert line.keys() >= POST_FIELDS
    posts = _all_posts(demo)
    ids = [p["id"] for p in posts]
    assert len(ids) == len(set(ids)) == demo.n_posts
    by_id = {p["id"]: p for p in posts}
    for p in posts:
        assert p.keys() >= POST_FIELDS
        assert datetime.fromisoformat(p["timestamp"]).year == 2025
        assert p["author"].startswith("@")
        assert p["url"] == f"https://x.com/{p['author'][1:]}/status/{p['id']}"
        assert {"likes", "reposts", "views"} <= p["engagement"].keys()
        if "parent_id" in p:
            assert p["parent_id"] in by_id
    for s in _samples(demo):
        assert s["post_id"] in by_id
        for fb in s["community_feedback"]:
            assert by_id[fb["post_id"]]["text"] == fb["text"]
    sample_ids = [s["id"] for s in _samples(demo)]
    assert len(sample_ids) == len(set(sample_ids)) == demo.n_samples


def test_every_referenced_image_exists_and_decodes(demo: DemoSources) -> None:
    refs: set[str] = set()
    for p in _all_posts(demo):
        refs.update(u["url"] for u in p["image_urls"])
    for s in _samples(demo):
        refs.update(s["input_images"])
        refs.update(s["output_images"])
        if s["split"] == "image-to-image":
            assert s["input_images"]
        else:
            assert not s["input_images"]
        assert s["output_images"]
    assert refs
    for ref in refs:
        assert ref.startswith("images/") and ref.endswith(".png")
        with Image.open(demo.root / ref) as im:
            im.load()
            assert 200 <= max(im.size) <= 900
    total = sum(p.stat().st_size for p in demo.root.rglob("*") if p.is_file())
    assert total < 15 * 1024 * 1024


def test_screenshot_boxes_crop_the_pasted_pictures(demo: DemoSources) -> None:
    shots = [s for s in _samples(demo) if s["is_screenshot"]]
    assert 15 <= len(shots) <= 25
    assert {s["id"] for s in shots} == set(demo.screenshot_boxes)
    for s in shots:
        boxes = demo.screenshot_boxes[s["id"]]
        assert [list(b) for b in boxes["input"]] == s["input_bboxs"]
        assert [list(b) for b in boxes["output"]] == s["output_bboxs"]
        assert s["output_bboxs"]
        assert len(set(s["output_images"])) == 1
        assert s["input_images"] == (s["output_images"] if s["input_bboxs"] else [])
        shot = np.asarray(Image.open(demo.root / s["output_images"][0]).convert("RGB"))
        h, w, _ = shot.shape
        for role in ("input", "output"):
            truth = demo.screenshot_truth[s["id"]][role]
            assert len(truth) == len(boxes[role])
            for (x, y, bw, bh), path in zip(boxes[role], truth, strict=True):
                assert x >= 0 and y >= 0 and x + bw <= w and y + bh <= h and bw > 50 and bh > 50
                crop = shot[y:y + bh, x:x + bw]
                pic = np.asarray(Image.open(path).convert("RGB"))
                assert np.array_equal(crop, pic), (s["id"], role)
                # the box is tight: the row just outside differs from the picture's edge row
                if y > 0:
                    assert not np.array_equal(shot[y - 1, x:x + bw], crop[0])


def test_labels_splits_tags_and_extras(demo: DemoSources) -> None:
    samples = _samples(demo)
    qualities = {s["quality"] for s in samples}
    assert qualities == {"Benchmark", "Analysis", "Trash", None}
    assert {s["split"] for s in samples} == {"text-to-image", "image-to-image"}
    assert sum(bool(s["tags"]) for s in samples) >= 10
    assert sum(bool(s["community_feedback"]) for s in samples) >= 30
    # raw posts that were never processed into a sample
    used = {s["post_id"] for s in samples}
    mains = [line for line in _lines(demo) if "prompt" not in line]
    assert sum(m["id"] not in used for m in mains) >= 3
    assert sum(bool(m["replies_above"]) for m in mains) >= 10
    # fill-in-the-blank templates whose reply completes the blank
    templates = [s for s in samples if "___" in s["prompt"]]
    assert len(templates) >= 2
    for s in templates:
        head = s["prompt"].split("___")[0]
        assert any(fb["text"].startswith(head) and "___" not in fb["text"] for fb in s["community_feedback"])
    # a few yellow-tint complaints for the colour-shift metric to find
    assert sum("yellow" in fb["text"] or "tea" in fb["text"] or "warmer" in fb["text"] or "piss" in fb["text"]
               for s in samples for fb in s["community_feedback"]) >= 3


def test_counts_in_expected_ranges(demo: DemoSources) -> None:
    assert 250 <= demo.n_posts <= 700
    assert 100 <= demo.n_samples <= 150
    assert demo.posts_jsonl == demo.root / "posts.jsonl"
    assert len(demo.models) == 4


def test_model_outputs_layout_and_behaviour(demo: DemoSources) -> None:
    bench = {s["id"] for s in _samples(demo) if s["quality"] == "Benchmark"}
    assert sorted(p.name for p in demo.outputs_dir.iterdir()) == sorted(demo.models)
    assert len(demo.missing_outputs) == 1 and not demo.missing_outputs[0].exists()
    assert len(demo.extra_outputs) == 1 and demo.extra_outputs[0].exists()
    assert demo.extra_outputs[0].stem not in bench
    for model in demo.models:
        stems = {p.stem for p in (demo.outputs_dir / model).glob("*.png")}
        expected = bench - {p.stem for p in demo.missing_outputs if p.parent.name == model}
        extra = {p.stem for p in demo.extra_outputs if p.parent.name == model}
        assert stems == expected | extra, model

    def load(model: str, sid: str) -> np.ndarray:
        return np.asarray(Image.open(demo.outputs_dir / model / f"{sid}.png").convert("RGB"), dtype=float)

    common = sorted(bench - {p.stem for p in demo.missing_outputs})
    for sid in common[:10]:
        ref = load("lumen-edit", sid)
        yellow, blurry, poster = load("aurora-xl", sid), load("brushwork-2", sid), load("pixelforge", sid)
        # aurora-xl: warmer (blue down relative to red)
        assert (yellow[..., 0] - yellow[..., 2]).mean() > (ref[..., 0] - ref[..., 2]).mean() + 5
        # brushwork-2: less high-frequency energy
        assert np.abs(np.diff(blurry, axis=1)).mean() < np.abs(np.diff(ref, axis=1)).mean()
        # pixelforge: 2 bits per channel
        assert len(np.unique(poster)) <= 4


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_refuses_foreign_folder_but_regenerates_a_demo(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.txt").write_text("precious")
    with pytest.raises(FileExistsError, match="thesis.txt"):
        generate_demo_sources(tmp_path / "mine", n_threads=8)
    assert _tree(tmp_path / "mine") == {"thesis.txt": b"precious"}
    first = generate_demo_sources(tmp_path / "demo", seed=1, n_threads=8)
    assert Marker(first.root).export is not None  # Winnow's, listed file by file
    assert foreign_entries(first.root) == []
    again = generate_demo_sources(tmp_path / "demo", seed=1, n_threads=8)
    assert first.posts_jsonl.read_bytes() == again.posts_jsonl.read_bytes()


@pytest.mark.parametrize("change", ["edit", "add", "old-demo"])
def test_a_demo_folder_is_replaced_only_while_winnow_can_prove_it_wrote_it(
        tmp_path: Path, change: str) -> None:
    """ADR 005: a file the user changed or added, or a folder an earlier version marked
    only by the existence of ``.winnow-demo``, is never deleted."""
    root = tmp_path / "demo"
    generate_demo_sources(root, seed=1, n_threads=8)
    if change == "edit":
        (root / "posts.jsonl").write_text("my own notes\n", encoding="utf-8")
    elif change == "add":
        (root / "outputs" / "aurora-xl" / "keep-me.png").write_bytes(b"mine")
    else:  # what earlier versions left: their marker file, no ownership marker
        (root / MARKER_NAME).unlink()
        (root / ".winnow-demo").write_text("generated by core.demo_sources\n")
    before = _tree(root)
    culprit = {"edit": "posts.jsonl", "add": "keep-me.png", "old-demo": MARKER_NAME}[change]
    with pytest.raises(NotOwnedError, match=culprit.replace(".", r"\.")):
        generate_demo_sources(root, seed=2, n_threads=8)
    assert _tree(root) == before
    assert not [p for p in tmp_path.iterdir() if p.name != "demo"]  # no leftovers


def test_core_demo_modules_import_no_qt() -> None:
    code = ("import sys, core.demo.sources, core.demo.drawing, core.demo.photos, core.demo.ratings; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'ui', 'app', 'qasync')]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[1])
