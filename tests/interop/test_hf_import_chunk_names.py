"""``import hf`` names each chunk it hands to the importer after the dataset and split;
a split listed as a nested folder (``sub/train``) or a dataset folder whose name is near
the file-name limit ended the whole import with "cannot write …hf-import…/chunk1/…:
No such file or directory / File name too long" (a hidden scratch path). The chunk's
name is one bounded component, and the rows import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _save_to_disk(folder: Path, prompts: list[str]) -> None:
    folder.mkdir(parents=True)
    table = pa.table({"prompt": prompts})
    with pa.ipc.new_stream(str(folder / "data-00000-of-00001.arrow"), table.schema) as w:
        w.write_table(table)
    (folder / "state.json").write_text(
        json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}))


def test_a_split_in_a_nested_folder_imports(project: Project, tmp_path: Path) -> None:
    folder = tmp_path / "ds"
    _save_to_disk(folder / "sub" / "train", ["a", "b"])
    (folder / "dataset_dict.json").write_text(json.dumps({"splits": ["sub/train"]}))
    report = import_hf(project, folder)
    assert (report.imported, report.errors) == (2, [])
    assert project.conn.execute("SELECT id FROM samples ORDER BY id").fetchall() == [
        ("ds/sub/train/0",), ("ds/sub/train/1",)]


@pytest.mark.parametrize("where", ["dataset", "split"])
def test_names_near_the_file_name_limit_import(project: Project, tmp_path: Path,
                                               where: str) -> None:
    long = "L" * 240
    if where == "dataset":
        folder = tmp_path / long
        folder.mkdir()
        pq.write_table(pa.table({"prompt": ["a"]}), folder / "train.parquet")
    else:
        folder = tmp_path / "ds"
        _save_to_disk(folder / long, ["a"])
        (folder / "dataset_dict.json").write_text(json.dumps({"splits": [long]}))
    report = import_hf(project, folder)
    assert (report.imported, report.errors) == (1, [])
