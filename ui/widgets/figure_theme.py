"""matplotlib figures drawn in the palette of the app (a dark theme gets dark charts).

core/analysis/plots.py draws Qt-free figures for the HTML report (white paper); the GUI
recolours the chrome of each figure — background, axes, ticks, labels, titles, legend —
from the palette in use, and again when the palette changes. Data colours (series,
heatmaps) are left as drawn: they are chosen to read on light and dark alike.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QColor, QGuiApplication, QPalette

from ui.widgets.theme import mix


def _rgb(colour: QColor) -> tuple[float, float, float]:
    return colour.redF(), colour.greenF(), colour.blueF()


def style_figure(figure: Any, palette: QPalette | None = None) -> None:
    """Recolour ``figure``'s background and text in ``palette`` (the app's by default)."""
    palette = palette or QGuiApplication.palette()
    window = palette.color(QPalette.ColorRole.Window)
    base = palette.color(QPalette.ColorRole.Base)
    text = palette.color(QPalette.ColorRole.WindowText)
    subtle = mix(text, base, 0.55)
    figure.patch.set_facecolor(_rgb(window))
    for text_artist in figure.texts:
        text_artist.set_color(_rgb(text))
    if getattr(figure, "_suptitle", None) is not None:
        figure._suptitle.set_color(_rgb(text))
    for ax in figure.axes:
        ax.set_facecolor(_rgb(base))
        for spine in ax.spines.values():
            spine.set_edgecolor(_rgb(subtle))
        ax.tick_params(colors=_rgb(text), which="both")
        for label in (ax.title, ax.xaxis.label, ax.yaxis.label):
            label.set_color(_rgb(text))
        for line in ax.get_xgridlines() + ax.get_ygridlines():
            line.set_color(_rgb(mix(text, base, 0.85)))
        legend = ax.get_legend()
        if legend is not None:
            legend.get_frame().set_facecolor(_rgb(base))
            legend.get_frame().set_edgecolor(_rgb(subtle))
            for item in legend.get_texts():
                item.set_color(_rgb(text))
