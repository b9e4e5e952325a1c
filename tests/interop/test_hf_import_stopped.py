"""``import hf`` when the project stops taking writes (a full disk) part way: the error
says from which split and row on nothing was imported, not "stopped at line 1" of a
hidden chunk file, and the rows of earlier chunks are kept. It was taken for a damaged
data file (both are ValueErrors), the import went on, and the unfinished chunk was handed
over again: FileExistsError naming the hidden working folder."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.ingest.importer import ImportStoppedError
from core.ingest.writer import Writer
from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def test_a_full_disk_names_the_row_the_import_stopped_at(
        project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pq.write_table(pa.table({"id": [f"s{k}" for k in range(7)], "prompt": ["p"] * 7}),
                   tmp_path / "test.parquet")
    real = Writer.write

    def full_from_row_3(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "from-row-3" in self.file_name:  # the second chunk
            raise sqlite3.OperationalError("database or disk is full")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Writer, "write", full_from_row_3)
    with pytest.raises(ImportStoppedError) as caught:
        import_hf(project, tmp_path / "test.parquet", chunk_rows=3)
    message = str(caught.value)
    assert "the import stopped at test row 3" in message, message
    assert "line" not in message and "import the dataset again" in message
    assert project.conn.execute("SELECT count(*) FROM samples").fetchone()[0] == 3
