"""JSONL import: good data, a corpus of bad lines, images local and remote, re-import."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from core.ingest.fetch import FetchSettings
from core.ingest.importer import ImportFileError, import_jsonl
from core.jobs import Cancelled, JobState
from core.store import Project


def png(color: str = "red", size: tuple[int, int] = (40, 30)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, "PNG")
    return buf.getvalue()


def write_jsonl(path: Path, lines: list[object]) -> Path:
    with open(path, "wb") as fh:
        for line in lines:
            fh.write(line if isinstance(line, bytes) else json.dumps(line).encode())
            fh.write(b"\n")
    return path


POST = {
    "id": "p1", "text": "Make my cat a Ghibli character", "timestamp": "2025-04-01T10:00:00Z",
    "keyword": "ghibli", "url": "https://x.com/a/status/1", "author": "@a",
    "engagement": {"likes": 10, "views": 100},
    "replies_above": [{"id": "p0", "text": "context", "author": "@z"}],
    "replies_below": [{"id": "p2", "text": "love it", "author": "@b"},
                      {"id": "p3", "text": "too yellow", "author": "@c",
                       "replies_below": [{"id": "p4", "text": "agreed"}]}],
}


def test_posts_reply_tree_and_idempotent_reimport(project: Project, tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "posts.jsonl", [POST, {"id": "q1", "text": "another"}])
    report = import_jsonl(project, src)
    assert (report.imported, report.updated, report.unchanged, report.errors) == (2, 0, 0, [])
    parents = dict(project.conn.execute("SELECT id, parent_id FROM posts"))
    assert parents == {"p1": "p0", "p0": None, "p2": "p1", "p3": "p1", "p4": "p3", "q1": None}
    engagement = project.conn.execute("SELECT engagement FROM posts WHERE id='p1'").fetchone()[0]
    assert json.loads(engagement) == {"likes": 10, "views": 100}

    snapshot = list(project.conn.execute("SELECT * FROM posts ORDER BY id"))
    again = import_jsonl(project, src)
    assert (again.imported, again.updated, again.unchanged) == (0, 0, 2)
    assert list(project.conn.execute("SELECT * FROM posts ORDER BY id")) == snapshot

    changed = dict(POST, text="Make my dog a Ghibli character")
    write_jsonl(src, [changed, {"id": "q1", "text": "another"}])
    third = import_jsonl(project, src)
    assert (third.imported, third.updated, third.unchanged) == (0, 1, 1)
    assert project.conn.execute("SELECT count(*) FROM posts").fetchone()[0] == 6


BAD_LINES: list[tuple[bytes | dict, str]] = [
    (b"{not json", "invalid JSON"),
    (b"[1, 2, 3]", "expected a JSON object"),
    (b"\xff\xfe bad bytes", "not valid UTF-8"),
    ({"id": "x1"}, "missing field 'text'"),
    ({"id": "x2", "text": "t", "engagement": "lots"}, "engagement' must be an object"),
    ({"id": "x2b", "text": 5.5}, "field 'text' must be a string, got number"),
    ({"id": "x3", "text": "t", "replies_below": [{"text": ["not", "text"]}]},
     "replies_below[0].text' must be a string"),
    ({"id": "x4", "text": "t", "image_urls": [{"alt": "no url"}]}, "image_urls[0].url"),
    ({"id": "s1", "prompt": "p", "quality": "Great"}, "quality' must be one of"),
    ({"id": "s2", "prompt": "p", "post_id": "nowhere"}, "post 'nowhere' is not in the project"),
    ({"id": "s3", "prompt": "p", "input_images": ["a.png"], "input_bboxs": [[1, 2, -3, 4]]},
     "positive size"),
    ({"id": "s4", "prompt": "p", "is_screenshot": "yes"}, "true or false"),
    ({"prompt": "no id"}, "missing field 'id'"),
    ({"id": "s5", "prompt": "p", "split": "video"}, "split' must be"),
]


def test_bad_lines_are_reported_and_good_lines_imported(project: Project,
                                                        tmp_path: Path) -> None:
    lines: list[object] = [{"id": "good1", "text": "fine"}]
    lines += [line for line, _ in BAD_LINES]
    lines += [b"", {"id": "good2", "text": "also fine"}, {"id": "s-ok", "prompt": "draw a fox"}]
    report = import_jsonl(project, write_jsonl(tmp_path / "mixed.jsonl", lines))
    assert report.imported == 3
    by_line = {e["line"]: e["error"] for e in report.errors}
    assert sorted(by_line) == list(range(2, 2 + len(BAD_LINES)))
    for k, (_, expected) in enumerate(BAD_LINES):
        assert expected in by_line[k + 2], (k + 2, by_line[k + 2])
    assert project.counts()["posts"] == 2 and project.counts()["samples"] == 1


def test_huge_line_and_wrong_file(project: Project, tmp_path: Path) -> None:
    big = {"id": "big", "text": "x" * 1_100_000}
    report = import_jsonl(project, write_jsonl(tmp_path / "big.jsonl", [big]))
    assert "too long" in report.errors[0]["error"]
    binary = tmp_path / "photo.jsonl"
    binary.write_bytes(png())
    with pytest.raises(ImportFileError, match="is a PNG image, not JSON Lines; nothing"):
        import_jsonl(project, binary)  # named once (ADR 195), not line by line
    assert project.counts()["posts"] == 0
    with pytest.raises(FileNotFoundError):
        import_jsonl(project, tmp_path / "absent.jsonl")
    with pytest.raises(IsADirectoryError):
        import_jsonl(project, tmp_path)


def test_samples_with_local_images_boxes_and_broken_files(project: Project,
                                                          tmp_path: Path) -> None:
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "in.png").write_bytes(png("red"))
    (tmp_path / "img" / "out.png").write_bytes(png("blue"))
    (tmp_path / "img" / "shot.png").write_bytes(png("white", (300, 200)))
    (tmp_path / "img" / "broken.png").write_bytes(png("green")[:60])
    lines = [
        {"id": "p1", "text": "see", "image_urls": [{"url": "img/in.png", "alt": "my cat"},
                                                   "img/out.png"]},
        {"id": "s1", "post_id": "p1", "prompt": "make it blue", "quality": "Benchmark",
         "input_images": [0], "output_images": [1],
         "community_feedback": [{"post_id": "p9", "text": "nice"}], "tags": ["cat"]},
        {"id": "s2", "prompt": "chat shot", "is_screenshot": True,
         "input_images": ["img/shot.png"], "output_images": ["img/shot.png"],
         "input_bboxs": [[10, 20, 50, 40]], "output_bboxs": [[100, 20, 80, 60], [5, 5, 9, 9]]},
        {"id": "s3", "prompt": "broken", "output_images": ["img/broken.png", "img/none.png"]},
    ]
    report = import_jsonl(project, write_jsonl(tmp_path / "s.jsonl", lines))
    assert report.errors == []
    assert report.images_fetched == 3 and report.images_failed == 2
    failures = {e["url"]: e for e in report.image_errors}
    assert failures["img/broken.png"]["lines"] == [4]
    assert "img/none.png" in failures
    roles = project.conn.execute(
        "SELECT sample_id, role, position, bbox_x, bbox_y, bbox_w, bbox_h, sha256 IS NOT NULL "
        "FROM sample_images ORDER BY sample_id, role, position").fetchall()
    assert ("s2", "input", 0, 10, 20, 50, 40, 1) in roles
    assert ("s2", "output", 1, 5, 5, 9, 9, 1) in roles
    assert ("s3", "output", 0, None, None, None, None, 0) in roles
    s1 = project.conn.execute("SELECT split, quality, original_prompt FROM samples "
                              "WHERE id='s1'").fetchone()
    assert s1 == ("image-to-image", "Benchmark", "make it blue")
    sha = project.conn.execute("SELECT sha256 FROM sample_images WHERE sample_id='s1' "
                               "AND role='input'").fetchone()[0]
    assert project.assets.find(sha).read_bytes() == png("red")
    # the same image file referenced twice is stored once
    assert project.counts()["images"] == 3


def test_reimport_keeps_curator_edits(project: Project, tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "s.jsonl", [{"id": "s1", "prompt": "a cat", "quality": None}])
    import_jsonl(project, src)
    with project.transaction() as conn:
        conn.execute("UPDATE samples SET prompt='a black cat', quality='Benchmark' "
                     "WHERE id='s1'")
        project.audit("edit", "sample", "s1", "prompt", "a cat", "a black cat")
    write_jsonl(src, [{"id": "s1", "prompt": "a cat!", "quality": "Trash"}])
    report = import_jsonl(project, src)
    assert report.updated == 1 and "curator edits" in report.notes[0]["note"]
    row = project.conn.execute("SELECT prompt, original_prompt, quality FROM samples").fetchone()
    assert row == ("a black cat", "a cat!", "Benchmark")


def test_remote_images_good_and_bad(project: Project, tmp_path: Path, image_server) -> None:
    urls = {name: image_server.url(name) for name in
            ("/good.jpg", "/good.png", "/missing", "/page.html", "/truncated.jpg", "/bomb.png")}
    lines = [{"id": f"p{k}", "text": "t", "image_urls": [url]}
             for k, url in enumerate(urls.values())]
    settings = FetchSettings(read_timeout=2, total_timeout=5, retries=1, backoff=0.01,
                             cache_dir=tmp_path / "cache",
                             trusted=frozenset({("127.0.0.1", image_server.port)}))
    report = import_jsonl(project, write_jsonl(tmp_path / "r.jsonl", lines),
                          fetch_settings=settings)
    assert report.errors == []
    assert report.images_fetched == 2 and report.images_failed == 4
    errors = {e["url"]: e["error"] for e in report.image_errors}
    assert "404" in errors[urls["/missing"]]
    assert "text/html" in errors[urls["/page.html"]]
    assert "bomb" in errors[urls["/bomb.png"]].lower()
    assert errors[urls["/truncated.jpg"]]
    stored = project.conn.execute("SELECT count(*) FROM post_images WHERE sha256 IS NOT NULL")
    assert stored.fetchone()[0] == 2
    failed = project.conn.execute("SELECT error FROM post_images WHERE url = ?",
                                  (urls["/missing"],)).fetchone()[0]
    assert "404" in failed
    # re-import: nothing changes, and the good images are not fetched again
    hits_before = image_server.hits.get("/good.jpg", 0)
    again = import_jsonl(project, tmp_path / "r.jsonl", fetch_settings=settings)
    assert (again.imported, again.unchanged) == (0, 6)
    assert image_server.hits.get("/good.jpg", 0) == hits_before


def test_cancel_stops_between_batches(project: Project, tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "many.jsonl", [{"id": f"p{k}", "text": "t"}
                                                for k in range(3000)])
    state = JobState()
    state.subscribe(lambda s: s.cancel() if s.done > 0 and not s.cancelled() else None)
    with pytest.raises(Cancelled):
        import_jsonl(project, src, state=state, batch_size=100)
    # what was committed before the cancel is kept and consistent
    n = project.counts()["posts"]
    assert 0 < n < 3000 and n % 100 == 0


def test_original_prompt_round_trip(project: Project, tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "exported.jsonl", [
        {"id": "s1", "prompt": "a black cat", "original_prompt": "a cat",
         "prompt_modified": True}])
    import_jsonl(project, src)
    row = project.conn.execute("SELECT prompt, original_prompt FROM samples").fetchone()
    assert row == ("a black cat", "a cat")
