"""The output folder of ``winnow anonymize`` holds no hash of the original photos
(ADR 199).

Its ownership marker recorded each input's plain SHA-256, so a released folder carried an
identifier of every un-anonymized original: one that can be looked up wherever the
original's hash is known (a backup, a cloud service, another dataset) and that links the
release to the photographer's files.  The marker now records a salted hash: the same
input is still recognised on the next run (its verified output kept, a changed photo made
again), and markers written before keep working.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
from PIL import Image
from test_batch_collisions import fake_verifier  # noqa: F401 - the fixture

from core.export_files import MARKER_NAME
from core.imaging import batch

LIGHT = 200


def _photo(path: Path, shade: int) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    # not the stand-in render's encoding: an output never equals its input here
    Image.fromarray(np.full((40, 60, 3), shade, np.uint8)).save(path, "JPEG", quality=95)
    return path.read_bytes()


def _records(out: Path) -> list[dict]:  # type: ignore[type-arg]
    lines = (out / MARKER_NAME).read_text(encoding="utf-8").splitlines()[1:]
    return [json.loads(line) for line in lines if line.strip()]


def test_the_marker_holds_no_hash_of_an_original(tmp_path: Path,
                                                  fake_verifier: None) -> None:  # noqa: F811
    src, out = tmp_path / "in", tmp_path / "out"
    originals = [_photo(src / f"p{k}.jpg", LIGHT + k) for k in range(3)]
    report = batch.anonymize_folder(src, out)
    assert len(report["photos"]) == 3 and not report["errors"]
    folder = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    for data in originals:
        digest = hashlib.sha256(data).hexdigest()
        assert digest.encode() not in folder and digest.upper().encode() not in folder
    salts = {r["source_salt"] for r in _records(out)}
    assert len(salts) == 3  # one salt per record: equal photos do not show as equal


def test_the_same_photo_is_recognised_and_a_changed_one_is_made_again(
        tmp_path: Path, fake_verifier: None) -> None:  # noqa: F811
    src, out = tmp_path / "in", tmp_path / "out"
    _photo(src / "a.jpg", LIGHT)
    _photo(src / "b.jpg", LIGHT + 10)
    batch.anonymize_folder(src, out)
    again = batch.anonymize_folder(src, out)
    assert sorted(k["file"] for k in again["kept"]) == ["a.jpg", "b.jpg"]
    assert not again["photos"]
    _photo(src / "b.jpg", LIGHT + 30)  # touched up since: its output is made again
    third = batch.anonymize_folder(src, out, overwrite=True)
    assert [k["file"] for k in third["kept"]] == ["a.jpg"]
    assert [p["file"] for p in third["photos"]] == ["b.jpg"]


def test_a_marker_written_before_adr_199_is_still_recognised(
        tmp_path: Path, fake_verifier: None) -> None:  # noqa: F811
    src, out = tmp_path / "in", tmp_path / "out"
    data = _photo(src / "a.jpg", LIGHT)
    batch.anonymize_folder(src, out)
    lines = (out / MARKER_NAME).read_text(encoding="utf-8").splitlines()
    old = [lines[0]]
    for line in lines[1:]:
        record = json.loads(line)
        record.pop("source_salt"), record.pop("source_tag")
        record["source_sha256"] = hashlib.sha256(data).hexdigest()
        old.append(json.dumps(record, sort_keys=True))
    (out / MARKER_NAME).write_text("\n".join(old) + "\n", encoding="utf-8")
    again = batch.anonymize_folder(src, out)
    assert [k["file"] for k in again["kept"]] == ["a.jpg"] and not again["photos"]


def test_a_record_with_a_forged_salt_is_not_taken_for_the_photo(
        tmp_path: Path, fake_verifier: None) -> None:  # noqa: F811
    src, out = tmp_path / "in", tmp_path / "out"
    _photo(src / "a.jpg", LIGHT)
    batch.anonymize_folder(src, out)
    text = (out / MARKER_NAME).read_text(encoding="utf-8")
    salt = _records(out)[-1]["source_salt"]
    (out / MARKER_NAME).write_text(text.replace(salt, "not-hex"), encoding="utf-8")
    again = batch.anonymize_folder(src, out, overwrite=True)
    assert not again["kept"] and [p["file"] for p in again["photos"]] == ["a.jpg"]
