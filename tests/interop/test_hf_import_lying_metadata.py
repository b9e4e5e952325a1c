"""``import hf`` and a save_to_disk folder whose JSON lies: ``splits`` or
``_data_files`` that are not lists, or no splits at all, refuse the import with one line
naming the file (exit 2); they ended it with a TypeError traceback and exit 1, or with
"nothing can be imported: " and nothing after it. A refused file is named once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import run_cli

pa = pytest.importorskip("pyarrow")


def _saved(tmp_path: Path, splits: object, data_files: object = None) -> Path:
    folder = tmp_path / "ds"
    (folder / "train").mkdir(parents=True)
    (folder / "dataset_dict.json").write_text(json.dumps({"splits": splits}))
    if data_files is not None:
        (folder / "train" / "state.json").write_text(json.dumps({"_data_files": data_files}))
    return folder


@pytest.mark.parametrize(("splits", "data_files", "expected"), [
    (5, None, "dataset_dict.json: 'splits' must be a list of split names"),
    ({"train": 1}, None, "dataset_dict.json: 'splits' must be a list of split names"),
    (["train"], 5, "state.json: '_data_files' must be a list"),
    (["train"], {"filename": "x.arrow"}, "state.json: '_data_files' must be a list"),
    ([], None, "dataset_dict.json lists no splits"),
    (["train"], [], "nothing can be imported: it lists no data files"),
])
def test_lying_save_to_disk_json_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], splits: object,
        data_files: object, expected: str) -> None:
    folder = _saved(tmp_path, splits, data_files)
    assert run_cli(["import", "hf", str(folder), "--project", str(tmp_path / "p.winnow")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert expected in err, err
    assert not (tmp_path / "p.winnow").exists()


def test_a_refused_file_is_named_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    folder = tmp_path / "ds"
    folder.mkdir()
    (folder / "train.parquet").write_text("prompt,id\nx,1\n")  # a CSV renamed
    assert run_cli(["import", "hf", str(folder), "--project", str(tmp_path / "p.winnow")]) == 2
    err = capsys.readouterr().err
    assert err.count("train.parquet") == 1, err
    assert "not a readable parquet file" in err
