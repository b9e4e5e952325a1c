"""``import hf`` ids for rows without one (ADR 200): two datasets in folders of one name
(``data``) made the same ``data/train/0`` ids, so the second import replaced the first's
samples; the same dataset imported again (from its folder, or moved) must still make
the ids it made before, and a project made before the ids were recorded keeps its own."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _dataset(folder: Path, prompts: list[str]) -> Path:
    folder.mkdir(parents=True)
    pq.write_table(pa.table({"prompt": prompts}), folder / "train.parquet")
    return folder


def _samples(project: Project) -> dict[str, str]:
    return dict(project.conn.execute("SELECT id, prompt FROM samples").fetchall())


def test_two_datasets_in_folders_of_one_name_keep_their_own_rows(
        project: Project, tmp_path: Path) -> None:
    first = _dataset(tmp_path / "a" / "data", ["cat", "dog"])
    second = _dataset(tmp_path / "b" / "data", ["sun", "moon", "star"])
    assert import_hf(project, first).imported == 2
    report = import_hf(project, second)
    assert (report.imported, report.updated, report.errors) == (3, 0, [])
    assert _samples(project) == {"data/train/0": "cat", "data/train/1": "dog",
                                 "data-2/train/0": "sun", "data-2/train/1": "moon",
                                 "data-2/train/2": "star"}
    for folder, n in ((first, 2), (second, 3)):  # each recognised again
        again = import_hf(project, folder)
        assert (again.imported, again.updated, again.unchanged) == (0, 0, n)
    assert len(_samples(project)) == 5


def test_a_dataset_moved_elsewhere_is_recognised_by_its_files(project: Project,
                                                              tmp_path: Path) -> None:
    import_hf(project, _dataset(tmp_path / "a" / "data", ["cat", "dog"]))
    moved = tmp_path / "elsewhere" / "renamed"
    moved.parent.mkdir()
    shutil.move(tmp_path / "a" / "data", moved)
    again = import_hf(project, moved)
    assert (again.imported, again.unchanged) == (0, 2)
    assert set(_samples(project)) == {"data/train/0", "data/train/1"}


def test_a_project_made_before_the_record_re_imports_as_before(project: Project,
                                                               tmp_path: Path) -> None:
    first = _dataset(tmp_path / "a" / "data", ["cat", "dog"])
    import_hf(project, first)
    with project.transaction() as conn:  # as an earlier version left it, with a
        conn.execute("DELETE FROM project_meta WHERE key LIKE 'hf_import_ids:%'")
        conn.execute("INSERT INTO samples(id, prompt, created_at, modified_at) "
                     "VALUES ('data-2/train/0', 'old', '', '')")  # folder named data-2
    again = import_hf(project, first)
    assert (again.imported, again.unchanged) == (0, 2)
    other = import_hf(project, _dataset(tmp_path / "b" / "data", ["sun"]))
    assert (other.imported, other.updated) == (1, 0)
    assert _samples(project) == {"data/train/0": "cat", "data/train/1": "dog",
                                 "data-2/train/0": "old", "data-3/train/0": "sun"}


def test_a_dataset_with_its_own_ids_records_nothing(project: Project,
                                                    tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    pq.write_table(pa.table({"id": ["a"], "prompt": ["p"]}), folder / "train.parquet")
    import_hf(project, folder)
    assert project.conn.execute("SELECT count(*) FROM project_meta WHERE key LIKE "
                                "'hf_import_ids:%'").fetchone()[0] == 0
