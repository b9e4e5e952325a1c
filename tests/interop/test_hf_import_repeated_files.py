"""``import hf`` and a dataset that names one file twice (ADR 200): a dataset_dict.json
listing a split twice, a state.json listing a data file twice, or a parquet file that
is a link to a sibling imported every row two or four times, each copy a new sample
(generated ids count on). Each file is now read once, with a note; a state.json data
file that is a link leading outside was reported as "missing"."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from app.cli import run_cli
from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _stream(path: Path, prompts: list[str]) -> None:
    table = pa.table({"prompt": prompts})
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)


def _saved_twice(tmp_path: Path) -> Path:
    folder = tmp_path / "ds"
    (folder / "train").mkdir(parents=True)
    _stream(folder / "train" / "d.arrow", ["a", "b"])
    (folder / "train" / "state.json").write_text(json.dumps(
        {"_data_files": [{"filename": "d.arrow"}, {"filename": "d.arrow"}]}))
    (folder / "dataset_dict.json").write_text(json.dumps({"splits": ["train", "train"]}))
    return folder


def test_a_save_to_disk_folder_naming_a_file_twice_reads_it_once(project: Project,
                                                                 tmp_path: Path) -> None:
    report = import_hf(project, _saved_twice(tmp_path))
    assert (report.rows, report.imported, report.errors) == (2, 2, [])
    assert project.conn.execute("SELECT count(*) FROM samples").fetchone()[0] == 2
    assert [(n["file"], n["note"]) for n in report.notes] == [
        ("train/d.arrow", "listed twice; its rows are read once")] * 3


def test_a_parquet_link_to_a_sibling_is_read_once(project: Project, tmp_path: Path) -> None:
    """The rows after it keep the numbers ``datasets`` gives them (and so their ids)."""
    folder = tmp_path / "ds"
    folder.mkdir()
    pq.write_table(pa.table({"prompt": ["a", "b"]}), folder / "a.parquet")
    os.symlink(folder / "a.parquet", folder / "b.parquet")
    pq.write_table(pa.table({"prompt": ["c"]}), folder / "c.parquet")
    report = import_hf(project, folder)
    assert (report.rows, report.imported) == (3, 3)
    assert [(n["file"], n["note"]) for n in report.notes] == [
        ("b.parquet", "the same file as a.parquet; its rows are read once")]
    assert dict(project.conn.execute("SELECT id, prompt FROM samples")) == {
        "ds/train/0": "a", "ds/train/1": "b", "ds/train/4": "c"}


def test_the_cli_prints_the_notes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _saved_twice(tmp_path)
    assert run_cli(["import", "hf", str(folder), "--project", str(tmp_path / "p.winnow")]) == 0
    assert "  train/d.arrow: note: listed twice; its rows are read once" in \
        capsys.readouterr().out


def test_a_data_file_linking_outside_is_named_as_such(project: Project,
                                                      tmp_path: Path) -> None:
    _stream(tmp_path / "secret.arrow", ["private"])
    folder = tmp_path / "ds"
    folder.mkdir()
    os.symlink(tmp_path / "secret.arrow", folder / "d.arrow")
    (folder / "state.json").write_text(json.dumps({"_data_files": [{"filename": "d.arrow"}]}))
    with pytest.raises(ValueError, match="data file 'd.arrow' leads outside ds; not read"):
        import_hf(project, folder)
