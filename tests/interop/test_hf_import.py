"""``winnow import hf``: the export round-trips; to_parquet and save_to_disk datasets
import; bad rows are named by split and row and every valid row is in."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import pattern, png_bytes

from core.interop.hf_export import export_benchmark_hf
from core.interop.hf_import import import_hf
from core.jobs import Cancelled, JobState
from core.store import Project

datasets = pytest.importorskip("datasets")


def _state_of(project: Project) -> dict[str, Any]:
    """What a curator sees of each sample: prompts, labels, images by hash with boxes."""
    out = {}
    for sid, prompt, orig, quality, split, shot, notes in project.conn.execute(
            "SELECT id, prompt, original_prompt, quality, split, is_screenshot, notes "
            "FROM samples ORDER BY id"):
        images = project.conn.execute(
            "SELECT role, position, sha256, bbox_x, bbox_y, bbox_w, bbox_h FROM sample_images "
            "WHERE sample_id = ? ORDER BY role, position", (sid,)).fetchall()
        tags = [t for (t,) in project.conn.execute(
            "SELECT tag FROM sample_tags WHERE sample_id = ? ORDER BY tag", (sid,))]
        feedback = project.conn.execute("SELECT post_id, text FROM feedback WHERE sample_id = ?"
                                        " ORDER BY position", (sid,)).fetchall()
        post = project.conn.execute(
            "SELECT p.text, p.author, p.url, p.timestamp, p.keyword, p.engagement FROM posts p "
            "JOIN samples s ON s.post_id = p.id WHERE s.id = ?", (sid,)).fetchone()
        out[sid] = {"prompt": prompt, "original": orig, "quality": quality, "split": split,
                    "screenshot": shot, "notes": notes, "images": images, "tags": tags,
                    "feedback": feedback, "post": post}
    return out


def test_round_trip_export_then_import(bench, tmp_path: Path) -> None:
    export_benchmark_hf(bench, tmp_path / "hf")
    target = Project.create(tmp_path / "again.winnow")
    report = import_hf(target, tmp_path / "hf")
    assert report.errors == [] and report.image_errors == []
    assert (report.rows, report.imported) == (3, 3)
    before, after = _state_of(bench), _state_of(target)
    before.pop("s4"), before.pop("s5")  # not exported (missing image, Analysis)
    assert after == before
    # the screenshot sample points at the screenshot with its boxes, not at crops
    s2 = after["s2"]["images"]
    assert [(r[0], r[3:]) for r in s2] == [("input", (10, 20, 50, 40)),
                                           ("output", (100, 30, 120, 100))]
    assert s2[0][2] == s2[1][2]
    for sha in {r[2] for s in after.values() for r in s["images"]}:
        assert target.assets.find(sha) is not None
    # importing the same dataset again changes nothing
    again = import_hf(target, tmp_path / "hf")
    assert (again.imported, again.updated, again.unchanged) == (0, 0, 3)
    target.close()


def test_curator_edits_survive_a_reimport(bench, tmp_path: Path) -> None:
    from core.curate.commands import UndoStack, set_prompt

    export_benchmark_hf(bench, tmp_path / "hf")
    target = Project.create(tmp_path / "again.winnow")
    import_hf(target, tmp_path / "hf")
    UndoStack(target).push(set_prompt("s3", "my better prompt"))
    report = import_hf(target, tmp_path / "hf")
    assert report.unchanged == 3
    assert target.conn.execute("SELECT prompt FROM samples WHERE id = 's3'").fetchone()[0] == \
        "my better prompt"
    target.close()


def _generic(tmp_path: Path) -> Path:
    """A third-party editing dataset written by datasets.to_parquet."""
    feats = datasets.Features({"instruction": datasets.Value("string"),
                               "source_image": datasets.Image(),
                               "edited_image": datasets.Image(),
                               "category": datasets.Value("string")})
    rows = {"instruction": ["make it snow", "add a hat"],
            "source_image": [{"bytes": png_bytes(pattern((20, 20), k)), "path": None}
                             for k in range(2)],
            "edited_image": [{"bytes": png_bytes(pattern((20, 20), 10 + k)), "path": None}
                             for k in range(2)],
            "category": ["weather", "clothes"]}
    folder = tmp_path / "edits"
    folder.mkdir()
    datasets.Dataset.from_dict(rows, features=feats).to_parquet(str(folder / "test.parquet"))
    return folder


def test_to_parquet_dataset_with_other_column_names(project, tmp_path: Path) -> None:
    report = import_hf(project, _generic(tmp_path))
    assert report.errors == [] and report.imported == 2
    rows = project.conn.execute("SELECT id, prompt, split, quality FROM samples ORDER BY id")
    assert rows.fetchall() == [("edits/test/0", "make it snow", "image-to-image", None),
                               ("edits/test/1", "add a hat", "image-to-image", None)]
    roles = project.conn.execute("SELECT role, sha256 FROM sample_images WHERE sample_id = "
                                 "'edits/test/1' ORDER BY role").fetchall()
    import hashlib

    assert roles == [("input", hashlib.sha256(png_bytes(pattern((20, 20), 1))).hexdigest()),
                     ("output", hashlib.sha256(png_bytes(pattern((20, 20), 11))).hexdigest())]


def test_column_mapping_and_clear_refusals(project, tmp_path: Path) -> None:
    folder = _generic(tmp_path)
    report = import_hf(project, folder, columns={"prompt": "category",
                                                 "output_images": "source_image",
                                                 "input_images": "edited_image"})
    assert project.conn.execute("SELECT prompt FROM samples ORDER BY id").fetchall() == [
        ("weather",), ("clothes",)]
    assert report.imported == 2
    with pytest.raises(ValueError, match="no column 'nope'"):
        import_hf(project, folder, columns={"prompt": "nope"})
    with pytest.raises(ValueError, match="unknown field 'colour'"):
        import_hf(project, folder, columns={"colour": "category"})
    with pytest.raises(ValueError, match="holds no images"):
        import_hf(project, folder, columns={"input_images": "category"})
    bare = tmp_path / "bare"
    bare.mkdir()
    datasets.Dataset.from_dict({"x": [1]}).to_parquet(str(bare / "train.parquet"))
    with pytest.raises(ValueError, match="no prompt column"):
        import_hf(project, bare)
    with pytest.raises(ValueError, match="no dataset files"):
        import_hf(project, _empty(tmp_path))


def _empty(tmp_path: Path) -> Path:
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "README.md").write_text("hi")
    return folder


def test_save_to_disk_folder_with_splits(project, tmp_path: Path) -> None:
    feats = datasets.Features({"prompt": datasets.Value("string"), "image": datasets.Image(),
                               "id": datasets.Value("string")})

    def part(prefix: str, n: int) -> Any:
        return datasets.Dataset.from_dict(
            {"prompt": [f"{prefix} {k}" for k in range(n)], "id": [f"{prefix}{k}"
                                                                  for k in range(n)],
             "image": [{"bytes": png_bytes(pattern((8, 8), k)), "path": None}
                       for k in range(n)]}, features=feats)

    datasets.DatasetDict({"text_to_image": part("t", 2), "test": part("x", 1)}).save_to_disk(
        str(tmp_path / "saved"))
    report = import_hf(project, tmp_path / "saved")
    assert report.imported == 3 and report.errors == []
    assert project.conn.execute("SELECT id, split FROM samples ORDER BY id").fetchall() == [
        ("t0", "text-to-image"), ("t1", "text-to-image"), ("x0", "text-to-image")]


def _bad_rows(tmp_path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from core.interop.features import arrow_schema

    schema = arrow_schema([("id", "string"), ("prompt", "string"),
                           ("output_images", ("list", "image")), ("quality", "string"),
                           ("tags", ("list", "string"))])
    good = {"bytes": png_bytes(pattern((10, 10), 1)), "path": "a.png"}
    rows = [
        {"id": "ok1", "prompt": "fine", "output_images": [good], "quality": "Benchmark"},
        {"id": "noprompt", "prompt": None, "output_images": [good]},
        {"id": "badquality", "prompt": "x", "output_images": [good], "quality": "Great"},
        {"id": "corrupt", "prompt": "y",
         "output_images": [{"bytes": png_bytes(pattern((10, 10), 2))[:40], "path": "c.png"}]},
        {"id": "notimage", "prompt": "z",
         "output_images": [{"bytes": b"<html>nope</html>", "path": None}]},
        {"id": "outside", "prompt": "w", "output_images": [{"bytes": None,
                                                            "path": "/etc/passwd"}]},
        {"id": "emptytag", "prompt": "v", "output_images": [good], "tags": [""]},
        {"id": "ok2", "prompt": "also fine", "output_images": [good], "tags": ["t"]},
    ]
    folder = tmp_path / "bad" / "data"
    folder.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema),
                   folder / "train-00000-of-00001.parquet")
    return folder.parent


def test_bad_rows_are_named_and_every_valid_row_is_imported(project, tmp_path: Path) -> None:
    report = import_hf(project, _bad_rows(tmp_path), chunk_rows=3)
    errors = {e["row"]: e["error"] for e in report.errors}
    assert set(errors) == {1, 2, 5, 6}
    assert "prompt" in errors[1] and "quality" in errors[2]
    assert "not embedded" in errors[5] and "tags[0]" in errors[6]
    assert all(e["file"] == "data/train-00000-of-00001.parquet" and e["split"] == "train"
               for e in report.errors)
    image_errors = {e["row"]: e for e in report.image_errors}
    assert set(image_errors) == {3, 4}
    assert image_errors[3]["column"] == "output_images[0]"
    assert "truncated" in image_errors[3]["error"] or "corrupt" in image_errors[3]["error"]
    assert "HTML" in image_errors[4]["error"] or "not an image" in image_errors[4]["error"]
    assert str(tmp_path) not in image_errors[4]["error"]  # no scratch paths in messages
    ids = [r[0] for r in project.conn.execute("SELECT id FROM samples ORDER BY id")]
    assert ids == ["corrupt", "notimage", "ok1", "ok2"]  # like JSONL: the image failed
    failed = project.conn.execute("SELECT error FROM sample_images WHERE sample_id = "
                                  "'corrupt'").fetchone()[0]
    assert failed
    scratch = [n for n in os.listdir(tmp_path) if "hf-import" in n]
    assert scratch == []


def test_cancel_keeps_committed_chunks_and_cleans_scratch(project, tmp_path: Path) -> None:
    folder = _bad_rows(tmp_path)
    state = JobState()
    state.subscribe(lambda s: s.cancel() if s.done >= 4 and not s.cancelled() else None)
    with pytest.raises(Cancelled):
        import_hf(project, folder, state=state, chunk_rows=2)
    kept = [r[0] for r in project.conn.execute("SELECT id FROM samples ORDER BY id")]
    assert "ok1" in kept and "ok2" not in kept
    assert [n for n in os.listdir(tmp_path) if "hf-import" in n] == []


def test_chunks_bound_what_is_held(project, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from core.ingest import importer

    sizes: list[int] = []
    real = importer.import_jsonl

    def spy(project, path, **kw):  # type: ignore[no-untyped-def]
        sizes.append(len(Path(path).read_text().splitlines()))
        return real(project, path, **kw)

    monkeypatch.setattr(importer, "import_jsonl", spy)
    report = import_hf(project, _bad_rows(tmp_path), chunk_rows=2)
    assert max(sizes) <= 2 and sum(sizes) == 6 and report.imported == 4  # 2 fail parsing


def test_a_damaged_file_is_reported_and_the_others_import(project, tmp_path: Path) -> None:
    folder = _bad_rows(tmp_path)
    broken = folder / "data" / "test-00000-of-00001.parquet"
    good = (folder / "data" / "train-00000-of-00001.parquet").read_bytes()
    broken.write_bytes(good[: len(good) // 2])
    report = import_hf(project, folder)
    assert any(e["file"] == "data/test-00000-of-00001.parquet" and e["row"] is None
               for e in report.errors)
    assert report.imported == 4


def test_missing_pyarrow_names_the_extra(project, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from core.interop.deps import MissingExtraError
    from core.interop.hf_export import export_benchmark_hf as export

    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(MissingExtraError, match=r"\[parquet\]"):
        import_hf(project, tmp_path)
    with pytest.raises(MissingExtraError, match=r"\[parquet\]"):
        export(project, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_discover_names_splits_like_datasets(tmp_path: Path) -> None:
    from core.interop.hf_read import _split_of

    assert _split_of(Path("data/text_to_image-00001-of-00004.parquet")) == "text_to_image"
    assert _split_of(Path("test.parquet")) == "test"
    assert _split_of(Path("validation/anything.parquet")) == "validation"
    assert _split_of(Path("bench.parquet")) == "train"


def test_hostile_state_json_cannot_point_outside(project, tmp_path: Path) -> None:
    folder = tmp_path / "saved"
    folder.mkdir()
    (folder / "state.json").write_text('{"_data_files": [{"filename": "../../etc/passwd"}]}')
    with pytest.raises(ValueError, match="leads outside"):
        import_hf(project, folder)


def test_single_parquet_file(project, tmp_path: Path) -> None:
    ds = datasets.Dataset.from_dict({"prompt": ["a cat"], "image": [
        {"bytes": png_bytes(pattern((8, 8), 3)), "path": None}]},
        features=datasets.Features({"prompt": datasets.Value("string"),
                                    "image": datasets.Image()}))
    ds.to_parquet(str(tmp_path / "one.parquet"))
    report = import_hf(project, tmp_path / "one.parquet")
    assert report.imported == 1
    assert project.conn.execute("SELECT id, split FROM samples").fetchall() == [
        ("one/train/0", "text-to-image")]


def test_reading_rows_does_not_hold_the_file_in_memory(tmp_path: Path) -> None:
    """With pyarrow's pre-buffering, every range read stayed cached until the file was
    closed: memory grew with the file (found by benchmarks/bench_interop.py)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from core.interop import hf_read
    from core.interop.features import arrow_schema

    rng = __import__("random").Random(0)
    schema = arrow_schema([("prompt", "string"), ("image", "image")])
    with pq.ParquetWriter(tmp_path / "train.parquet", schema, compression="none") as writer:
        for _group in range(20):
            writer.write_table(pa.Table.from_pylist(
                [{"prompt": str(k), "image": {"bytes": rng.randbytes(100_000), "path": None}}
                 for k in range(10)], schema=schema))
    size = (tmp_path / "train.parquet").stat().st_size
    base = pa.total_allocated_bytes()
    peak = 0
    data = hf_read.discover(tmp_path)[0]
    count = 0
    for count, _row in enumerate(hf_read.iter_rows(data), 1):  # noqa: B007
        peak = max(peak, pa.total_allocated_bytes() - base)
    assert count == 200 and size > 19_000_000
    assert peak < size / 4  # a row group or two, not the file


def test_a_repeated_id_is_refused_not_silently_replaced(project, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": ["a", "b", "a"], "prompt": ["first", "x", "second"]}),
                   tmp_path / "train.parquet")
    report = import_hf(project, tmp_path / "train.parquet")
    assert report.imported == 2
    assert report.errors == [{"split": "train", "row": 2, "file": "train.parquet",
                              "error": "id 'a' is already used by train row 0"}]
    assert project.conn.execute("SELECT prompt FROM samples WHERE id = 'a'").fetchone()[0] == \
        "first"


def test_images_stored_as_paths_inside_the_folder(project, tmp_path: Path) -> None:
    """A dataset whose image cells hold only a path: the file inside the dataset's folder
    is validated (core.imaging.decode's wording) and read; a broken one names its row."""
    folder = tmp_path / "paths"
    folder.mkdir()
    (folder / "a.png").write_bytes(png_bytes(pattern((20, 20), 3)))
    (folder / "b.png").write_bytes(png_bytes(pattern((20, 20), 4))[:60])  # truncated
    (folder / "c.png").write_bytes(png_bytes(pattern((20, 20), 5)))
    table = {"prompt": ["ok", "broken"],
             "image": [{"bytes": None, "path": "a.png"}, {"bytes": None, "path": "b.png"}],
             "output": [{"bytes": None, "path": "c.png"}, {"bytes": None, "path": "c.png"}]}
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table(table), folder / "test.parquet")
    report = import_hf(project, folder, columns={"input_images": "image",
                                                 "output_images": "output"})
    assert report.imported == 1
    assert len(report.errors) == 1
    assert report.errors[0]["row"] == 1
    assert report.errors[0]["error"].startswith("'image': b.png: truncated PNG")
    import hashlib

    shas = {sha for (sha,) in project.conn.execute("SELECT sha256 FROM sample_images")}
    assert hashlib.sha256(png_bytes(pattern((20, 20), 3))).hexdigest() in shas
def test_images_stored_as_paths_inside_the_folder_are_read(project, tmp_path: Path) -> None:
    """An image column may hold ``{"bytes": None, "path": …}`` (datasets' non-embedded
    images): a file inside the dataset folder is read and validated. Found by mypy (#16):
    the reader called a function the importer no longer has, so such a dataset failed
    as a whole with an ImportError."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from core.interop.features import arrow_schema

    folder = tmp_path / "paths"
    (folder / "images").mkdir(parents=True)
    picture = png_bytes(pattern((12, 12), 7))
    (folder / "images" / "a.png").write_bytes(picture)
    (folder / "images" / "notes.txt").write_text("not a picture")
    schema = arrow_schema([("id", "string"), ("prompt", "string"),
                           ("output_images", ("list", "image"))])
    rows = [{"id": "pathed", "prompt": "p", "output_images": [
                {"bytes": None, "path": "images/a.png"}]},
            {"id": "text", "prompt": "t", "output_images": [
                {"bytes": None, "path": "images/notes.txt"}]}]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), folder / "train.parquet")
    report = import_hf(project, folder)
    assert report.imported == 1 and report.image_errors == []
    assert [e["row"] for e in report.errors] == [1]
    assert "output_images[0]" in report.errors[0]["error"]
    sha = project.conn.execute("SELECT sha256 FROM sample_images WHERE sample_id = "
                               "'pathed'").fetchone()[0]
    assert project.assets.find(sha).read_bytes() == picture
