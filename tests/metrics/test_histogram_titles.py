"""Metrics → Distributions at 1024 pixels: the panels' titles (model, n, mean) neither
overlap one another nor run off the figure (five models' "n=32, mean 0.83" lines ran
into each other and the last one was cut at the right edge)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("matplotlib")
pytestmark = pytest.mark.gui

from core.metrics.store import ResultRow  # noqa: E402
from ui.metrics.histograms import HistogramCanvas  # noqa: E402

MODELS = ["@sample", "aurora-xl", "brushwork-2", "lumen-edit", "pixelforge"]


def _rows(models: list[str] = MODELS) -> list[ResultRow]:
    return [ResultRow(f"demo-{i:03d}", model, "colour_shift", "ok", 0.1234567 + i / 97,
                      {}, None, 1, {}, "h", "2025-01-01T00:00:00Z", 0.1)
            for m, model in enumerate(models) for i in range(30 + m)]


@pytest.mark.parametrize("long_name", [False, True])
def test_titles_fit_their_panels_at_the_smallest_window(qtbot,  # type: ignore[no-untyped-def]
                                                        long_name: bool) -> None:
    """Also with a 120-character model name (it ran over its neighbours' titles)."""
    models = list(MODELS)
    if long_name:
        models[2] = "brushwork-" + "x" * 110 + "-$v2$"
    canvas = HistogramCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(560, 620)  # the Distributions tab of a 1024 x 700 window
    canvas.show()
    qtbot.waitExposed(canvas)
    canvas.show_rows(_rows(models), {"colour_shift": "Colour shift"})
    figure = canvas.figure
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    page = figure.bbox
    boxes = [ax.title.get_window_extent(renderer) for ax in figure.axes]
    assert len(boxes) == len(MODELS)
    for box in boxes:
        assert page.x0 <= box.x0 and box.x1 <= page.x1  # not cut at the figure's edge
    for left, right in zip(boxes, boxes[1:], strict=False):
        assert left.x1 <= right.x0  # side by side, not over each other


def test_one_value_sits_inside_its_axis_and_the_direction_is_said(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Face identity of one output (1.0) drew ticks 0–1 with an offset "1e-6+1" over the
    axis label and the bar at "0"; and the panels never said which way is better."""
    canvas = HistogramCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(560, 620)
    canvas.show()
    qtbot.waitExposed(canvas)
    row = ResultRow("demo-001", "@sample", "face_identity", "ok", 1.0, {}, None, 1, {}, "h",
                    "2025-01-01T00:00:00Z", 0.1)
    canvas.show_rows([row], {"face_identity": "Face identity"}, {"face_identity": True})
    figure = canvas.figure
    figure.canvas.draw()
    (ax,) = figure.axes
    lo, hi = ax.get_xlim()
    assert lo < 0.99 and hi > 1.01  # the value is inside, with room either side
    assert ax.xaxis.get_offset_text().get_text() == ""
    assert "higher is better" in ax.get_ylabel()
    canvas.show_rows(_rows(), {"colour_shift": "Colour shift"}, {"colour_shift": False})
    figure.canvas.draw()
    assert "lower is better" in figure.axes[0].get_ylabel()
