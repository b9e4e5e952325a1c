"""The wrong file handed to an import or to `winnow stats` is named once, with what it is
(ADR 195).  Before, `winnow import posts` of a project file (or a picture, an archive)
printed thousands of "line N: not valid UTF-8" errors and exited 1, as if some lines had
been fine."""

from __future__ import annotations

import gzip
import io
import zipfile
from pathlib import Path

import pytest
from PIL import Image

from app.cli import run_cli
from core.store import Project


def _png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buf, "PNG")
    return buf.getvalue()


def _jpeg() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buf, "JPEG")
    return buf.getvalue()


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("posts.jsonl", '{"id": "p1", "text": "t"}\n')
    return buf.getvalue()


CASES = [
    ("posts.jsonl.gz", lambda: gzip.compress(b'{"id": "p1", "text": "t"}\n'),
     "gzip-compressed; decompress it first"),
    ("posts.zip", _zip, "a zip archive; extract the file first"),
    ("photo.png", _png, "a PNG image, not JSON Lines"),
    ("photo.jpg", _jpeg, "a JPEG image, not JSON Lines"),
    ("data.parquet", lambda: b"PAR1" + b"\x00" * 64, "a Parquet file, not JSON Lines (import "
                                                     "it with `winnow import hf`)"),
    ("doc.pdf", lambda: b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "a PDF document, not JSON Lines"),
]


@pytest.mark.parametrize(("name", "make", "said"), CASES, ids=[c[0] for c in CASES])
def test_import_refuses_a_file_that_is_not_text_once(tmp_path: Path, capsys, name, make,
                                                     said) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / name
    path.write_bytes(make())
    project = tmp_path / "p.winnow"
    Project.create(project).close()
    assert run_cli(["import", "posts", "--project", str(project), str(path)]) == 2
    err = capsys.readouterr().err
    assert said in err and "nothing was imported" in err and err.count("\n") == 1
    with Project.open(project) as p:
        assert p.conn.execute("SELECT count(*) FROM posts").fetchone()[0] == 0


def test_a_project_file_given_as_posts_or_votes_is_named(tmp_path: Path, capsys) -> None:
    project = tmp_path / "p.winnow"
    Project.create(project).close()
    other = tmp_path / "other.winnow"
    Project.create(other).close()
    assert run_cli(["import", "posts", "--project", str(project), str(other)]) == 2
    assert "is an SQLite database (a Winnow project or rater file?)" in capsys.readouterr().err
    assert run_cli(["stats", "bt", str(other)]) == 2
    assert ("other.winnow: an SQLite database (a Winnow project or rater file?), not a text "
            "or parquet file") in capsys.readouterr().err


def test_text_that_merely_has_bad_lines_is_still_imported_line_by_line(
        tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "posts.jsonl"
    path.write_bytes(b'{"id": "p1", "text": "t"}\n\xc1\xc1 not utf-8\n{"id": "p2", "text": "u"}\n'
                     b'{"id": "p3", "text": "a\x00b"}\n{"id": "p4", "text": "v"}\n')
    project = tmp_path / "p.winnow"
    Project.create(project).close()
    assert run_cli(["import", "posts", "--project", str(project), str(path)]) == 1
    out = capsys.readouterr().out
    assert "line 2: not valid UTF-8" in out and "line 4:" in out
    with Project.open(project) as p:
        assert p.conn.execute("SELECT count(*) FROM posts").fetchone()[0] == 3
