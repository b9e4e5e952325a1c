"""Benchmark export: JSONL readable by pandas, every image path exists, crops exact, atomic."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from app.cli import run_cli
from core.curate.commands import SetField, UndoStack, set_prompt
from core.curate.detail import image_path, load_sample
from core.curate.export import export_benchmark
from core.store import Project


def test_round_trip_with_pandas_crops_and_edited_prompt(curate_project, tmp_path: Path) -> None:
    p = curate_project
    stack = UndoStack(p)
    stack.push(set_prompt("s1", "Make the cat bright green"))
    stack.push(SetField(["s2"], "quality", "Benchmark"))
    out = tmp_path / "bench"
    report = export_benchmark(p, out)
    assert report.exported == 3 and report.skipped == []
    df = pd.read_json(out / "samples.jsonl", lines=True, dtype=False)
    assert list(df["id"]) == ["s1", "s2", "s3"]
    for col in ("prompt", "original_prompt", "prompt_modified", "quality", "community_feedback",
                "input_images", "output_images", "is_screenshot", "input_bboxs",
                "output_bboxs", "text", "timestamp", "replies_above", "replies_below",
                "engagement", "url", "author", "keyword", "image_urls", "post_id"):
        assert col in df.columns, col
    s1 = df.set_index("id").loc["s1"]
    assert s1["prompt"] == "Make the cat bright green"
    assert s1["original_prompt"] == "Change the colour of the cat to green"
    assert bool(s1["prompt_modified"]) is True
    assert s1["community_feedback"] == [{"post_id": "r1", "text": "the green looks yellowish"}]
    assert [r["post_id"] for r in s1["replies_above"]] == ["ctx"]
    assert [r["post_id"] for r in s1["replies_below"]] == ["r1", "r1a", "r2"]
    for paths in df["input_images"].tolist() + df["output_images"].tolist():
        for rel in paths:
            assert (out / rel).is_file(), rel
    # a whole image is copied byte for byte
    src = image_path(p, load_sample(p, "s1").images[0].sha256).read_bytes()
    assert (out / s1["input_images"][0]).read_bytes() == src
    # screenshot boxes are applied as crops, exactly
    s2 = df.set_index("id").loc["s2"]
    assert s2["input_bboxs"] == [[10, 20, 50, 40]] and s2["output_bboxs"] == [[100, 30, 120, 100]]
    shot = Image.open(image_path(p, load_sample(p, "s2").images[0].sha256)).convert("RGB")
    crop_in = np.asarray(Image.open(out / s2["input_images"][0]).convert("RGB"))
    crop_out = np.asarray(Image.open(out / s2["output_images"][0]).convert("RGB"))
    assert np.array_equal(crop_in, np.asarray(shot)[20:60, 10:60])
    assert np.array_equal(crop_out, np.asarray(shot)[30:130, 100:220])
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".bench")]  # no temp left


def test_missing_and_corrupt_images_skip_the_sample_with_a_reason(curate_project,
                                                                  tmp_path: Path) -> None:
    p = curate_project
    victim = image_path(p, load_sample(p, "s1").images[1].sha256)
    os.chmod(victim, stat.S_IWUSR | stat.S_IRUSR)
    victim.write_bytes(b"\x89PNG\r\n\x1a\nthis is not really a png")
    report = export_benchmark(p, tmp_path / "b", qualities=("Benchmark", "Analysis"))
    skipped = {s["sample"]: s["reason"] for s in report.skipped}
    assert set(skipped) == {"s1", "s4"}
    assert "img/out.png" in skipped["s1"] and "no longer matches" in skipped["s1"]  # ADR 176
    assert "img/missing.png" in skipped["s4"] and "never fetched" in skipped["s4"]
    lines = (tmp_path / "b" / "samples.jsonl").read_text().splitlines()
    assert [json.loads(x)["id"] for x in lines] == ["s3"]
    assert sorted(os.listdir(tmp_path / "b" / "images")) == ["s3"]


def test_split_filter_and_existing_folder_rules(curate_project, tmp_path: Path) -> None:
    p = curate_project
    out = tmp_path / "b"
    report = export_benchmark(p, out, splits=("t2i",))
    assert report.exported == 1
    with pytest.raises(FileExistsError, match="already exists"):
        export_benchmark(p, out)
    report = export_benchmark(p, out, splits=("i2i",), overwrite=True)
    lines = (out / "samples.jsonl").read_text().splitlines()
    assert [json.loads(x)["id"] for x in lines] == ["s1"]
    assert sorted(os.listdir(out / "images")) == ["s1"]
    precious = tmp_path / "mine"
    precious.mkdir()
    (precious / "thesis.txt").write_text("do not delete")
    with pytest.raises(FileExistsError, match="not a Winnow benchmark export folder"):
        export_benchmark(p, precious, overwrite=True)
    assert (precious / "thesis.txt").read_text() == "do not delete"
    with pytest.raises(ValueError, match="unknown split"):
        export_benchmark(p, tmp_path / "c", splits=("video",))


def test_failed_export_leaves_the_old_one_and_no_temp(curate_project, tmp_path: Path,
                                                      monkeypatch) -> None:
    p = curate_project
    out = tmp_path / "b"
    export_benchmark(p, out)
    before = (out / "samples.jsonl").read_bytes()
    import core.curate.export as exp

    def boom(*a, **k):  # type: ignore[no-untyped-def]
        raise OSError("disk full")

    monkeypatch.setattr(exp, "_write_image", boom)
    with pytest.raises(OSError, match="disk full"):
        export_benchmark(p, out, overwrite=True)
    assert (out / "samples.jsonl").read_bytes() == before
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".b")]


def test_cli_export_benchmark(curate_project, tmp_path: Path, capsys) -> None:
    path = curate_project.path
    curate_project.close()
    out = tmp_path / "cli-out"
    assert run_cli(["export", "benchmark", str(path), "--out", str(out),
                    "--quality", "Benchmark", "--split", "image-to-image"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["exported"] == 1 and report["images"] == 2
    df = pd.read_json(out / "samples.jsonl", lines=True)
    assert list(df["id"]) == ["s1"]
    assert run_cli(["export", "benchmark", str(path), "--out", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert run_cli(["export", "benchmark", str(tmp_path / "nope.winnow"), "--out",
                    str(tmp_path / "x")]) == 2
    assert "no project" in capsys.readouterr().err
    # reading the project did not lock it or change it
    Project.open(path).close()


def test_export_folder_gets_the_usual_permissions_not_private(curate_project,
                                                               tmp_path: Path) -> None:
    """The temporary folder is renamed into place: it must not stay 0700 (mkdtemp's mode)."""
    old = os.umask(0o022)
    try:
        export_benchmark(curate_project, tmp_path / "shared")
    finally:
        os.umask(old)
    out = tmp_path / "shared"
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    assert stat.S_IMODE((out / "images").stat().st_mode) == 0o755
    assert stat.S_IMODE((out / "samples.jsonl").stat().st_mode) == 0o644
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".shared")]
