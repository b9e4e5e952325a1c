"""The jobs panel after a Hugging Face import in the GUI counts rows, not "line(s)" (a
dataset has no lines a user could look up)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyarrow")

from core.store import Project  # noqa: E402

pytestmark = pytest.mark.gui


def test_failed_rows_are_counted_as_rows(main_window, qtbot, tmp_path: Path
                                         ) -> None:  # type: ignore[no-untyped-def]
    import pyarrow as pa
    import pyarrow.parquet as pq

    from core.interop.hf_import import import_hf

    folder = tmp_path / "ds"
    folder.mkdir()
    pq.write_table(pa.table({"prompt": ["ok", None]}), folder / "train.parquet")
    Project.create(tmp_path / "p.winnow").close()
    assert main_window.open_project(tmp_path / "p.winnow")
    job = main_window.import_file(folder, importer=import_hf)
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=60_000)
    assert job.state.failures == ["ds: 1 row(s) could not be imported"]
