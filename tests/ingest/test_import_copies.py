"""Copies of one post in an import (ADR 182): a refused sample line writes nothing of its
embedded post; copies in one file must agree; an embedded copy never erases a stored
post's fields; re-importing the same file changes nothing.  CR-only and mid-file BOM
lines get a message that names the cause."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.ingest.importer import ImportReport, import_jsonl
from core.store import Project

FULL = {"id": "P", "text": "full post", "author": "alice", "engagement": {"likes": 5},
        "image_urls": [{"url": "https://example.com/a.jpg", "alt": "a photo"}]}
SHORT = {"id": "P", "text": "full post"}
FORGED = {"id": "P", "text": "FORGED text", "author": "mallory"}
PATHS = [pytest.param(True, 2000, id="read-ahead"), pytest.param(False, 1, id="line-by-line"),
         pytest.param(True, 2, id="batches-of-2")]


def _write(path: Path, objs: list[Any]) -> Path:
    path.write_bytes(b"".join((o if isinstance(o, bytes) else json.dumps(o).encode()) + b"\n"
                              for o in objs))
    return path


def _import(project: Project, src: Path, read_ahead: bool = True,
            batch_size: int = 2000) -> ImportReport:
    return import_jsonl(project, src, fetch_images=False, read_ahead=read_ahead,
                        batch_size=batch_size)


def _post(project: Project, pid: str = "P") -> tuple[Any, ...]:
    """Everything stored about a post: its row (less the time) and its image rows."""
    conn = project.conn
    row = conn.execute("SELECT id, parent_id, text, timestamp, keyword, url, author, "
                       "engagement, raw, raw_hash FROM posts WHERE id = ?", (pid,)).fetchone()
    images = conn.execute("SELECT position, url, alt, sha256, error FROM post_images "
                          "WHERE post_id = ? ORDER BY position", (pid,)).fetchall()
    return tuple(row) if row else (), [tuple(r) for r in images]


def _counts(report: ImportReport) -> tuple[int, int, int]:
    return report.imported, report.updated, report.unchanged


@pytest.fixture
def stored(tmp_path: Path) -> Iterator[Project]:
    """A project holding the full post P, its image marked as stored (a sha256)."""
    project = Project.create(tmp_path / "p.winnow")
    assert _import(project, _write(tmp_path / "posts.jsonl", [FULL])).errors == []
    with project.transaction() as conn:
        conn.execute("INSERT INTO images(sha256, ext, width, height, bytes, created_at) "
                     "VALUES ('ab', 'jpg', 1, 1, 1, '2025-01-01')")
        conn.execute("UPDATE post_images SET sha256 = 'ab' WHERE post_id = 'P'")
    yield project
    project.close()


# -- 1. a refused line changes nothing -----------------------------------------------------
@pytest.mark.parametrize(("read_ahead", "batch_size"), PATHS)
@pytest.mark.parametrize("line", [
    {"id": "s1", "prompt": "x", "post": SHORT, "input_images": [3]},
    {"id": "s1", "prompt": "x", "post": {**FULL, "text": "changed"}, "output_images": [7]},
    {"id": "s1", "prompt": "x", "post": SHORT, "post_id": "never-comes"},
], ids=["bad-index", "changed-copy-bad-index", "post-never-comes"])
def test_a_refused_sample_line_leaves_its_embedded_post_as_it_was(
        stored: Project, tmp_path: Path, line: dict[str, Any], read_ahead: bool,
        batch_size: int) -> None:
    before = _post(stored)
    report = _import(stored, _write(tmp_path / "s.jsonl", [line]), read_ahead, batch_size)
    assert [e["line"] for e in report.errors] == [1]
    assert _counts(report) == (0, 0, 0)
    assert _post(stored) == before
    assert stored.counts()["samples"] == 0


@pytest.mark.parametrize(("read_ahead", "batch_size"), PATHS)
def test_a_refused_sample_line_creates_none_of_its_posts(tmp_path: Path, read_ahead: bool,
                                                         batch_size: int) -> None:
    src = _write(tmp_path / "s.jsonl", [
        {"id": "s1", "prompt": "x", "input_images": [1],
         "post": {"id": "new", "text": "t", "image_urls": ["https://e.com/1.jpg"],
                  "replies_below": [{"id": "r", "text": "reply"}]}},
        {"id": "s2", "prompt": "y", "post_id": "gone",
         "post": {"id": "new2", "text": "t2"}},
    ])
    with Project.create(tmp_path / "p.winnow") as project:
        report = _import(project, src, read_ahead, batch_size)
        assert [e["line"] for e in report.errors] == [1, 2]
        assert "image 1 of post 'new'" in report.errors[0]["error"]
        assert "post 'gone' is not in the project" in report.errors[1]["error"]
        assert project.counts()["posts"] == 0 and project.counts()["samples"] == 0


# -- 2. copies of one post in one file must agree ----------------------------------------
@pytest.mark.parametrize(("read_ahead", "batch_size"), PATHS)
def test_an_embedded_copy_that_contradicts_the_post_line_is_refused(
        tmp_path: Path, read_ahead: bool, batch_size: int) -> None:
    src = _write(tmp_path / "emb.jsonl", [
        {"id": "P", "text": "original text by author", "author": "alice"},
        {"id": "s1", "prompt": "x", "post": FORGED},
    ])
    with Project.create(tmp_path / "p.winnow") as project:
        for _ in range(2):  # and the same again: the same error, nothing rewritten
            report = _import(project, src, read_ahead, batch_size)
            assert len(report.errors) == 1 and report.errors[0]["line"] == 2
            message = report.errors[0]["error"]
            assert "line 1" in message and "'author'" in message and "'P'" in message
            row = project.conn.execute("SELECT text, author FROM posts").fetchall()
            assert row == [("original text by author", "alice")]
            assert project.counts()["samples"] == 0
        assert _counts(report) == (0, 0, 1)


@pytest.mark.parametrize(("read_ahead", "batch_size"), PATHS)
def test_a_post_line_that_contradicts_an_earlier_embedded_copy_is_refused(
        tmp_path: Path, read_ahead: bool, batch_size: int) -> None:
    src = _write(tmp_path / "emb.jsonl", [
        {"id": "s1", "prompt": "x", "post": FORGED},
        {"id": "P", "text": "original text by author", "author": "alice"},
    ])
    with Project.create(tmp_path / "p.winnow") as project:
        first = _import(project, src, read_ahead, batch_size)
        again = _import(project, src, read_ahead, batch_size)
        for report in (first, again):
            assert [e["line"] for e in report.errors] == [2]
            assert "line 1" in report.errors[0]["error"]
        assert _counts(first) == (1, 0, 0) and _counts(again) == (0, 0, 1)
        assert project.conn.execute("SELECT text, author FROM posts").fetchall() == [
            ("FORGED text", "mallory")]


@pytest.mark.parametrize(("read_ahead", "batch_size"), PATHS)
@pytest.mark.parametrize("order", ["post-first", "sample-first"])
def test_a_shorter_copy_agrees_in_either_order_and_the_file_settles(
        tmp_path: Path, read_ahead: bool, batch_size: int, order: str) -> None:
    lines: list[Any] = [FULL, {"id": "s1", "prompt": "x", "post": SHORT,
                               "input_images": ["https://example.com/b.jpg"]}]
    src = _write(tmp_path / "f.jsonl", lines if order == "post-first" else lines[::-1])
    with Project.create(tmp_path / "p.winnow") as project:
        first = _import(project, src, read_ahead, batch_size)
        assert first.errors == [] and _counts(first) == (2, 0, 0)
        after = _post(project)
        assert after[0][6] == "alice" and after[1][0][1] == "https://example.com/a.jpg"
        again = _import(project, src, read_ahead, batch_size)
        assert again.errors == [] and _counts(again) == (0, 0, 2) and again.notes == []
        assert _post(project) == after


@pytest.mark.parametrize(("read_ahead", "batch_size"), PATHS)
def test_two_embedded_copies_must_agree_and_complete_each_other(
        tmp_path: Path, read_ahead: bool, batch_size: int) -> None:
    src = _write(tmp_path / "f.jsonl", [
        {"id": "s1", "prompt": "x", "post": {"id": "Q", "text": "q"}},
        {"id": "s2", "prompt": "y", "post": {"id": "Q", "text": "q", "author": "bob"}},
        {"id": "s3", "prompt": "z", "post": {"id": "Q", "author": "eve", "text": "q"}},
    ])
    with Project.create(tmp_path / "p.winnow") as project:
        first = _import(project, src, read_ahead, batch_size)
        assert [e["line"] for e in first.errors] == [3]
        assert "line 2" in first.errors[0]["error"] and "'author'" in first.errors[0]["error"]
        assert project.conn.execute("SELECT text, author FROM posts").fetchall() == [
            ("q", "bob")]
        again = _import(project, src, read_ahead, batch_size)
        assert [e["line"] for e in again.errors] == [3] and _counts(again) == (0, 0, 2)


# -- 2b. across imports: an embedded copy never erases -------------------------------------
@pytest.mark.parametrize(("read_ahead", "batch_size"), PATHS)
def test_a_shorter_embedded_copy_leaves_a_stored_post_whole(
        stored: Project, tmp_path: Path, read_ahead: bool, batch_size: int) -> None:
    before = _post(stored)
    src = _write(tmp_path / "s.jsonl", [{"id": "s1", "prompt": "x", "post": SHORT,
                                         "input_images": [0]}])
    report = _import(stored, src, read_ahead, batch_size)
    assert report.errors == [] and report.notes == [] and _counts(report) == (1, 0, 0)
    assert _post(stored) == before


@pytest.mark.parametrize(("read_ahead", "batch_size"), PATHS)
def test_a_changed_embedded_copy_updates_only_the_fields_it_gives(
        stored: Project, tmp_path: Path, read_ahead: bool, batch_size: int) -> None:
    before = _post(stored)
    src = _write(tmp_path / "s.jsonl", [{"id": "s1", "prompt": "x",
                                         "post": {"id": "P", "text": "corrected"}}])
    report = _import(stored, src, read_ahead, batch_size)
    assert report.errors == [] and _counts(report) == (1, 0, 0)
    assert [n["line"] for n in report.notes] == [1]
    assert "'text'" in report.notes[0]["note"]
    after = _post(stored)
    assert after[0][2] == "corrected"
    assert after[0][6:8] == before[0][6:8]  # author, engagement kept
    assert after[1] == before[1]  # the image rows, sha256 included
    again = _import(stored, src, read_ahead, batch_size)
    assert again.errors == [] and again.notes == [] and _counts(again) == (0, 0, 1)
    assert _post(stored) == after


# -- 3. line endings and byte-order marks --------------------------------------------------
def test_a_cr_only_file_is_named_as_such(tmp_path: Path) -> None:
    src = tmp_path / "cr.jsonl"
    src.write_bytes(b'{"id":"a","text":"1"}\r{"id":"b","text":"2"}\r')
    with Project.create(tmp_path / "p.winnow") as project:
        report = _import(project, src)
    assert [e["line"] for e in report.errors] == [1]
    message = report.errors[0]["error"]
    assert "carriage return" in message and "CR" in message and "line ending" in message


def test_crlf_and_a_cr_as_whitespace_still_import(tmp_path: Path) -> None:
    src = tmp_path / "crlf.jsonl"
    src.write_bytes(b'{"id":"a","text":"1"}\r\n{"id":"b",\r"text":"2"}\r\n')
    with Project.create(tmp_path / "p.winnow") as project:
        report = _import(project, src)
    assert report.errors == [] and report.imported == 2


def test_a_byte_order_mark_inside_the_file_is_named(tmp_path: Path) -> None:
    src = tmp_path / "bom.jsonl"
    src.write_bytes(b'\xef\xbb\xbf{"id":"a","text":"1"}\n\xef\xbb\xbf{"id":"b","text":"2"}\n')
    with Project.create(tmp_path / "p.winnow") as project:
        report = _import(project, src)
    assert [e["line"] for e in report.errors] == [2]
    assert "byte-order mark" in report.errors[0]["error"]
    assert "U+FEFF" in report.errors[0]["error"]
