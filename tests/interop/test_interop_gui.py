"""The GUI: Export Benchmark's format choice, File → Import Hugging Face Dataset,
parquet from the Rate/Metrics exports, released photos as a dataset; jobs with Cancel."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
datasets = pytest.importorskip("datasets")

from interop_helpers import pattern, release  # noqa: E402

from core.store import Project  # noqa: E402
from ui.import_report import ImportReportDialog  # noqa: E402

pytestmark = pytest.mark.gui


def _export_dialog(window, qtbot):  # type: ignore[no-untyped-def]
    curate = window.pages["curate"]
    window.nav.setCurrentRow(0)
    curate.page_actions.export.trigger()
    return curate, curate._dialogs[-1]


def test_export_dialog_writes_a_hugging_face_folder(main_window, qtbot, bench_file: Path,
                                                    tmp_path: Path) -> None:
    assert main_window.open_project(bench_file)
    curate, dialog = _export_dialog(main_window, qtbot)
    assert dialog.format.itemData(1) == "hf"
    dialog.format.setCurrentIndex(1)
    assert dialog.overwrite.isEnabled() and "Hugging Face" in dialog.note.text()
    dialog.folder.setText(str(tmp_path / "hf"))
    dialog.accept()
    qtbot.waitUntil(lambda: (tmp_path / "hf" / "README.md").exists(), timeout=60_000)
    job = main_window.jobs_panel.rows[-1].job
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=30_000)
    assert job.outcome == "done"
    ds = datasets.load_dataset(str(tmp_path / "hf"))
    assert ds["image_to_image"]["id"] == ["s1", "s2"]


def test_export_dialog_names_the_extra_when_pyarrow_is_missing(qtbot, tmp_path: Path) -> None:
    from PySide6.QtCore import Qt

    from ui.curate.dialogs import ExportDialog

    dialog = ExportDialog(tmp_path, "3 samples", hf_missing="needs pyarrow: pip install "
                                                            "'winnow[parquet]'")
    qtbot.addWidget(dialog)
    assert not dialog.format.model().item(1).isEnabled()
    assert "winnow[parquet]" in dialog.format.itemData(1, Qt.ItemDataRole.ToolTipRole)
    assert "winnow[parquet]" in dialog.note.text()
    assert dialog.options()["fmt"] == "jsonl"


def test_cancel_from_the_jobs_panel_leaves_no_folder(main_window, qtbot, bench_file: Path,
                                                     tmp_path: Path, monkeypatch) -> None:
    from core.interop import shards

    gate, entered = threading.Event(), threading.Event()
    real = shards.ShardWriter.add

    def held(self, *a, **kw):  # type: ignore[no-untyped-def]
        entered.set()
        gate.wait(30)
        return real(self, *a, **kw)

    monkeypatch.setattr(shards.ShardWriter, "add", held)
    assert main_window.open_project(bench_file)
    curate, dialog = _export_dialog(main_window, qtbot)
    dialog.format.setCurrentIndex(1)
    dialog.folder.setText(str(tmp_path / "hf"))
    dialog.accept()
    qtbot.waitUntil(entered.is_set, timeout=30_000)
    row = main_window.jobs_panel.rows[-1]
    assert row.cancel.isEnabled()
    row.cancel.click()
    gate.set()
    qtbot.waitUntil(lambda: row.job.outcome != "running", timeout=30_000)
    assert row.job.outcome == "cancelled"
    assert not (tmp_path / "hf").exists()
    assert [n for n in (p.name for p in tmp_path.iterdir()) if n.startswith(".hf")] == []


def test_import_hugging_face_dataset_from_the_file_menu(main_window, qtbot, bench_file: Path,
                                                        tmp_path: Path, monkeypatch) -> None:
    from PySide6.QtWidgets import QFileDialog

    from core.interop.hf_export import export_benchmark_hf

    with Project.open(bench_file, readonly=True) as project:
        export_benchmark_hf(project, tmp_path / "hf")
    target = tmp_path / "new.winnow"
    Project.create(target).close()
    assert main_window.open_project(target)
    assert main_window.act_import_hf.isEnabled()
    assert main_window.act_import_hf in main_window.menuBar().actions()[0].menu().actions()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        staticmethod(lambda *a, **k: str(tmp_path / "hf")))
    main_window.act_import_hf.trigger()
    job = main_window.jobs_panel.rows[-1].job
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=60_000)
    qtbot.waitUntil(lambda: any(isinstance(w, ImportReportDialog)
                                for w in main_window._dialogs), timeout=5_000)
    dialog = next(w for w in main_window._dialogs if isinstance(w, ImportReportDialog))
    assert "3 imported" in dialog.summary.text()
    assert main_window.project.counts()["samples"] == 3


def test_import_report_names_rows(qtbot) -> None:
    report = {"rows": 3, "imported": 1, "updated": 0, "unchanged": 0,
              "errors": [{"split": "train", "row": 2, "file": "data/x.parquet",
                          "error": "'prompt' (the prompt) is empty"},
                         {"split": "test", "row": None, "file": "data/y.parquet",
                          "error": "not a readable parquet file"}],
              "images": {"fetched": 1, "failed": 1, "errors": [
                  {"split": "train", "row": 1, "column": "output_images[0]",
                   "error": "truncated PNG"}]}}
    dialog = ImportReportDialog("bench", report)
    qtbot.addWidget(dialog)
    assert dialog.line_table.horizontalHeaderItem(0).text() == "Row"
    assert dialog.line_table.item(0, 0).text() == "train row 2"
    assert dialog.line_table.item(1, 0).text() == "data/y.parquet"
    assert dialog.image_table.item(0, 0).text() == "output_images[0]"
    assert dialog.image_table.item(0, 1).text() == "train row 1"
    assert "2 row(s) could not be imported" in dialog.summary.text()


def test_released_photos_export_from_the_anonymize_menu(main_window, qtbot,
                                                        tmp_path: Path) -> None:
    path = tmp_path / "ph.winnow"
    project = Project.create(path)
    pattern((30, 20), 4).save(tmp_path / "a.png")
    release(project, tmp_path / "a.png", category="Nature", credit="Di")
    project.close()
    assert main_window.open_project(path)
    ws = main_window.pages["anonymize"]
    assert ws.page_actions.act_export_dataset in ws.workspace_menu().actions()
    job = ws.jobs.export_released_dataset(tmp_path / "photos")
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=60_000)
    assert datasets.load_dataset(str(tmp_path / "photos"))["train"]["category"] == ["Nature"]


def test_metrics_and_rating_exports_write_parquet_by_name(main_window, qtbot,
                                                          tmp_path: Path) -> None:
    import pandas as pd

    from core.metrics.base import MetricResult
    from core.metrics.store import save_results
    from core.store.project import now_iso

    path = tmp_path / "m.winnow"
    project = Project.create(path)
    with project.transaction() as conn:
        conn.execute("INSERT INTO samples(id, prompt, original_prompt, created_at, "
                     "modified_at) VALUES ('s1', 'p', 'p', ?, ?)", (now_iso(), now_iso()))
    save_results(project, "colour_shift", 1, {}, "h", [
        ("s1", "m1", "x", MetricResult("ok", 0.5, {}), 0.1)])
    project.close()
    assert main_window.open_project(path)
    metrics = main_window.pages["metrics"]
    assert metrics.export_to(str(tmp_path / "r.parquet")) == 1
    assert pd.read_parquet(tmp_path / "r.parquet")["value"].tolist() == [0.5]
    rate = main_window.pages["rate"]
    assert rate.export("no such session", tmp_path / "x.parquet") is None  # a message, no crash
