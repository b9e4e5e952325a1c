"""``import hf`` of an Arrow IPC *file* (``ARROW1`` magic: pyarrow's ``new_file``,
Feather 2) as well as the stream ``save_to_disk`` writes (ADR 200): it was refused with
"not a readable arrow file (Expected to read 1330795073 metadata bytes, but only read
…)", which said nothing a user could act on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")

TABLE = {"id": ["a", "b", "c"], "prompt": ["one", "two", "three"]}


def _ipc_file(path: Path) -> Path:
    table = pa.table(TABLE)
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table, max_chunksize=2)  # two record batches
    return path


def test_an_arrow_ipc_file_given_by_name_is_read(project: Project, tmp_path: Path) -> None:
    report = import_hf(project, _ipc_file(tmp_path / "train.arrow"))
    assert (report.rows, report.imported, report.errors) == (3, 3, [])
    assert dict(project.conn.execute("SELECT id, prompt FROM samples")) == dict(
        zip(TABLE["id"], TABLE["prompt"], strict=True))


def test_an_arrow_ipc_file_listed_by_state_json_is_read(project: Project,
                                                        tmp_path: Path) -> None:
    folder = tmp_path / "saved"
    folder.mkdir()
    _ipc_file(folder / "data-00000-of-00001.arrow")
    (folder / "state.json").write_text(json.dumps(
        {"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}))
    report = import_hf(project, folder)
    assert (report.rows, report.imported, report.errors) == (3, 3, [])


def test_a_cut_arrow_ipc_file_is_named(project: Project, tmp_path: Path) -> None:
    path = _ipc_file(tmp_path / "train.arrow")
    path.write_bytes(path.read_bytes()[:-40])
    with pytest.raises(ValueError, match=r"train\.arrow: not a readable arrow file"):
        import_hf(project, path)
