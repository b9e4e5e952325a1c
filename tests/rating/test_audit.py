"""``winnow session audit FILE``: a rater file checked the way a curious rater attacks it."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
import tamper_helpers as th
from PIL import Image
from rating_helpers import make_session

from app.cli import run_cli
from core.rating import images as session_images
from core.rating.audit import audit_file
from core.rating.merge import MergeError, merge_file

PROTOCOLS = ["ranking", "likert", "side_by_side", "checklist"]


def _checks(result) -> set[str]:  # type: ignore[no-untyped-def]
    return {f["check"] for f in result.findings}


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_fresh_session_of_every_protocol_has_no_findings(rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                           protocol, capsys) -> None:
    files = make_session(rproject, tmp_path / "out", protocol, gold_rate=0.25)
    th.rate_all(files[0])
    path = rproject.path
    rproject.close()
    for f in files:
        assert run_cli(["session", "audit", str(f)]) == 0
        assert "no findings" in capsys.readouterr().out
        assert run_cli(["session", "audit", str(f), "--project", str(path), "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["findings"] == [] and data["format_version"] == 2
        assert data["images"] > 0 and data["tasks"] > 0


def test_an_earlier_versions_file_is_reported(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    project, r1, _ = th.legacy_copy(tmp_path / "legacy")
    path = project.path
    project.close()
    assert run_cli(["session", "audit", str(r1), "--project", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FINDING [integrity] no MACs" in out
    assert "image formats: png (10), jpeg (1)" in out  # the gold copy was the only JPEG


def _replace_image(path: Path, mutate) -> None:  # type: ignore[no-untyped-def]
    sha, data = th.rows(path, "SELECT sha256, data FROM images LIMIT 1")[0]
    th.edit(path, "UPDATE images SET data = ? WHERE sha256 = ?", params=(mutate(data), sha))


def _progressive(data: bytes) -> bytes:
    out = io.BytesIO()
    Image.open(io.BytesIO(data)).save(out, "JPEG", quality=92, progressive=True)
    return out.getvalue()


def _png(data: bytes) -> bytes:
    out = io.BytesIO()
    Image.open(io.BytesIO(data)).save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize(("mutate", "check", "text"), [
    (lambda d: d[:2] + b"\xff\xfe\x00\x0cpixelforge" + d[2:], "metadata", "JPEG comment"),
    (lambda d: d + b"aurora-xl", "metadata", "bytes after the end of the image"),
    (_progressive, "encoder", "different encoder settings"),
    (_png, "format", "png (1)"),
    (lambda d: d[:100], "metadata", "damaged JPEG structure"),
])
def test_a_doctored_image_is_a_finding(rproject, tmp_path: Path, mutate, check, text) -> None:  # type: ignore[no-untyped-def]
    path = make_session(rproject, tmp_path / "out", "side_by_side")[0]
    _replace_image(path, mutate)
    result = audit_file(path)
    assert check in _checks(result) and "images" in _checks(result)  # digest mismatch too
    assert any(text in f["message"] for f in result.findings), result.findings
    with pytest.raises(MergeError, match=r"1 image\(s\) were changed"):
        merge_file(rproject, path)  # and a merge refuses the file


def test_options_of_different_sizes_and_free_pages_are_findings(rproject,  # type: ignore[no-untyped-def]
                                                                 tmp_path: Path) -> None:
    path = make_session(rproject, tmp_path / "out", "ranking")[0]
    options = json.loads(th.rows(path, "SELECT options FROM tasks LIMIT 1")[0][0])
    sha = options[0][1]
    data = th.rows(path, f"SELECT data FROM images WHERE sha256 = '{sha}'")[0][0]
    small = io.BytesIO()
    Image.open(io.BytesIO(data)).resize((20, 20)).save(small, "JPEG", quality=92,
                                                        subsampling=0)
    th.edit(path, "UPDATE images SET data = ? WHERE sha256 = ?", params=(small.getvalue(), sha))
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE scratch(x)")
    conn.execute("INSERT INTO scratch VALUES (zeroblob(200000))")
    conn.commit()
    conn.execute("DROP TABLE scratch")
    conn.commit()
    conn.close()
    result = audit_file(path)
    assert {"size", "sqlite"} <= _checks(result)


def test_with_the_project_names_and_byte_lengths_are_checked(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    files = make_session(rproject, tmp_path / "out", "side_by_side", gold_rate=0.4,
                         tasks_per_rater=20, raters=1)
    path = files[0]
    assert audit_file(path, rproject).findings == []
    # gold copies encoded plainly, as a blur compresses: their length gives them away
    gold = [r[0] for r in rproject.conn.execute(
        "SELECT DISTINCT token FROM rating_blinding WHERE degraded = 1")]
    assert len(gold) >= 4
    for _tid, options in th.rows(path, "SELECT task_id, options FROM tasks"):
        for tok, sha in json.loads(options):
            if tok in gold:
                data = th.rows(path, f"SELECT data FROM images WHERE sha256 = '{sha}'")[0][0]
                rgb = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
                th.edit(path, "UPDATE images SET data = ? WHERE sha256 = ?",
                        params=(session_images.encode(session_images.degrade(rgb)), sha))
    th.edit(path, "INSERT INTO meta(key, value) VALUES ('note', 'aurora-xl was here')")
    result = audit_file(path, rproject)
    messages = " | ".join(f["message"] for f in result.findings)
    assert "byte lengths mark gold copies" in messages
    assert "the model name 'aurora-xl' appears in the file" in messages
    assert "unexpected meta keys: note" in messages


def test_audit_errors_are_one_line(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "dir.winnow-session"
    folder.mkdir()
    assert run_cli(["session", "audit", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "is a folder" in err and "Traceback" not in err
    junk = tmp_path / "junk.winnow-session"
    junk.write_bytes(b"not sqlite at all" * 10)
    assert run_cli(["session", "audit", str(junk)]) == 2
    assert "not a Winnow session file" in capsys.readouterr().err


def test_text_that_is_not_utf8_is_one_line_not_a_traceback(rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                          capsys) -> None:
    """A column the merge never reads (``images.ext``) set to bytes that are not UTF-8:
    the audit, the tool for hostile files, stopped with a traceback."""
    bad = make_session(rproject, tmp_path / "out", "likert", raters=1)[0]
    th.edit(bad, "UPDATE images SET ext = CAST(X'ff' AS TEXT)")
    path = rproject.path
    rproject.close()
    for extra in ([], ["--project", str(path)]):
        assert run_cli(["session", "audit", str(bad), *extra]) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and bad.name in err and "damaged" in err


def test_tasks_that_show_the_same_images_are_a_gold_finding(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Files written before marked gold was kept from repeating (ADR 052) show a known
    answer's images in several tasks: a rater finds every gold task by comparing image
    digests.  The audit says so, for files already handed out."""
    path = make_session(rproject, tmp_path / "out", "likert", raters=1)[0]
    (first,) = json.loads(th.rows(path, "SELECT options FROM tasks WHERE position = 0")[0][0])
    th.edit(path, "UPDATE tasks SET options = ? WHERE position = 1",
            params=(json.dumps([["o0123456789ab", first[1]]]),))
    messages = [f["message"] for f in audit_file(path).findings if f["check"] == "gold"]
    assert messages and messages[0].startswith("2 task(s) show the same images")


def test_auto_gold_found_by_counting_image_digests_is_a_note(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Side-by-side auto gold shows an output beside its degraded copy: the copy is in no
    other task, the output in others.  Counting digests (sqlite3 and a few lines) finds
    the gold tasks and their answer as a blur measure does; the audit said "nothing tells
    gold apart".  A note (ADR 057: auto gold is meant to be seen); marked gold has none."""
    # one rater sees every pair, so each output recurs (with two raters, a file whose
    # gold outputs happen to be in no other task of it has nothing to count)
    files = make_session(rproject, tmp_path / "out", "side_by_side", gold_rate=0.3,
                         criteria=("preference", "coherence"), raters=1)
    notes = [n["message"] for n in audit_file(files[0], rproject).notes if n["check"] == "gold"]
    assert notes and "counting image digests finds gold tasks" in notes[0]
    items = ({"sample": "s001", "better": "lumen-edit", "worse": "pixelforge"},
             {"sample": "s002", "better": "aurora-xl", "worse": "brushwork-2"})
    marked = make_session(rproject, tmp_path / "marked", "side_by_side", name="m",
                          gold_rate=0.3, gold_mode="marked", gold_items=items,
                          criteria=("preference", "coherence"))
    for path in marked:
        assert not [n for n in audit_file(path, rproject).notes if n["check"] == "gold"]
