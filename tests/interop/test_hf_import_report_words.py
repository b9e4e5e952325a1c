"""The import report after File → Import Hugging Face Dataset… (ADR 222): it said
"Everything in the file was imported" about a dataset folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyarrow")

from core.store import Project  # noqa: E402

pytestmark = pytest.mark.gui


def _report(window: Any, qtbot: Any, source: Path) -> str:
    from core.interop.hf_import import import_hf
    from ui.import_report import ImportReportDialog

    job = window.import_file(source, importer=import_hf)
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=60_000)
    qtbot.waitUntil(lambda: any(isinstance(w, ImportReportDialog) for w in window._dialogs))
    dialog = next(w for w in window._dialogs if isinstance(w, ImportReportDialog))
    text = str(dialog.summary.text())
    dialog.close()
    return text


def test_a_dataset_folder_is_reported_as_a_folder_of_rows(
        main_window: Any, qtbot: Any, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "ds"
    folder.mkdir()
    pq.write_table(pa.table({"prompt": ["a cat", "a dog"]}), folder / "train.parquet")
    Project.create(tmp_path / "p.winnow").close()
    assert main_window.open_project(tmp_path / "p.winnow")
    text = _report(main_window, qtbot, folder)
    assert "2 imported" in text
    assert "Every row in the dataset folder was imported." in text
    assert "file" not in text
