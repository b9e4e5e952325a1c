"""Metrics workspace in the real main window (offscreen): run, progress, results, drill-down."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from metrics_helpers import add_sample, add_session, gradient_image, yellow_tint  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.metrics.colour_shift import ColourShift  # noqa: E402
from core.store import Project  # noqa: E402
from ui.metrics.settings_dialog import load_settings  # noqa: E402
from ui.metrics.workspace import MetricsWorkspace  # noqa: E402


@pytest.fixture
def window(main_window: MainWindow) -> MainWindow:
    return main_window


def _project(tmp_path: Path, n: int = 6) -> Path:
    path = tmp_path / "m.winnow"
    with Project.create(path) as p:
        for k in range(n):
            base = gradient_image(seed=k)
            add_sample(p, f"s{k:02d}", f"edit {k}", [base],
                       {"tinted": yellow_tint(base), "same": base.copy()})
        add_sample(p, "t2i", "a bicycle", [], {"tinted": gradient_image(seed=50)})
    return path


def _page(window: MainWindow, qtbot) -> MetricsWorkspace:
    index = next(i for i in range(window.nav.count()) if window.nav.item(i).text() == "Metrics")
    qtbot.keyClick(window, Qt.Key.Key_1 + index, Qt.KeyboardModifier.ControlModifier)
    page = window.stack.currentWidget()
    assert isinstance(page, MetricsWorkspace)
    return page


def test_empty_state_then_run_results_histograms_drilldown(window, qtbot, tmp_path) -> None:
    page = _page(window, qtbot)
    assert page.stack.currentIndex() == 0  # no project: the explanatory empty state
    assert window.open_project(_project(tmp_path))
    assert page.stack.currentIndex() == 1
    models = [page.models.item(i).data(Qt.ItemDataRole.UserRole)
              for i in range(page.models.count())]
    assert models == ["same", "tinted"]
    assert page.checked(page.metrics) == ["colour_shift"]
    assert "7 samples" in page.selection_label.text()

    page.table.setFocus()
    qtbot.keyClick(page.table, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert page.job is not None and not page.run_button.isEnabled()
    job = page.job
    qtbot.waitUntil(lambda: job.outcome != "running" and page.job is None, timeout=90_000)
    assert job.outcome == "done"
    assert "12 computed" in page.status.text()
    assert page.progress.value() == page.progress.maximum() == 13
    assert page.model.rowCount() == 12  # not-applicable row hidden by default
    page.hide_na.setChecked(False)
    assert page.model.rowCount() == 13
    assert page.hist.panels == {"colour_shift": {"same": 6, "tinted": 6}}
    # the results summary is a long line: it wraps rather than widening the window
    assert len(page.summary.text()) > 80 and page.minimumSizeHint().width() < 900

    page.hide_na.setChecked(True)
    row = next(k for k, r in enumerate(page.model.rows)
               if (r.sample_id, r.model) == ("s02", "tinted"))
    rect = page.table.visualRect(page.model.index(row, 0))
    qtbot.mouseClick(page.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(page.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert page.tabs.currentWidget() is page.drill
    assert page.drill.current == ("s02", "tinted")
    assert not page.drill.input_panel._pixmap.isNull()
    assert not page.drill.output_panel._pixmap.isNull()
    assert page.drill.table.item(0, 0).text() == "Colour shift"
    from ui.metrics.drilldown import DETAIL_COLUMNS

    details = page.drill.table.item(0, DETAIL_COLUMNS.index("Details")).text()
    assert "b* shift" in details and "b_shift" not in details  # labels, not keys (ADR 217)
    assert page.drill.table.item(0, DETAIL_COLUMNS.index("Better")).text() == "↓ lower"

    job = page.run()  # unchanged images: everything comes from the cache
    qtbot.waitUntil(lambda: job.outcome != "running" and page.job is None, timeout=90_000)
    assert "0 computed, 13 cached" in page.status.text()


def test_cancel_keeps_partial_results(window, qtbot, tmp_path, monkeypatch) -> None:
    original = ColourShift.compute

    def slow(self, model, prepared, device):  # type: ignore[no-untyped-def]
        time.sleep(0.3)
        return original(self, model, prepared, device)

    monkeypatch.setattr(ColourShift, "compute", slow)
    monkeypatch.setattr(ColourShift, "batch_size", 2)
    page = _page(window, qtbot)
    assert window.open_project(_project(tmp_path, n=12))
    qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)
    job = page.job
    qtbot.waitUntil(lambda: page.progress.value() >= 3, timeout=90_000)
    qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: job.outcome != "running" and page.job is None, timeout=90_000)
    assert job.outcome == "cancelled"
    assert "Cancelled" in page.status.text()
    assert 0 < page.model.rowCount() < 24
    assert page.run_button.isEnabled() and not page.cancel_button.isEnabled()


def test_settings_keep_the_key_out_of_the_project(window, qtbot, tmp_path,
                                                  monkeypatch) -> None:
    monkeypatch.delenv("WINNOW_JUDGE_API_KEY", raising=False)
    page = _page(window, qtbot)
    project_path = _project(tmp_path, n=1)
    assert window.open_project(project_path)
    page.open_settings()
    dialog = page.settings_dialog
    dialog.url.setText("http://127.0.0.1:8000/v1")
    dialog.models.setText("judge-a, judge-b")
    qtbot.keyClicks(dialog.key, "sk-secret-123")
    dialog.save()
    settings = load_settings()
    assert [j.model for j in settings.judges] == ["judge-a", "judge-b"]
    assert settings.judges[0].api_key == "sk-secret-123"
    window.close_project()
    assert b"sk-secret-123" not in project_path.read_bytes()


def test_rating_session_as_selection(window, qtbot, tmp_path) -> None:
    path = _project(tmp_path, n=4)
    with Project.open(path) as p:
        add_session(p, "pilot", [("s01", "tinted"), ("s03", "tinted")])
    page = _page(window, qtbot)
    assert window.open_project(path)
    assert page.source.count() == 2 and "pilot (2 samples)" in page.source.itemText(1)
    page.source.setCurrentIndex(1)
    assert page.sample_ids == ["s01", "s03"] and page.checked(page.models) == ["tinted"]
    assert "session pilot" in page.selection_label.text()
    job = page.run()
    qtbot.waitUntil(lambda: job.outcome != "running" and page.job is None, timeout=90_000)
    assert {(r.sample_id, r.model) for r in page.model.rows} == {("s01", "tinted"),
                                                                ("s03", "tinted")}


def test_settings_say_whether_each_model_can_be_loaded(window, qtbot, tmp_path, tiny_dino,
                                                      monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    page = _page(window, qtbot)
    page.open_settings()
    dialog = page.settings_dialog
    dialog.dino[1].clear()
    qtbot.keyClicks(dialog.dino[1], str(tiny_dino))
    assert dialog.dino_status.property("found") is True
    assert dialog.dino_status.text().startswith("✓ found (local folder, vit)")
    dialog.dino[1].setText("facebook/dino-vitb8")  # an id that is not in this cache
    assert dialog.dino_status.property("found") is False
    assert "not in the Hugging Face cache" in dialog.dino_status.text()
    dialog.dino[1].setText(str(tmp_path))  # a folder without a saved model
    assert "no config.json" in dialog.dino_status.text()
    dialog.dino[1].setText(str(tmp_path / "missing" / "model"))
    assert dialog.dino_status.text() == "✗ no such folder"
    dialog.clip[1].setText(str(tiny_dino))  # a DINO ViT is not a CLIP model
    assert dialog.clip_status.property("found") is False
    assert dialog.clip_status.text() == "✗ a 'vit' model, not a 'clip' model (local folder)"
    dialog.reject()
