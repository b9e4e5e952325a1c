"""The import's read-ahead pipeline (ADR 029): parsing batch N+1 in a thread while batch N
is written changes nothing in the project — every table, byte for byte, the same as the
sequential import — and leaves no thread behind, whatever happens."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from core.ingest import importer
from core.ingest.importer import ImportStoppedError, import_jsonl
from core.jobs import Cancelled, JobState
from core.store import Project

THREAD = "winnow-import-parse"
#: Columns that hold the time of writing, the only thing two imports may differ in.
CLOCK_COLUMNS = {"imported_at", "created_at", "modified_at", "at"}


def parse_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == THREAD]


def write_lines(path: Path, lines: list[Any]) -> Path:
    with open(path, "wb") as fh:
        for line in lines:
            if not isinstance(line, bytes):
                line = json.dumps(line).encode()
            fh.write(line + b"\n")
    return path


def mixed_lines(version: int) -> list[Any]:
    """Posts, replies, samples (embedded posts, late posts, a post that never comes),
    and every kind of bad line, in runs longer than a batch."""
    lines: list[Any] = []
    for k in range(40):
        lines.append({"id": f"s{k}", "post_id": f"late{k}" if k % 5 == 0 else f"p{k}",
                      "prompt": f"make it {k} v{version}", "input_images": [0],
                      "output_images": ["https://x.example/o.jpg"],
                      "community_feedback": [{"post_id": f"r{k}", "text": f"too yellow {k}"}],
                      "tags": ["colour", f"t{k % 3}"], "quality": "Benchmark"}
                     if k % 2 else
                     {"id": f"e{k}", "prompt": f"embedded {k}",
                      "post": {"id": f"ep{k}", "text": f"post {k}", "author": "@a",
                               "image_urls": ["https://x.example/i.jpg"],
                               "replies_below": [f"reply {k}", {"id": f"er{k}", "text": "r"}]}})
        lines.append({"id": f"p{k}", "text": f"post {k} v{version % 2}", "keyword": "ghibli",
                      "timestamp": 1_740_000_000 + k, "engagement": {"likes": k},
                      "image_urls": [{"url": f"https://x.example/{k}.jpg", "alt": "in"}],
                      "replies_below": [{"id": f"r{k}", "text": f"too yellow {k}"}]})
        if k % 7 == 3:
            lines += [b"{not json", b"", b"[1, 2]", b"\xff\xfe", {"id": f"p{k}", "text": "dup"},
                      b"x" * 3000, {"id": "bad", "text": "refused by the database"}]
    lines += [b"{broken"] * 25  # a run of bad lines longer than a batch
    lines += [{"id": f"late{k}", "text": "arrives at the end"} for k in range(0, 35, 5)]
    lines.append({"id": "orphan", "post_id": "never", "prompt": "its post never comes"})
    return lines


@pytest.fixture
def odd_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Short line limit, and one post the database refuses (the line-by-line retry)."""
    monkeypatch.setattr(importer, "MAX_LINE_BYTES", 2000)
    real = importer.parse_post

    def sneaky(obj: Any, *args: Any, **kwargs: Any) -> Any:
        posts = real(obj, *args, **kwargs)
        if posts[0].id == "bad":
            posts[0].keyword = 10**30  # type: ignore[assignment]  # too large for SQLite
        return posts

    monkeypatch.setattr(importer, "parse_post", sneaky)


def dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table of the project (search-index shadow tables included), clock masked."""
    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        out = {}
        for table in tables:
            try:  # rowids too: the same rows in the same order
                cur = conn.execute(f'SELECT rowid AS "<rowid>", * FROM "{table}" ORDER BY rowid')
            except sqlite3.OperationalError:  # WITHOUT ROWID
                cur = conn.execute(f'SELECT * FROM "{table}" ORDER BY 1')
            names = [d[0] for d in cur.description]
            rows = cur.fetchall()
            if table == "project_meta":  # written when the project was created
                rows = [r for r in rows if "created_at" not in r]
            out[table] = [tuple("<clock>" if n in CLOCK_COLUMNS and v is not None else v
                                for n, v in zip(names, row, strict=True)) for row in rows]
        return out
    finally:
        conn.close()


def test_the_pipeline_writes_exactly_what_the_sequential_import_writes(
        tmp_path: Path, odd_rows: None) -> None:
    first = write_lines(tmp_path / "a.jsonl", mixed_lines(1))
    second = write_lines(tmp_path / "b.jsonl", mixed_lines(2))  # changed posts and samples
    reports: dict[bool, list[dict[str, Any]]] = {}
    for read_ahead in (False, True):
        with Project.create(tmp_path / f"{read_ahead}.winnow") as project:
            reports[read_ahead] = [
                import_jsonl(project, src, fetch_images=False, batch_size=7,
                             read_ahead=read_ahead).to_json()
                for src in (first, second, second)]
    assert reports[True] == reports[False]
    first_report = reports[True][0]
    lines = {e["line"] for e in first_report["errors"]}
    assert len(lines) > 40 and {k["line"] for k in first_report.get("notes", [])} <= lines | {0}
    assert any("could not be stored" in e["error"] for e in first_report["errors"])
    assert any("'never' is not in the project" in e["error"] for e in first_report["errors"])
    assert reports[True][1]["updated"] > 0 and reports[True][2]["unchanged"] > 0
    new, old = dump(tmp_path / "True.winnow"), dump(tmp_path / "False.winnow")
    assert new.keys() == old.keys() and {"posts", "samples", "audit_log", "posts_fts_data",
                                         "sample_search_data"} <= new.keys()
    for table in new:
        assert new[table] == old[table], table
    # s5, s15, s25 refer to image 0 of a late post without images; late35 never comes
    actions = [row[4] for row in new["audit_log"]]
    assert len(new["samples"]) == 36 and actions.count("import") == 36
    assert actions.count("reimport") == 16  # the changed s1, s3, …; e0, e2, … are unchanged


def test_lines_are_parsed_in_the_parse_thread(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    seen: set[str] = set()
    real = importer.parse_post

    def spy(obj: Any, *args: Any, **kwargs: Any) -> Any:
        seen.add(threading.current_thread().name)
        return real(obj, *args, **kwargs)

    monkeypatch.setattr(importer, "parse_post", spy)
    src = write_lines(tmp_path / "x.jsonl", [{"id": f"p{k}", "text": "t"} for k in range(50)])
    with Project.create(tmp_path / "p.winnow") as project:
        assert import_jsonl(project, src, fetch_images=False, batch_size=10).imported == 50
        assert seen == {THREAD}
        seen.clear()
        import_jsonl(project, src, fetch_images=False, read_ahead=False)
        assert seen == {threading.current_thread().name}
    assert parse_threads() == []


def test_a_file_with_bad_lines_leaves_no_thread(tmp_path: Path) -> None:
    src = write_lines(tmp_path / "x.jsonl", [b"{bad", {"id": "p", "text": "t"}, b"[]"])
    with Project.create(tmp_path / "p.winnow") as project:
        report = import_jsonl(project, src, fetch_images=False)
    assert [e["line"] for e in report.errors] == [1, 3] and report.imported == 1
    assert parse_threads() == []


def test_an_error_in_the_parse_thread_reaches_the_caller(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    real = importer.parse_post

    def broken(obj: Any, *args: Any, **kwargs: Any) -> Any:
        if obj.get("id") == "p250":
            raise RuntimeError("the parser broke on p250")
        return real(obj, *args, **kwargs)

    monkeypatch.setattr(importer, "parse_post", broken)
    src = write_lines(tmp_path / "x.jsonl", [{"id": f"p{k}", "text": "t"} for k in range(400)])
    with Project.create(tmp_path / "p.winnow") as project:
        with pytest.raises(RuntimeError, match="the parser broke on p250"):
            import_jsonl(project, src, fetch_images=False, batch_size=100)
        assert parse_threads() == []
        assert project.counts()["posts"] == 200  # the batches before it are kept


def test_a_cancelled_import_leaves_no_thread(tmp_path: Path) -> None:
    src = write_lines(tmp_path / "x.jsonl", [{"id": f"p{k}", "text": "t"} for k in range(5000)])
    state = JobState()
    state.subscribe(lambda s: s.cancel() if s.done > 0 and not s.cancelled() else None)
    with Project.create(tmp_path / "p.winnow") as project:
        with pytest.raises(Cancelled):
            import_jsonl(project, src, state=state, batch_size=10, fetch_images=False)
        assert parse_threads() == []
        assert project.counts()["posts"] == 10  # cancelled between batches


def test_a_project_that_cannot_be_written_stops_the_parse_thread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.ingest.writer import Writer

    real = Writer.write
    calls = []

    def full(self: Writer, conn: Any, posts: Any, samples: Any, log: Any, final: bool) -> Any:
        calls.append(len(posts))
        if len(calls) == 2:
            raise sqlite3.OperationalError("database or disk is full")
        return real(self, conn, posts, samples, log, final)

    monkeypatch.setattr(Writer, "write", full)
    src = write_lines(tmp_path / "x.jsonl", [{"id": f"p{k}", "text": "t"} for k in range(3000)])
    with Project.create(tmp_path / "p.winnow") as project:
        with pytest.raises(ImportStoppedError, match="stopped at line 11"):
            import_jsonl(project, src, fetch_images=False, batch_size=10)
        assert parse_threads() == [] and len(calls) == 2
        assert project.counts()["posts"] == 10


def test_canonical_json_is_still_json_dumps_with_sorted_keys() -> None:
    """The reused C encoder gives the text earlier versions hashed (``raw_hash``)."""
    from core.ingest.records import canonical_json, loads

    values = [json.loads(line) for line in (
        '{"b": 1, "a": [1.5, -0.0, 1e300, 12345678901234567890123, null, true, false]}',
        '{"t": "caf\\u00e9 \\u2028 \\ud83d\\ude00 \\"q\\" \\\\ \\n", "é": {"z": {}, "y": []}}',
        '"just a string"', "3", "[]")]
    values += [v for v in mixed_lines(1) if isinstance(v, dict)]
    for value in values:
        expected = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        assert canonical_json(value) == expected
        assert canonical_json(loads(expected)) == expected


def test_batches_are_also_cut_by_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Big lines: a batch ends once its lines hold MAX_BATCH_BYTES, bad lines not counted."""
    monkeypatch.setattr(importer, "MAX_BATCH_BYTES", 10_000)
    big = [{"id": f"p{k}", "text": "x" * 3000} for k in range(10)]
    src = write_lines(tmp_path / "big.jsonl", [b"{bad" + b" " * 5000, *big])
    batches = list(importer._LineParser(src, 2000).batches(lambda: False))
    assert [len(b.posts) for b in batches] == [4, 4, 2]  # 4 × ~3 kB > 10 kB
    assert batches[0].errors[0][0] == 1 and not batches[1].errors
    with Project.create(tmp_path / "p.winnow") as project:
        report = import_jsonl(project, src, fetch_images=False)
        assert report.imported == 10 and [e["line"] for e in report.errors] == [1]
