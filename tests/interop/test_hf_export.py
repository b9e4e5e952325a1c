"""``--format hf``: a folder ``datasets.load_dataset`` reads offline, images embedded,
crops exact, a dataset card the Hub reads, bounded shards, atomic and refusing."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import yaml
from interop_helpers import pattern, release
from PIL import Image

from core.curate.detail import image_path, load_sample
from core.export_files import MARKER_NAME, Marker
from core.interop import shards
from core.interop.dataset_card import front_matter, hub_licence
from core.interop.hf_export import BENCHMARK_COLUMNS, export_benchmark_hf, export_photos_hf
from core.jobs import Cancelled, JobState

datasets = pytest.importorskip("datasets")


def _load(out: Path) -> object:
    return datasets.load_dataset(str(out))


def _raw(ds: object, column: str) -> object:
    """The column with images left undecoded ({"bytes", "path"})."""
    feature = ds.features[column]
    inner = getattr(feature, "feature", None)
    if inner is not None:
        return ds.cast_column(column, datasets.List(datasets.Image(decode=False)))[column]
    return ds.cast_column(column, datasets.Image(decode=False))[column]


def test_load_dataset_reads_every_field(bench, tmp_path: Path) -> None:
    out = tmp_path / "hf"
    report = export_benchmark_hf(bench, out, licence="CC-BY-4.0")
    assert report.exported == 3 and report.images == 5
    assert [s["sample"] for s in report.skipped] == ["s4"]
    assert "img/missing.png" in report.skipped[0]["reason"]
    ds = _load(out)
    assert set(ds) == {"text_to_image", "image_to_image"}
    assert ds["image_to_image"]["id"] == ["s1", "s2"] and ds["text_to_image"]["id"] == ["s3"]
    features = ds["image_to_image"].features
    assert isinstance(features["input_images"].feature, datasets.Image)
    assert isinstance(features["screenshots"].feature, datasets.Image)
    s1 = ds["image_to_image"][0]
    assert s1["prompt"] == "Make the cat bright green"
    assert s1["original_prompt"] == "Change the colour of the cat to green"
    assert s1["prompt_modified"] is True and s1["quality"] == "Benchmark"
    assert s1["split"] == "image-to-image" and s1["tags"] == ["animal", "colour"]
    assert s1["community_feedback"] == [{"post_id": "r1", "text": "the green looks yellowish"}]
    assert (s1["author"], s1["url"], s1["timestamp"], s1["keyword"]) == (
        "@alice", "https://x.example/alice/1", "2025-03-26T10:00:00Z", "gpt-image")
    assert s1["text"] == "turn my cat green 🐱" and s1["notes"] == "good one"
    assert json.loads(s1["engagement"]) == {"likes": 12, "views": 300}
    assert s1["input_bboxs"] == [None] and s1["screenshots"] == []
    assert isinstance(s1["input_images"][0], Image.Image)
    # whole images are the stored bytes, unchanged
    whole = _raw(ds["image_to_image"], "input_images")[0][0]["bytes"]
    assert whole == image_path(bench, load_sample(bench, "s1").images[0].sha256).read_bytes()
    s3 = ds["text_to_image"][0]
    assert s3["prompt"] == "Design a soda can called «FIZZ»" and s3["input_images"] == []
    assert s3["output_images"][0].format == "JPEG"


def test_screenshot_crops_are_exact_and_point_back_at_the_screenshot(bench,
                                                                     tmp_path: Path) -> None:
    out = tmp_path / "hf"
    export_benchmark_hf(bench, out)
    s2 = _load(out)["image_to_image"][1]
    assert s2["id"] == "s2" and s2["is_screenshot"] is True
    shot = np.asarray(pattern((240, 160), 11))
    assert np.array_equal(np.asarray(s2["input_images"][0].convert("RGB")), shot[20:60, 10:60])
    assert np.array_equal(np.asarray(s2["output_images"][0].convert("RGB")),
                          shot[30:130, 100:220])
    assert s2["input_bboxs"] == [[10, 20, 50, 40]] and s2["output_bboxs"] == [[100, 30, 120, 100]]
    assert len(s2["screenshots"]) == 1  # one screenshot, embedded once for both boxes
    assert s2["input_bbox_screenshot"] == [0] and s2["output_bbox_screenshot"] == [0]
    assert np.array_equal(np.asarray(s2["screenshots"][0].convert("RGB")), shot)


def test_dataset_card_front_matter_is_what_the_hub_and_datasets_read(bench,
                                                                     tmp_path: Path) -> None:
    from huggingface_hub import DatasetCard

    out = tmp_path / "hf"
    export_benchmark_hf(bench, out, licence="CC-BY-4.0")
    text = (out / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    meta = yaml.safe_load(text.split("---\n")[1])
    card = DatasetCard.load(out / "README.md")
    assert card.data.license == "cc-by-4.0" == meta["license"]
    assert meta["configs"] == [{"config_name": "default", "data_files": [
        {"split": "image_to_image", "path": "data/image_to_image-*"},
        {"split": "text_to_image", "path": "data/text_to_image-*"}]}]
    assert card.data.to_dict()["configs"] == meta["configs"]
    splits = {s["name"]: s["num_examples"] for s in meta["dataset_info"]["splits"]}
    assert splits == {"image_to_image": 2, "text_to_image": 1}
    # the card's features are the same Features datasets reads from the parquet files
    from_card = datasets.Features._from_yaml_list(meta["dataset_info"]["features"])
    assert from_card == _load(out)["text_to_image"].features
    assert [f["name"] for f in meta["dataset_info"]["features"]] == \
        [c[0] for c in BENCHMARK_COLUMNS]
    assert "## Citation" in text and "@misc{" in text


def test_marker_lists_exactly_what_was_written(bench, tmp_path: Path) -> None:
    out = tmp_path / "hf"
    export_benchmark_hf(bench, out)
    marker = Marker(out)
    on_disk = sorted(p.relative_to(out).as_posix() for p in out.rglob("*")
                     if p.is_file() and p.name != MARKER_NAME)
    assert sorted(marker.files) == on_disk
    assert all(marker.lists(rel, out / rel) for rel in on_disk)
    assert marker.export is not None and marker.export["export"] == "hf-benchmark"
    assert marker.export["rows"] == {"image_to_image": 2, "text_to_image": 1}
    assert [n for n in os.listdir(tmp_path) if n.startswith(".")] == []
    mode = (out / "README.md").stat().st_mode & 0o777
    assert mode == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_shards_and_row_groups_are_bounded(bench, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shards, "GROUP_ROWS", 1)
    largest: list[int] = []
    real_flush = shards.ShardWriter._flush

    def watch(self, current):  # type: ignore[no-untyped-def]
        largest.append(len(current.buffer))
        real_flush(self, current)

    monkeypatch.setattr(shards.ShardWriter, "_flush", watch)
    bench.conn.execute("UPDATE samples SET quality = 'Benchmark' WHERE id = 's5'")
    out = tmp_path / "hf"
    export_benchmark_hf(bench, out, shard_rows=1)
    names = sorted(p.name for p in (out / "data").iterdir())
    assert names == ["image_to_image-00000-of-00002.parquet",
                     "image_to_image-00001-of-00002.parquet",
                     "text_to_image-00000-of-00002.parquet",
                     "text_to_image-00001-of-00002.parquet"]
    assert max(largest) <= 1  # never more than one row group of rows held
    for name in names:
        meta = pq.ParquetFile(out / "data" / name).metadata
        assert meta.num_rows == 1 and meta.num_row_groups == 1
    assert _load(out)["text_to_image"]["id"] == ["s3", "s5"]


def test_group_bytes_flushes_before_the_row_limit(bench, tmp_path: Path) -> None:
    writer_root = tmp_path / "w"
    writer_root.mkdir()
    from core.interop.features import arrow_schema

    schema = arrow_schema([("id", "string"), ("image", "image")])
    writer = shards.ShardWriter(writer_root, schema, group_rows=100, group_bytes=1000)
    for k in range(5):
        writer.add("train", {"id": str(k), "image": {"bytes": b"x" * 600, "path": None}}, 600)
    info = writer.finish()["train"]
    meta = pq.ParquetFile(writer_root / info.files[0]).metadata
    assert info.num_examples == 5 and meta.num_row_groups == 3  # 2 + 2 + 1 rows


def test_existing_folder_is_refused_before_any_work_and_left_alone(bench,
                                                                    tmp_path: Path) -> None:
    out = tmp_path / "hf"
    out.mkdir()
    (out / "mine.txt").write_text("not Winnow's")
    with pytest.raises(FileExistsError, match="not empty"):
        export_benchmark_hf(bench, out)
    assert os.listdir(out) == ["mine.txt"]
    assert [n for n in os.listdir(tmp_path) if n.startswith(".")] == []
    empty = tmp_path / "empty"
    empty.mkdir()
    export_benchmark_hf(bench, empty)  # an empty folder is fine
    assert (empty / "README.md").is_file()
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    with pytest.raises(FileExistsError, match="symbolic link"):
        export_benchmark_hf(bench, link)
    (tmp_path / "file").write_text("x")
    with pytest.raises(FileExistsError, match="not a folder"):
        export_benchmark_hf(bench, tmp_path / "file")


def test_a_folder_appearing_meanwhile_is_not_replaced(bench, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from core.export_folder import ExportFolder

    out = tmp_path / "hf"
    real = ExportFolder.publish

    def racing(self, *a, **kw):  # type: ignore[no-untyped-def]
        self.target.mkdir()
        (self.target / "theirs.txt").write_text("another process")
        return real(self, *a, **kw)

    monkeypatch.setattr(ExportFolder, "publish", racing)
    with pytest.raises(FileExistsError):
        export_benchmark_hf(bench, out)
    assert os.listdir(out) == ["theirs.txt"]
    assert [n for n in os.listdir(tmp_path) if n.startswith(".")] == []


def test_overwrite_replaces_only_an_earlier_export_of_winnows(bench, tmp_path: Path) -> None:
    out = tmp_path / "hf"
    export_benchmark_hf(bench, out)
    export_benchmark_hf(bench, out, overwrite=True)  # its own earlier export: replaced
    assert (out / "README.md").is_file()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="notes.txt"):
        export_benchmark_hf(bench, out, overwrite=True)
    assert (out / "notes.txt").read_text() == "mine"


def test_cancel_leaves_nothing(bench, tmp_path: Path) -> None:
    state = JobState()
    state.subscribe(lambda s: s.cancel() if s.done >= 1 and not s.cancelled() else None)
    with pytest.raises(Cancelled):
        export_benchmark_hf(bench, tmp_path / "hf", state=state)
    assert not (tmp_path / "hf").exists()
    assert [n for n in os.listdir(tmp_path) if n.startswith(".")] == []


def test_full_disk_fails_cleanly(bench, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    real = shards.ShardWriter._flush

    def full(self, current):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(shards.ShardWriter, "_flush", full)
    with pytest.raises(OSError, match="No space"):
        export_benchmark_hf(bench, tmp_path / "hf")
    monkeypatch.setattr(shards.ShardWriter, "_flush", real)
    assert not (tmp_path / "hf").exists()
    assert [n for n in os.listdir(tmp_path) if n.startswith(".")] == []


def test_nothing_to_export_writes_nothing(bench, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no sample matches"):
        export_benchmark_hf(bench, tmp_path / "hf", qualities=("Trash",))
    with pytest.raises(ValueError, match="missing.png"):
        export_benchmark_hf(bench, tmp_path / "hf", splits=("t2i",),
                            selection=_ids("s4"))
    assert not (tmp_path / "hf").exists()
    assert [n for n in os.listdir(tmp_path) if n.startswith(".")] == []


def _ids(*ids: str):  # type: ignore[no-untyped-def]
    from core.selection import SampleFilter

    return SampleFilter(ids=ids)


def test_split_and_quality_selection(bench, tmp_path: Path) -> None:
    out = tmp_path / "hf"
    report = export_benchmark_hf(bench, out, qualities=("Benchmark", "Analysis"),
                                 splits=("t2i",))
    assert report.exported == 2
    ds = _load(out)
    assert list(ds) == ["text_to_image"] and ds["text_to_image"]["id"] == ["s3", "s5"]
    assert ds["text_to_image"]["quality"] == ["Benchmark", "Analysis"]


def test_released_photos_export(project, tmp_path: Path) -> None:
    for k, (cat, credit) in enumerate([("Animal", "Ada L."), ("Clock", "Bo M.")]):
        pattern((60 + k * 10, 40), 20 + k).save(tmp_path / f"photo{k}.png")
        release(project, tmp_path / f"photo{k}.png", category=cat, credit=credit,
                caption=f"caption {k}")
    from core.imaging import photos as repo

    pattern((30, 30), 9).save(tmp_path / "unreleased.png")
    repo.import_photo(project, tmp_path / "unreleased.png")
    out = tmp_path / "photos"
    report = export_photos_hf(project, out)
    assert report.exported == 2 and report.skipped == []
    ds = _load(out)["train"]
    assert ds["category"] == ["Animal", "Clock"] and ds["credit"] == ["Ada L.", "Bo M."]
    assert ds["caption"] == ["caption 0", "caption 1"]
    assert ds["license"] == ["CC-BY-4.0", "CC-BY-4.0"]
    # named by number and category, never by the original name (ADR 164)
    assert ds["file_name"] == ["photo-00001-animal.png", "photo-00002-clock.png"]
    assert (ds["width"], ds["height"]) == ([60, 70], [40, 40])
    flipped = pattern((60, 40), 20).transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    assert np.array_equal(np.asarray(ds[0]["image"].convert("RGB")), np.asarray(flipped))
    meta = yaml.safe_load((out / "README.md").read_text().split("---\n")[1])
    assert meta["license"] == "cc-by-4.0"


def test_mixed_photo_licences_make_the_card_say_other(project, tmp_path: Path) -> None:
    for k, lic in enumerate(["CC-BY-4.0", "CC0-1.0"]):
        pattern((20, 20), k).save(tmp_path / f"p{k}.png")
        release(project, tmp_path / f"p{k}.png", licence=lic)
    export_photos_hf(project, tmp_path / "out")
    meta = yaml.safe_load((tmp_path / "out" / "README.md").read_text().split("---\n")[1])
    assert meta["license"] == "other"
    assert hub_licence("CC0-1.0") == "cc0-1.0" and hub_licence("My own") == "other"
    assert hub_licence("") == "unknown"


def test_no_released_photo_is_a_clear_error(project, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no photo has been released"):
        export_photos_hf(project, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_front_matter_survives_hostile_titles(bench, tmp_path: Path) -> None:
    from core.interop.dataset_card import Card, render

    card = Card(title='evil"\n---\nlicense: mit', summary="x", columns=[("id", "string", "y")],
                splits={}, licence="unknown")
    meta = yaml.safe_load(render(card).split("\n---\n")[0].removeprefix("---\n"))
    assert meta["license"] == "unknown" and meta["pretty_name"].startswith('evil"')
    assert front_matter(card)["size_categories"] == ["n<1K"]


def test_image_bytes_stay_byte_for_byte_for_jpeg(bench, tmp_path: Path) -> None:
    out = tmp_path / "hf"
    export_benchmark_hf(bench, out)
    raw = _raw(_load(out)["text_to_image"], "output_images")[0][0]
    stored = image_path(bench, load_sample(bench, "s3").images[0].sha256).read_bytes()
    assert raw["bytes"] == stored and raw["path"].endswith(".jpg")
    assert Image.open(io.BytesIO(raw["bytes"])).format == "JPEG"
