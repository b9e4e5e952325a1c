"""Identities an attacker would try in a JSONL import (import-clash item 2, ADR 166).

Every case is imported through both paths — the read-ahead parse thread (ADR 029) and
the sequential ``read_ahead=False`` — at two batch sizes: each bad line is one error
naming its line, the rest of the file is in, and both paths leave the same rows and the
same report.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from core.ingest.importer import ImportFileError, import_jsonl
from core.store import Project

REPO = Path(__file__).resolve().parents[2]
NFC = unicodedata.normalize("NFC", "caf\u00e9")
NFD = unicodedata.normalize("NFD", "caf\u00e9")
OK_POST = b'{"id": "ok", "text": "a good post"}'
OK_SAMPLE = b'{"id": "ok-s", "prompt": "a good sample", "post_id": "ok"}'


def _j(obj: Any) -> bytes:
    return json.dumps(obj).encode()


#: name -> (lines, {line: expected error text}, sample ids, post ids); the good lines
#: OK_POST and OK_SAMPLE are appended to every case (their line numbers follow).
CASES: dict[str, tuple[list[bytes], dict[int, str], set[str], set[str]]] = {
    "same sample id twice, same content": (
        [b'{"id": "s", "prompt": "p"}', b'{"id": "s", "prompt": "p"}'],
        {2: "sample id 's' is already on line 1"}, {"s"}, set()),
    "same sample id twice, other content": (
        [b'{"id": "s", "prompt": "p"}', b'{"id": "s", "prompt": "q"}'],
        {2: "sample id 's' is already on line 1"}, {"s"}, set()),
    "sample id equal to a post id": (  # two tables, two things: both are in
        [b'{"id": "x", "text": "a post"}', b'{"id": "x", "prompt": "p", "post_id": "x"}'],
        {}, {"x"}, {"x"}),
    "NUL in an id": (
        [_j({"id": "a\x00b", "text": "t"}), _j({"id": "s\x00", "prompt": "p"})],
        {1: "field 'id' contains the control character U+0000 at position 1",
         2: "field 'id' contains the control character U+0000 at position 1"}, set(), set()),
    "newline in an id": (
        [_j({"id": "a\nb", "prompt": "p"}), _j({"id": "q", "text": "t", "parent_id": "\r"}),
         _j({"id": "ls\u2028", "prompt": "p"})],
        {1: "control character U+000A at position 1",
         2: "field 'parent_id' contains the control character U+000D",
         3: "control character U+2028 at position 2"}, set(), set()),
    "right-to-left override in an id": (  # kept as it is (ADR 160), shown spelt out
        [_j({"id": "ab\u202ecd", "prompt": "p"}), _j({"id": "ab\u202ecd", "prompt": "q"})],
        {2: "sample id 'ab⟨U+202E⟩cd' is already on line 1"}, {"ab\u202ecd"}, set()),
    "an id of 10,000 characters": (
        [_j({"id": "x" * 10_000, "prompt": "p"}), _j({"id": "y" * 1_000, "text": "t"}),
         _j({"id": "s2", "prompt": "p", "post_id": "z" * 1_001})],
        {1: "field 'id' is too long (10,000 characters; an id may have at most 1,000)",
         3: "field 'post_id' is too long (1,001 characters"}, set(), {"y" * 1_000}),
    "NFC and NFD forms of one id": (
        [_j({"id": NFC, "prompt": "p"}), _j({"id": NFD, "prompt": "q"}),
         _j({"id": NFD, "text": "t"}), _j({"id": NFC, "text": "u"})],
        {2: f"sample id '{NFD}' (NFD) is the id on line 1 written in another Unicode form "
            "(NFC): composed and decomposed accents look the same",
         4: f"post id '{NFC}' (NFC) is the id on line 3 written in another Unicode form (NFD)"},
        {NFC}, {NFD}),
    "1 and \"1\"": (
        [b'{"id": 1, "prompt": "p"}', b'{"id": "1", "prompt": "q"}',
         b'{"id": "2", "text": "t"}', b'{"id": 2, "text": "u"}'],
        {2: "sample id '1' is already on line 1", 4: "post id '2' is already on line 3"},
        {"1"}, {"2"}),
    "duplicate keys": (
        [b'{"id": "a", "id": "b", "prompt": "p"}', b'{"id": "c", "text": "t", "text": "u"}',
         b'{"id": "d", "prompt": "p", "post": {"id": "e", "text": "t", "id": "f"}}'],
        {1: "key 'id' appears twice in one object", 2: "key 'text' appears twice",
         3: "key 'id' appears twice"}, set(), set()),
    "valid JSON that is not an object": (
        [b"[]", b'"x"', b"null", b"1", b"true", b'[{"id": "s", "prompt": "p"}]'],
        {1: "expected a JSON object, got list", 2: "expected a JSON object, got string",
         3: "expected a JSON object, got null", 4: "expected a JSON object, got integer",
         5: "expected a JSON object, got boolean", 6: "expected a JSON object, got list"},
        set(), set()),
    "CRLF line ends": (
        [b'{"id": "a", "text": "t"}\r', b'{"id": "s", "prompt": "p"}\r', b"\r"],
        {}, {"s"}, {"a"}),
    "a line cut short": (
        [b'{"id": "a", "text": "t"}', b'{"id": "b", "te'],
        {2: "invalid JSON: Unterminated string"}, set(), {"a"}),
    "a byte-order mark": (
        [b'\xef\xbb\xbf{"id": "a", "text": "t"}', b'\xef\xbb\xbf{"id": "b", "text": "t"}'],
        {2: "invalid JSON"}, set(), {"a"}),  # a BOM belongs at the start of the file only
}


def _content(lines: list[bytes], last_newline: bool = True) -> bytes:
    return b"\n".join([*lines, OK_POST, OK_SAMPLE]) + (b"\n" if last_newline else b"")


def _dump(project: Project) -> dict[str, Any]:
    conn = project.conn
    return {table: conn.execute(f"SELECT {cols} FROM {table} ORDER BY 1, 2").fetchall()
            for table, cols in (
                ("posts", "id, parent_id, text, raw_hash"),
                ("samples", "id, post_id, prompt, original_prompt"),
                ("sample_raw", "sample_id, raw_hash"),
                ("post_images", "post_id, position, url"),
                ("sample_images", "sample_id, role, position, ref"))}


def _import(tmp_path: Path, name: str, data: bytes, read_ahead: bool, batch_size: int,
            **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    src = tmp_path / f"{name}.jsonl"
    if not src.exists():
        src.write_bytes(data)
    target = tmp_path / f"{name}-{read_ahead}-{batch_size}.winnow"
    with Project.create(target) as project:
        report = import_jsonl(project, src, read_ahead=read_ahead, batch_size=batch_size,
                              **{"fetch_images": False, **kwargs})
        assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return report.to_json(), _dump(project)


@pytest.mark.parametrize("batch_size", [2, 2000])
@pytest.mark.parametrize("read_ahead", [True, False], ids=["read-ahead", "sequential"])
@pytest.mark.parametrize("case", list(CASES))
def test_each_hostile_identity_is_its_own_line_error(tmp_path: Path, case: str,
                                                      read_ahead: bool, batch_size: int) -> None:
    lines, expected, sample_ids, post_ids = CASES[case]
    report, rows = _import(tmp_path, "case", _content(lines), read_ahead, batch_size)
    errors = {e["line"]: e["error"] for e in report["errors"]}
    assert sorted(errors) == sorted(expected), report["errors"]
    for line, text in expected.items():
        assert text in errors[line], (line, errors[line])
    assert {r[0] for r in rows["samples"]} == sample_ids | {"ok-s"}
    assert {r[0] for r in rows["posts"]} >= post_ids | {"ok"}
    assert report["imported"] == sum(1 for x in lines if x.strip()) + 2 - len(expected)


@pytest.mark.parametrize("case", list(CASES))
def test_read_ahead_and_sequential_give_the_same_rows_and_report(tmp_path: Path,
                                                                  case: str) -> None:
    data = _content(CASES[case][0])
    for batch_size in (2, 2000):
        results = [_import(tmp_path, "same", data, read_ahead, batch_size)
                   for read_ahead in (True, False)]
        assert results[0] == results[1]


@pytest.mark.parametrize("read_ahead", [True, False], ids=["read-ahead", "sequential"])
def test_a_post_id_reused_across_imports_updates_and_identical_is_unchanged(
        tmp_path: Path, read_ahead: bool) -> None:
    first = tmp_path / "first.jsonl"
    first.write_bytes(b'{"id": "p", "text": "one"}\n{"id": "s", "prompt": "p", "post_id": "p"}\n')
    second = tmp_path / "second.jsonl"
    second.write_bytes(b'{"id": "p", "text": "two"}\n{"id": "s", "prompt": "q", "post_id": "p"}\n')
    with Project.create(tmp_path / "p.winnow") as project:
        runs = [import_jsonl(project, src, fetch_images=False, read_ahead=read_ahead)
                for src in (first, second, second, first)]
        counts = [(r.imported, r.updated, r.unchanged, r.errors) for r in runs]
        assert counts == [(2, 0, 0, []), (0, 2, 0, []), (0, 0, 2, []), (0, 2, 0, [])]
        assert project.counts()["posts"] == 1 and project.counts()["samples"] == 1
        assert project.conn.execute("SELECT text FROM posts").fetchone()[0] == "one"
        assert project.conn.execute("SELECT count(*) FROM sample_raw").fetchone()[0] == 1


@pytest.mark.parametrize("read_ahead", [True, False], ids=["read-ahead", "sequential"])
def test_a_200_mb_line_costs_only_itself(tmp_path: Path, read_ahead: bool) -> None:
    src = tmp_path / "big.jsonl"
    with open(src, "wb") as fh:  # the 200 MB line is a hole in a sparse file: no disk used
        fh.write(OK_POST + b"\n")
        fh.seek(200 * 2**20, os.SEEK_CUR)
        fh.write(b"\n" + OK_SAMPLE + b"\n")
    with Project.create(tmp_path / "p.winnow") as project:
        report = import_jsonl(project, src, fetch_images=False, read_ahead=read_ahead)
        assert [e["line"] for e in report.errors] == [2]
        assert "line is too long (209,715,200 bytes" in report.errors[0]["error"]
        assert report.imported == 2 and project.counts()["samples"] == 1


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32",
                                      "utf-32-le", "utf-32-be"])
@pytest.mark.parametrize("read_ahead", [True, False], ids=["read-ahead", "sequential"])
def test_a_utf16_or_utf32_file_is_named_as_such_and_changes_nothing(
        tmp_path: Path, encoding: str, read_ahead: bool) -> None:
    src = tmp_path / "wide.jsonl"
    src.write_bytes((OK_POST + b"\n" + OK_SAMPLE + b"\n").decode().encode(encoding))
    width = encoding[:6].upper()
    with Project.create(tmp_path / "p.winnow") as project:
        with pytest.raises(ImportFileError, match=f"is {width} text; JSON Lines files are "
                                                  "UTF-8: save it again as UTF-8"):
            import_jsonl(project, src, fetch_images=False, read_ahead=read_ahead)
        assert project.counts()["posts"] == 0


def test_cli_refuses_a_utf16_file_without_a_traceback(tmp_path: Path) -> None:
    src = tmp_path / "wide.jsonl"
    src.write_bytes((OK_POST + b"\n").decode().encode("utf-16"))
    proc = subprocess.run([sys.executable, "-m", "app", "import", "posts", str(src), "-p",
                           str(tmp_path / "p.winnow"), "--no-images"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "is UTF-16 text" in proc.stderr
    assert not (tmp_path / "p.winnow").exists()  # a file that cannot be read creates nothing


@pytest.mark.parametrize("read_ahead", [True, False], ids=["read-ahead", "sequential"])
def test_image_paths_out_of_the_folder_are_refused_per_line(tmp_path: Path,
                                                             read_ahead: bool) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"not for import")
    (folder / "link.png").symlink_to(secret)
    src = folder / "paths.jsonl"
    src.write_bytes(b"\n".join([
        _j({"id": "a", "text": "t", "image_urls": ["../../etc/passwd"]}),
        _j({"id": "b", "text": "t", "image_urls": ["/etc/passwd"]}),
        _j({"id": "c", "text": "t", "image_urls": ["link.png"]}),
        _j({"id": "s", "prompt": "p", "input_images": [str(secret)]}),
        OK_POST]) + b"\n")
    with Project.create(tmp_path / "p.winnow") as project:
        report = import_jsonl(project, src, read_ahead=read_ahead)
        refused = {e["url"]: e["lines"] for e in report.image_errors}
        assert refused == {"../../etc/passwd": [1], "/etc/passwd": [2], "link.png": [3],
                           str(secret): [4]}
        assert all("inside the JSONL file's folder" in e["error"] for e in report.image_errors)
        assert report.errors == [] and report.imported == 5
        assert project.counts()["images"] == 0


@pytest.mark.parametrize("read_ahead", [True, False], ids=["read-ahead", "sequential"])
def test_an_id_already_in_the_project_in_another_unicode_form_is_refused(
        tmp_path: Path, read_ahead: bool) -> None:
    first = tmp_path / "first.jsonl"
    first.write_bytes(b"\n".join([_j({"id": NFC, "text": "t"}),
                                  _j({"id": NFC, "prompt": "p", "post_id": NFC})]) + b"\n")
    second = tmp_path / "second.jsonl"
    second.write_bytes(b"\n".join([
        _j({"id": NFD, "text": "other"}),                    # 1: the post in NFD
        _j({"id": NFD, "prompt": "q", "post_id": NFC}),      # 2: the sample in NFD
        OK_POST, OK_SAMPLE]) + b"\n")
    with Project.create(tmp_path / "p.winnow") as project:
        import_jsonl(project, first, fetch_images=False)
        before = _dump(project)
        report = import_jsonl(project, second, fetch_images=False, read_ahead=read_ahead)
        assert report.errors == [
            {"line": 1, "error": f"post id '{NFD}' (NFD) is post '{NFC}' already in the "
                                 "project written in another Unicode form (NFC): composed "
                                 "and decomposed accents look the same; line skipped"},
            {"line": 2, "error": f"sample id '{NFD}' (NFD) is sample '{NFC}' already in the "
                                 "project written in another Unicode form (NFC): composed "
                                 "and decomposed accents look the same; line skipped"}]
        assert (report.imported, report.updated, report.unchanged) == (2, 0, 0)
        after = _dump(project)
        for table in ("posts", "samples", "sample_raw"):
            assert set(before[table]) <= set(after[table])
        assert {r[0] for r in after["samples"]} == {NFC, "ok-s"}


def test_a_project_holding_both_forms_already_reimports_unchanged(tmp_path: Path) -> None:
    """A project from before this rule may hold both forms: each still matches itself."""
    src = tmp_path / "both.jsonl"
    src.write_bytes(_j({"id": NFD, "prompt": "q"}) + b"\n")
    with Project.create(tmp_path / "p.winnow") as project:
        with project.transaction() as conn:
            conn.execute("INSERT INTO samples(id, prompt, original_prompt, created_at, "
                         "modified_at) VALUES (?, 'p', 'p', '', '')", (NFC,))
            conn.execute("INSERT INTO sample_raw(sample_id, raw, raw_hash) VALUES (?, '{}', "
                         "'x')", (NFC,))
        import_jsonl(project, src, fetch_images=False)  # refused: the NFC twin is there
        with project.transaction() as conn:  # as an earlier version would have stored it
            conn.execute("INSERT INTO samples(id, prompt, original_prompt, created_at, "
                         "modified_at) VALUES (?, 'q', 'q', '', '')", (NFD,))
            conn.execute("INSERT INTO sample_raw(sample_id, raw, raw_hash) VALUES (?, '{}', "
                         "'y')", (NFD,))
        report = import_jsonl(project, src, fetch_images=False)
        assert report.errors == [] and report.updated == 1


@pytest.mark.gui
def test_gui_import_of_a_utf16_file_says_so_and_changes_nothing(main_window, qtbot,
                                                                 tmp_path: Path) -> None:
    pytest.importorskip("PySide6")
    Project.create(tmp_path / "p.winnow").close()
    window = main_window
    assert window.open_project(tmp_path / "p.winnow")
    src = tmp_path / "wide.jsonl"
    src.write_bytes((OK_POST + b"\n").decode().encode("utf-16"))
    with qtbot.waitSignal(window.error_shown, timeout=30_000) as shown:
        job = window.import_file(src)
    assert job.outcome == "failed"
    assert shown.args[0].count("wide.jsonl") == 1  # named once, by its path
    assert "is UTF-16 text; JSON Lines files are UTF-8: save it again as UTF-8" in shown.args[0]
    assert "Traceback" not in shown.args[0]
    assert window.project.counts()["posts"] == 0
