"""Files and names at the command line (ADR 187): a parquet export is Winnow's and is
replaced by a re-run; a full disk names the destination, not a hidden temporary folder;
`import hf ..` keeps its images; a nested JSON file is one line; an unknown quality label
is refused."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from app.cli import run_cli
from core.export_files import MARKER_NAME
from core.interop import shards
from core.interop.hf_export import export_benchmark_hf
from core.store import Project

pytest.importorskip("pyarrow")


def test_metrics_parquet_export_is_recorded_and_replaced_by_a_rerun(bench_file: Path,
                                                                     tmp_path: Path,
                                                                     capsys) -> None:
    # results to export: with none `metrics export` refuses before writing (ADR 228)
    assert run_cli(["metrics", "run", str(bench_file), "--metric", "colour_shift",
                    "--device", "cpu"]) == 0
    out = tmp_path / "res" / "m.parquet"
    for _ in range(2):
        assert run_cli(["metrics", "export", str(bench_file), "--out", str(out)]) == 0, \
            capsys.readouterr().err
    listed = [json.loads(x).get("file") for x in
              (out.parent / MARKER_NAME).read_text(encoding="utf-8").splitlines()]
    assert "m.parquet" in listed
    mine = tmp_path / "res" / "mine.parquet"
    mine.write_bytes(b"a user's own file")
    assert run_cli(["metrics", "export", str(bench_file), "--out", str(mine)]) == 2
    assert "cannot prove it wrote it" in capsys.readouterr().err
    assert mine.read_bytes() == b"a user's own file"


def test_a_full_disk_during_an_hf_export_names_the_destination(
        bench: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(self: object, current: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(shards.ShardWriter, "_flush", full)
    out = tmp_path / "hf"
    with pytest.raises(OSError) as caught:
        export_benchmark_hf(bench, out)
    message = str(caught.value)
    assert message.startswith(f"cannot write {out}{os.sep}data{os.sep}"), message
    assert "No space left on device" in message
    assert message.endswith(f"nothing was written to {out}")
    assert ".winnow-tmp" not in message
    assert not out.exists() and not [n for n in os.listdir(tmp_path) if n.startswith(".")]


def test_import_hf_dot_dot_stores_every_image(bench: Project, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys) -> None:
    export_benchmark_hf(bench, tmp_path / "ds")
    monkeypatch.chdir(tmp_path / "ds" / "data")
    target = tmp_path / "new.winnow"
    assert run_cli(["import", "hf", "..", "--project", str(target), "--json"]) == 0, \
        capsys.readouterr()
    report = json.loads(capsys.readouterr().out)
    assert report["imported"] == 3 and report["images"]["failed"] == 0, report
    with Project.open(target, readonly=True) as p:
        ids = sorted(r[0] for r in p.conn.execute("SELECT id FROM samples"))
        missing = p.conn.execute("SELECT count(*) FROM sample_images "
                                 "WHERE sha256 IS NULL").fetchone()[0]
    assert missing == 0 and ids == ["s1", "s2", "s3"]


@pytest.mark.parametrize("name", ["dataset_dict.json", "state.json"])
def test_deeply_nested_json_is_one_line_naming_the_file(tmp_path: Path, name: str,
                                                        capsys) -> None:
    folder = tmp_path / "ds"
    (folder / "train").mkdir(parents=True)
    deep = "[" * 200_000 + "]" * 200_000
    if name == "dataset_dict.json":
        (folder / name).write_text('{"splits": ' + deep + "}")
    else:
        (folder / "dataset_dict.json").write_text('{"splits": ["train"]}')
        (folder / "train" / name).write_text('{"_data_files": ' + deep + "}")
    assert run_cli(["import", "hf", str(folder), "--project",
                    str(tmp_path / "p.winnow")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert name in err and "nested too deeply" in err
    assert not (tmp_path / "p.winnow").exists()


def test_curate_split_refuses_an_unknown_quality_label(bench_file: Path, tmp_path: Path,
                                                       capsys) -> None:
    assert run_cli(["curate", "split", str(bench_file), "--curators", "2", "--out",
                    str(tmp_path / "parts"), "--quality", "Benchmark,Nope"]) == 2
    err = capsys.readouterr().err
    assert "'Nope'" in err and "Benchmark, Analysis, Trash" in err
    assert not (tmp_path / "parts").exists()
