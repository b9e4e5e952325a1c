"""Hostile JSONL files (issue 13 items 1, 3, 4, 5; issue 11 items 8 and 9): every bad value
is one line error and every good line is imported; local paths stay in their folder;
memory stays flat; nothing is created or left behind that should not be."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PIL import Image

from app.cli import run_cli
from core.files import temp_name
from core.ingest.importer import ImportFileError, import_jsonl
from core.ingest.lines import BoundedLines
from core.store import Project

REPO = Path(__file__).resolve().parents[2]


def png(color: str = "red") -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (20, 10), color).save(buf, "PNG")
    return buf.getvalue()


def write_lines(path: Path, lines: list[bytes | str | dict]) -> Path:
    with open(path, "wb") as fh:
        for line in lines:
            if isinstance(line, dict):
                line = json.dumps(line)
            fh.write((line if isinstance(line, bytes) else line.encode()) + b"\n")
    return path


# -- item 1: odd values cost their own line, never the batch --------------------------
ODD = [
    ('{"id": "s1", "prompt": "p", "input_images": ["a.png"], "input_bboxs": [[1e300, 0, 5, 5]]}',
     "not a pixel position"),
    ('{"id": "s2", "prompt": "p", "input_images": ["a.png"], "input_bboxs": [[Infinity, 0, 5, 5]]}',
     "Infinity is not a JSON value"),
    ('{"id": "s3", "prompt": "p", "input_images": ["a.png"], "input_bboxs": [[NaN, 0, 5, 5]]}',
     "NaN is not a JSON value"),
    ('{"id": "s4", "prompt": "p", "input_images": ["a.png"], '
     '"input_bboxs": [[12345678901234567890123, 0, 5, 5]]}', "not a pixel position"),
    ('{"id": "s5", "prompt": "p", "post_id": "ok1", "input_images": [12345678901234567890123]}',
     "is image index"),
    ('{"id": "s6", "prompt": "\\ud800"}', "half of a UTF-16 surrogate pair"),
    ('{"id": "\\ud800x", "text": "t"}', "half of a UTF-16 surrogate pair"),
    ('{"id": ' + "7" * 5000 + ', "text": "t"}', "a number with more than"),
    ('{"id": "p8", "text": "t", "timestamp": ' + "9" * 5000 + "}", "a number with more than"),
    ('{"id": "p9", "text": "t", "timestamp": 1e300}', "timestamp' is out of range"),
    ('{"id": "p10", "text": "t", "timestamp": 12345678901234567890123}', "out of range"),
    ('{"id": "p11", "text": "t", "engagement": {"likes": 1e999}}', "is too large"),
    ('{"id": "s12", "prompt": "p", "input_images": ["a.png"], '
     '"input_bboxs": [{"image": 12345678901234567890123, "box": [0, 0, 5, 5]}]}',
     "must be an image index"),
]


def test_every_odd_value_is_one_line_error_and_the_rest_is_imported(tmp_path: Path) -> None:
    lines: list[bytes | str | dict] = [{"id": "ok1", "text": "fine", "image_urls": ["a.png"]}]
    lines += [text for text, _ in ODD]
    lines += [{"id": "ok2", "text": "also fine"}, {"id": "s-ok", "prompt": "draw a fox",
                                                   "post_id": "ok1", "input_images": [0]}]
    src = write_lines(tmp_path / "odd.jsonl", lines)
    with Project.create(tmp_path / "p.winnow") as project:
        report = import_jsonl(project, src, fetch_images=False, batch_size=4)
        errors = {e["line"]: e["error"] for e in report.errors}
        assert sorted(errors) == list(range(2, 2 + len(ODD)))
        for k, (_, expected) in enumerate(ODD):
            assert expected in errors[k + 2], (k + 2, errors[k + 2])
        assert report.imported == 3
        assert project.counts()["posts"] == 2 and project.counts()["samples"] == 1
        assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_row_the_database_refuses_costs_only_its_line(tmp_path: Path, monkeypatch) -> None:
    """Defence in depth: if a value slips past the parser, the batch is retried line by line."""
    from core.ingest import records

    real = records.parse_post

    def sneaky(obj, *args, **kwargs):  # type: ignore[no-untyped-def]
        posts = real(obj, *args, **kwargs)
        if posts[0].id == "bad":
            posts[0].keyword = 10**30  # too large for an SQLite integer
        return posts

    monkeypatch.setattr("core.ingest.importer.parse_post", sneaky)
    src = write_lines(tmp_path / "x.jsonl", [{"id": f"p{k}", "text": "t"} for k in range(5)]
                      + [{"id": "bad", "text": "t"}] + [{"id": "q", "text": "t"}])
    with Project.create(tmp_path / "p.winnow") as project:
        report = import_jsonl(project, src, fetch_images=False)
        assert [e["line"] for e in report.errors] == [6]
        assert "could not be stored" in report.errors[0]["error"]
        assert report.imported == 6 and project.counts()["posts"] == 6


# -- item 5: BOM, wrong types, duplicates ---------------------------------------------
def test_bom_wrong_types_and_duplicate_ids(tmp_path: Path) -> None:
    src = tmp_path / "b.jsonl"
    src.write_bytes(b"\xef\xbb\xbf" + b"\n".join([
        b'{"id": 1, "text": "first"}',
        b'{"id": "1", "text": "the same id as a string"}',
        b'{"id": "s1", "prompt": 5}',
        b'{"id": "s2", "prompt": "ok"}',
        b'{"id": "s2", "prompt": "again"}',
        b'{"id": 2.5, "text": "a float id"}',
        b'{"id": "k", "text": "t", "keyword": ["a"]}',
    ]) + b"\n")
    with Project.create(tmp_path / "p.winnow") as project:
        report = import_jsonl(project, src, fetch_images=False)
        errors = {e["line"]: e["error"] for e in report.errors}
        assert report.imported == 2, report.errors  # line 1 (BOM stripped) and line 4
        assert "post id '1' is already on line 1" in errors[2]
        assert "field 'prompt' must be a string, got integer" in errors[3]
        assert "sample id 's2' is already on line 4" in errors[5]
        assert "must be a string or an integer, got number" in errors[6]
        assert "field 'keyword' must be a string, got list" in errors[7]
        assert project.conn.execute("SELECT text FROM posts WHERE id = '1'").fetchone()[0] == \
            "first"


# -- item 4: bounded memory ------------------------------------------------------------
def test_bounded_reader_keeps_only_the_limit() -> None:
    data = b"short\n" + b"x" * 5000 + b"\n\nlast-no-newline"
    lines = list(BoundedLines(io.BytesIO(data), limit=100, chunk=64))
    assert lines == [(1, b"short"), (2, 5000), (3, b""), (4, b"last-no-newline")]
    assert list(BoundedLines(io.BytesIO(b"a\r\nb\n"), limit=10)) == [(1, b"a\r"), (2, b"b")]
    assert list(BoundedLines(io.BytesIO(b"y" * 300), limit=100, chunk=7)) == [(1, 300)]


def _peak_rss_mb(code: str) -> float:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, cwd=REPO, timeout=240, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 0, out.stderr
    return float(out.stdout.strip().splitlines()[-1])


def test_newline_free_file_and_devices_stay_at_flat_memory(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as fh:  # 200 MB without a newline (a sparse file: no disk used)
        fh.truncate(200 * 2**20)
    code = f"""
        import resource
        from core.store import Project
        from core.ingest.importer import import_jsonl
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        with Project.create({str(tmp_path / 'm.winnow')!r}) as p:
            r = import_jsonl(p, {str(big)!r}, fetch_images=False)
            assert [e["line"] for e in r.errors] == [1], r.errors
            assert "line is too long (209,715,200 bytes" in r.errors[0]["error"]
        print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024)
    """
    assert _peak_rss_mb(code) < 64  # growth; the line alone would be 200 MB (2 GB → 4.4 GB)
    with Project.create(tmp_path / "d.winnow") as project, \
            pytest.raises(ImportFileError, match="not a regular file"):
        import_jsonl(project, "/dev/zero")


# -- item 3: local paths stay inside their folder ----------------------------------------
def test_local_paths_are_confined_without_oracle_or_leak(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "img").mkdir(parents=True)
    (data / "img" / "ok.png").write_bytes(png())
    (data / "notes.txt").write_bytes(b"\x7fELF secret bytes")
    private = tmp_path / "private"
    private.mkdir()
    (private / "x.jpg").write_bytes(png("blue"))
    (data / "img" / "link.png").symlink_to(private / "x.jpg")
    refs = ["img/ok.png", "../private/x.jpg", str(private / "x.jpg"), "img/link.png",
            "../private/missing.jpg", "/etc/shadow", "/bin/ls", "notes.txt",
            "img/../img/ok.png"]
    src = write_lines(data / "s.jsonl", [{"id": "p", "text": "t", "image_urls": refs}])
    with Project.create(tmp_path / "p.winnow") as project:
        report = import_jsonl(project, src)
        errors = {e["url"]: e["error"] for e in report.image_errors}
        assert report.images_fetched == 2  # img/ok.png, and the same file by a detour
        outside = [errors[r] for r in refs[1:7]]
        assert len(set(outside)) == 1, outside  # the same words whether it exists or not
        assert outside[0].startswith("refused: local images must be inside the JSONL")
        assert "not an image" in errors["notes.txt"]
        assert "7f" not in errors["notes.txt"] and "ELF" not in errors["notes.txt"]
        assert project.counts()["images"] == 1
    with Project.create(tmp_path / "q.winnow") as project:  # --image-root widens the root
        report = import_jsonl(project, src, image_root=tmp_path)
        assert "../private/x.jpg" not in {e["url"] for e in report.image_errors}
        assert "/etc/shadow" in {e["url"] for e in report.image_errors}


# -- issue 11 item 9, exit codes and the CLI options --------------------------------------
def test_missing_jsonl_creates_no_project_and_failures_exit_1(tmp_path: Path, capsys) -> None:
    target = tmp_path / "new.winnow"
    assert run_cli(["import", "posts", str(tmp_path / "nope.jsonl"), "-p", str(target)]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not target.exists() and not list(tmp_path.iterdir())
    assert run_cli(["import", "posts", "/dev/zero", "-p", str(target)]) == 2
    assert "not a regular file" in capsys.readouterr().err and not target.exists()
    good = write_lines(tmp_path / "g.jsonl", [{"id": "a", "text": "t"}])
    assert run_cli(["import", "posts", str(good), "-p", str(target), "--json"]) == 0
    capsys.readouterr()
    bad_image = write_lines(tmp_path / "i.jsonl", [{"id": "b", "text": "t",
                                                    "image_urls": ["../outside.png"]}])
    assert run_cli(["import", "posts", str(bad_image), "-p", str(target), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["images"]["failed"] == 1


# -- issue 11 item 8: temp files of a killed import are cleaned ----------------------------
def test_stale_temp_files_in_the_asset_store_are_cleaned(tmp_path: Path) -> None:
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "a.png").write_bytes(png())
    src = write_lines(tmp_path / "s.jsonl", [{"id": "p", "text": "t", "image_urls": ["img/a.png"]}])
    with Project.create(tmp_path / "p.winnow") as project:
        shard = project.assets.root / "ab"
        shard.mkdir(parents=True)
        legacy = shard / ".incoming-k2j4h5g6"  # what Winnow 0.1's mkstemp left
        legacy.write_bytes(b"half")
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True).stdout.strip()
        stale = shard / temp_name("ab12.png").replace(f"-{os.getpid()}-", f"-{dead}-")
        stale.write_bytes(b"half")
        mine = shard / "keep-me.txt"  # not Winnow's: never touched
        mine.write_bytes(b"x")
        cache_shard = project.assets.root / ".http-cache" / "cd"
        cache_shard.mkdir(parents=True)
        partial = cache_shard / temp_name("cd34").replace(f"-{os.getpid()}-", f"-{dead}-")
        partial.write_bytes(b"half a download")
        src.write_text(json.dumps({"id": "p", "text": "t", "image_urls": [
            "img/a.png", "http://127.0.0.1:9/never.jpg"]}) + "\n")
        import_jsonl(project, src)
        assert not legacy.exists() and not stale.exists() and mine.exists()
        assert not partial.exists()
        assert project.counts()["images"] == 1


@pytest.mark.slow
def test_sigkill_during_import_then_resume(tmp_path: Path) -> None:
    """Kill -9 an importing process at several points: the project stays intact, the next
    import completes, and no temporary file is left in the asset store."""
    (tmp_path / "img").mkdir()
    refs = []
    for k in range(40):
        (tmp_path / "img" / f"{k}.png").write_bytes(png(("red", "blue", "green", "white")[k % 4])
                                                    + bytes([k]))
        refs.append(f"img/{k}.png")
    lines = [{"id": f"p{k}", "text": "t " * 50, "image_urls": [refs[k % 40]]} for k in range(6000)]
    src = write_lines(tmp_path / "s.jsonl", lines)
    target = tmp_path / "p.winnow"
    for delay in (0.3, 0.8, 1.5, 2.5):
        proc = subprocess.Popen([sys.executable, "-m", "app", "import", "posts", str(src), "-p",
                                 str(target), "--json"], cwd=REPO, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
    assert run_cli(["import", "posts", str(src), "-p", str(target), "--json"]) in (0, 1)
    with Project.open(target) as project:
        assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert project.counts()["posts"] == 6000
        assert project.conn.execute(
            "SELECT count(*) FROM post_images WHERE sha256 IS NULL").fetchone()[0] == 0
        leftovers = [p for p in project.assets.root.rglob("*")
                     if ".winnow-tmp-" in p.name or p.name.startswith(".incoming-")]
        assert leftovers == []


# -- a full disk ------------------------------------------------------------------------
def test_full_disk_while_storing_images_is_per_image_and_exits_1(tmp_path: Path, monkeypatch,
                                                                 capsys) -> None:
    import errno

    from core.store.assets import AssetStore

    (tmp_path / "img").mkdir()
    for k in range(3):
        (tmp_path / "img" / f"{k}.png").write_bytes(png(("red", "blue", "green")[k]))
    src = write_lines(tmp_path / "s.jsonl", [{"id": f"p{k}", "text": "t",
                                              "image_urls": [f"img/{k}.png"]} for k in range(3)])
    real = AssetStore.put_file
    calls = []

    def full(self, source, ext):  # type: ignore[no-untyped-def]
        calls.append(source)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, source, ext)

    monkeypatch.setattr(AssetStore, "put_file", full)
    target = tmp_path / "p.winnow"
    assert run_cli(["import", "posts", str(src), "-p", str(target), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["imported"] == 3 and report["images"]["fetched"] == 2
    assert report["images"]["errors"][0]["error"] == "cannot be stored: No space left on device"
    with Project.open(target) as project:
        assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert [p for p in project.assets.root.rglob("*") if ".winnow-tmp-" in p.name] == []
    monkeypatch.undo()
    assert run_cli(["import", "posts", str(src), "-p", str(target), "--json"]) == 0  # resumed
    assert json.loads(capsys.readouterr().out)["images"]["fetched"] == 1


def test_full_disk_while_downloading(tmp_path: Path, monkeypatch, image_server) -> None:
    from core.ingest import fetch

    def no_space(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fetch, "atomic_writer", no_space)
    url = image_server.url("/good.jpg")
    result = fetch.fetch_images_sync([url], fetch.FetchSettings(
        allow_private_network=True, download_dir=tmp_path / "dl", retries=0))[url]
    assert result.error == "cannot be saved: No space left on device"


def test_a_database_that_cannot_be_written_stops_the_import_clearly(tmp_path: Path,
                                                                     monkeypatch,
                                                                     capsys) -> None:
    import sqlite3

    from core.ingest.writer import Writer

    real = Writer.write
    batches = []

    def full(self, conn, posts, samples, log, final):  # type: ignore[no-untyped-def]
        batches.append(posts)
        if len(batches) == 2:
            raise sqlite3.OperationalError("database or disk is full")
        return real(self, conn, posts, samples, log, final)

    monkeypatch.setattr(Writer, "write", full)
    src = write_lines(tmp_path / "s.jsonl", [{"id": f"p{k}", "text": "t"} for k in range(5000)])
    target = tmp_path / "p.winnow"
    assert run_cli(["import", "posts", str(src), "-p", str(target), "--json"]) == 2
    err = capsys.readouterr().err
    assert "cannot be written (database or disk is full); the import stopped at line 2001" in err
    assert "Traceback" not in err and len(batches) == 2  # no line-by-line flood
    with Project.open(target) as project:
        assert project.counts()["posts"] == 2000  # the first batch is kept
        assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.parametrize("value", ["0", "100000", "1000000000"])
def test_concurrency_out_of_range_is_refused(tmp_path: Path, capsys, value: str) -> None:
    """`--concurrency 100000` took 1.8 GB and ran for minutes on 25 URLs; 1000000000 never
    ended."""
    src = write_lines(tmp_path / "s.jsonl", [{"id": "p1", "text": "t"}])
    target = tmp_path / "p.winnow"
    assert run_cli(["import", "posts", str(src), "-p", str(target), "--concurrency",
                    value]) == 2
    assert "--concurrency must be 1–256" in capsys.readouterr().err
    assert not target.exists()
