"""Charts follow the theme: a dark palette gets dark chart chrome with readable text."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtGui import QColor, QPalette  # noqa: E402

from core.analysis.plots import figure_for  # noqa: E402
from core.analysis.results import EloChart, EloPanel  # noqa: E402
from ui.widgets.figure_theme import style_figure  # noqa: E402
from ui.widgets.theme import contrast  # noqa: E402


def _dark() -> QPalette:
    palette = QPalette()
    palette.setColor(QPalette.ColorRole.Window, QColor("#202124"))
    palette.setColor(QPalette.ColorRole.Base, QColor("#2b2c30"))
    palette.setColor(QPalette.ColorRole.WindowText, QColor("#e8eaed"))
    return palette


def _qcolor(colour) -> QColor:  # type: ignore[no-untyped-def]
    from matplotlib.colors import to_rgba

    return QColor.fromRgbF(*to_rgba(colour)[:3])


def test_a_dark_palette_gives_dark_readable_chart_chrome(qapp) -> None:  # type: ignore[no-untyped-def]
    fig = figure_for(EloChart(panels=[EloPanel("Elo", ["a", "b"], [1010.0, 990.0],
                                               [980.0, 960.0], [1040.0, 1020.0])],
                              ci=0.95, n_boot=100))
    assert _qcolor(fig.patch.get_facecolor()).lightnessF() > 0.9  # the report's paper
    palette = _dark()
    style_figure(fig, palette)
    background = _qcolor(fig.patch.get_facecolor())
    assert background.name() == palette.color(QPalette.ColorRole.Window).name()
    ax = fig.axes[0]
    base = _qcolor(ax.get_facecolor())
    for label in [ax.title, ax.xaxis.label, *ax.get_xticklabels(), *ax.get_yticklabels()]:
        assert contrast(_qcolor(label.get_color()), base) >= 4.5, label.get_text()
