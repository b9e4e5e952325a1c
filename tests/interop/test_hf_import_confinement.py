"""``import hf`` reads nothing outside the dataset folder: a parquet file that is a link
to a file elsewhere is named and skipped (the other files import), and a
``dataset_dict.json`` whose split leads outside (``..``, an absolute path, a linked
folder) is refused by name before any file there is opened."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A folder beside the dataset holding a user's private table and a saved dataset."""
    folder = tmp_path / "private"
    (folder / "saved").mkdir(parents=True)
    pq.write_table(pa.table({"prompt": ["PRIVATE"]}), folder / "mine.parquet")
    (folder / "saved" / "state.json").write_text(
        json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}))
    table = pa.table({"prompt": ["PRIVATE"]})
    with pa.ipc.new_stream(str(folder / "saved" / "data-00000-of-00001.arrow"),
                           table.schema) as writer:
        writer.write_table(table)
    return folder


def test_a_linked_parquet_file_leading_outside_is_named_and_not_read(
        project: Project, tmp_path: Path, elsewhere: Path) -> None:
    folder = tmp_path / "ds"
    (folder / "data").mkdir(parents=True)
    pq.write_table(pa.table({"prompt": ["mine"]}), folder / "data" / "train-00000-of-00002.parquet")
    (folder / "data" / "train-00001-of-00002.parquet").symlink_to(elsewhere / "mine.parquet")
    (folder / "data" / "inside.parquet").symlink_to(
        folder / "data" / "train-00000-of-00002.parquet")  # a link inside is fine
    report = import_hf(project, folder)
    prompts = [p for (p,) in project.conn.execute("SELECT prompt FROM samples")]
    assert "PRIVATE" not in prompts and prompts == ["mine"]  # the inside link: read once
    assert [(e["file"], e["row"]) for e in report.errors] == [
        ("data/train-00001-of-00002.parquet", None)]
    assert "outside ds" in report.errors[0]["error"]


def test_only_linked_files_leading_outside_refuse_the_import(
        project: Project, tmp_path: Path, elsewhere: Path) -> None:
    folder = tmp_path / "ds"
    folder.mkdir()
    (folder / "train.parquet").symlink_to(elsewhere / "mine.parquet")
    with pytest.raises(ValueError, match="train.parquet.*outside ds"):
        import_hf(project, folder)
    assert project.conn.execute("SELECT count(*) FROM samples").fetchone()[0] == 0


@pytest.mark.parametrize("split", ["../private/saved", "ABSOLUTE", "linked"])
def test_a_split_leading_outside_is_refused_by_name(
        project: Project, tmp_path: Path, elsewhere: Path, split: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "ds"
    folder.mkdir()
    if split == "ABSOLUTE":
        split = str(elsewhere / "saved")
    if split == "linked":
        (folder / "linked").symlink_to(elsewhere / "saved")
    (folder / "dataset_dict.json").write_text(json.dumps({"splits": [split]}))
    opened: list[str] = []
    real_read_text = Path.read_text

    def spy(self: Path, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(str(self))
        return real_read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", spy)
    with pytest.raises(ValueError) as caught:
        import_hf(project, folder)
    message = str(caught.value)
    assert "dataset_dict.json" in message and repr(split) in message
    assert "not a folder inside ds" in message
    assert not [p for p in opened if "private" in p]
