"""Boxes that reach past a screenshot's edge or lie wholly off it (only an import can
store those; Curate clips what is drawn, ADR 190): the crop preview shows what the
export writes, and says so when it writes nothing (ADR 205)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from core.curate.export import export_benchmark  # noqa: E402
from core.store import Project  # noqa: E402
from tests.curate.test_curate_gui import Harness  # noqa: E402


def _set_boxes(project: Project, input_box: tuple[int, int, int, int],
               output_box: tuple[int, int, int, int]) -> None:
    """Store s2's boxes (on its 240×160 screenshot) as an import would."""
    with project.transaction() as conn:
        for role, box in (("input", input_box), ("output", output_box)):
            conn.execute("UPDATE sample_images SET bbox_x=?, bbox_y=?, bbox_w=?, bbox_h=? "
                         "WHERE sample_id = 's2' AND role = ?", (*box, role))


def test_preview_cuts_a_box_as_the_export_does(qtbot, curate_project: Project,
                                               tmp_path: Path) -> None:
    _set_boxes(curate_project, (200, 120, 100, 100), (-30, -20, 50, 40))
    h = Harness(qtbot, curate_project)
    h.select("s2")
    crops = dict(h.ws.view.images.preview.crops)
    assert (crops["input 1"].width(), crops["input 1"].height()) == (40, 40)
    assert (crops["output 1"].width(), crops["output 1"].height()) == (20, 20)
    with curate_project.transaction() as conn:
        conn.execute("UPDATE samples SET quality = 'Benchmark' WHERE id = 's2'")
    report = export_benchmark(curate_project, tmp_path / "out", qualities=("Benchmark",))
    assert not report.skipped
    from PIL import Image

    sizes = {p.stem: Image.open(p).size for p in (tmp_path / "out/images/s2").iterdir()}
    assert sizes == {"input_0": (40, 40), "output_0": (20, 20)}


def test_preview_says_a_box_off_the_image_is_not_exported(qtbot,
                                                          curate_project: Project) -> None:
    _set_boxes(curate_project, (1000, 1000, 50, 50), (100, 30, 120, 100))
    h = Harness(qtbot, curate_project)
    h.select("s2")
    preview = h.ws.view.images.preview
    crops = dict(preview.crops)
    assert crops["input 1"].isNull() and not crops["output 1"].isNull()
    label = preview.labels[[t for t, _ in preview.crops].index("input 1")]
    assert "outside the image" in label.text() and "not exported" in label.text()
    assert label.pixmap().isNull()
