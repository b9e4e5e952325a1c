"""Colours from the palette: light and dark themes, semantic tones, WCAG contrast.

Nothing in ``ui`` hard-codes a chrome colour (ADR 082). A widget that needs a banner
background or coloured text asks for a *tone* ("danger", "warning", "success", "info",
"muted"); the colour is derived from the palette in use, so it stays readable (contrast
ratio ≥ 4.5, WCAG 2.x) in a light and a dark theme, and follows a theme switch.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory, QWidget

#: what View → Theme offers; "system" keeps the platform's own palette
THEMES = ("system", "light", "dark")
#: WCAG AA for normal text
MIN_CONTRAST = 4.5
#: what :func:`readable` aims at, so rounding to 8-bit channels never drops below 4.5
_TARGET = MIN_CONTRAST + 0.1

#: the hue each tone is tinted with (mixed into the palette's window colour)
TONE_HUES = {
    "danger": QColor(220, 53, 69),
    "warning": QColor(232, 160, 0),
    "success": QColor(40, 167, 69),
    "info": QColor(47, 125, 225),
}
_PROPERTY = "winnowTone"
_original: tuple[str, QPalette] | None = None  # the platform's style and palette


# -- colour arithmetic ------------------------------------------------------------------
def luminance(colour: QColor) -> float:
    """WCAG 2.x relative luminance of an sRGB colour."""
    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    return (0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF())
            + 0.0722 * channel(colour.blueF()))


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours (1 … 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def mix(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` moved a fraction ``t`` of the way to ``b``."""
    return QColor.fromRgbF(a.redF() + (b.redF() - a.redF()) * t,
                           a.greenF() + (b.greenF() - a.greenF()) * t,
                           a.blueF() + (b.blueF() - a.blueF()) * t)


def readable(colour: QColor, background: QColor, ratio: float = _TARGET) -> QColor:
    """``colour``, darkened or lightened (towards black or white, whichever the background
    leaves more room for) just enough to reach ``ratio`` against ``background``."""
    if contrast(colour, background) >= ratio:
        return QColor(colour)
    end = QColor(0, 0, 0) if luminance(background) > 0.18 else QColor(255, 255, 255)
    lo, hi = 0.0, 1.0
    for _ in range(14):
        t = (lo + hi) / 2
        if contrast(mix(colour, end, t), background) >= ratio:
            hi = t
        else:
            lo = t
    return mix(colour, end, hi)


def is_dark(palette: QPalette | None = None) -> bool:
    """Whether the palette's windows are dark (light text on dark ground)."""
    palette = palette or QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightnessF() < 0.5


# -- tones ------------------------------------------------------------------------------
def tone_colours(tone: str, palette: QPalette | None = None) -> tuple[QColor, QColor]:
    """(background, text) of a tinted banner in ``tone``."""
    palette = palette or QGuiApplication.palette()
    window = palette.color(QPalette.ColorRole.Window)
    background = mix(window, TONE_HUES[tone], 0.30 if is_dark(palette) else 0.20)
    return background, readable(palette.color(QPalette.ColorRole.WindowText), background)


def tone_text(tone: str, palette: QPalette | None = None,
              role: QPalette.ColorRole = QPalette.ColorRole.Window) -> QColor:
    """Text colour in ``tone`` ("muted" = secondary text) readable on the palette's
    ``role`` colour (Window for labels, Base for lists and tables)."""
    palette = palette or QGuiApplication.palette()
    background = palette.color(role)
    if tone == "muted":
        text = palette.color(QPalette.ColorRole.Text if role == QPalette.ColorRole.Base
                             else QPalette.ColorRole.WindowText)
        return readable(mix(text, background, 0.35), background)
    return readable(TONE_HUES[tone], background)


def span_style(tone: str, *, text_only: bool = False,
               role: QPalette.ColorRole = QPalette.ColorRole.Window) -> str:
    """CSS for a rich-text ``<span style=…>`` in ``tone`` (computed now from the palette;
    rich text is re-rendered when its content changes)."""
    if text_only:
        return f"color:{tone_text(tone, role=role).name()}"
    background, text = tone_colours(tone)
    return f"background:{background.name()};color:{text.name()}"


def set_tone(widget: QWidget, tone: str, css: str = "", *, text_only: bool = False,
             border: bool = False) -> None:
    """Colour ``widget`` in ``tone``: a tinted background with readable text, or (with
    ``text_only``) coloured text; ``css`` adds layout rules (padding, weight). The
    colours follow later theme changes (:func:`apply_theme`)."""
    value = f"{'text' if text_only else 'bg'}:{tone}:{int(border)}:{css}"
    if widget.property(_PROPERTY) == value and widget.styleSheet():
        return  # unchanged (e.g. a banner re-set on every redraw): no re-polish
    widget.setProperty(_PROPERTY, value)
    _apply_tone(widget)


def clear_tone(widget: QWidget) -> None:
    """Back to the palette's plain colours (no tone, no style sheet)."""
    if widget.property(_PROPERTY):
        widget.setProperty(_PROPERTY, None)
        widget.setStyleSheet("")


def _apply_tone(widget: QWidget) -> None:
    kind, tone, border, css = str(widget.property(_PROPERTY)).split(":", 3)
    if kind == "text":
        rules = f"color: {tone_text(tone).name()};"
    else:
        background, text = tone_colours(tone)
        rules = f"background-color: {background.name()}; color: {text.name()};"
        if border == "1":
            edge = mix(background, TONE_HUES[tone], 0.6)
            rules += f" border: 1px solid {edge.name()}; border-radius: 3px;"
    selector = f'*[{_PROPERTY}="{widget.property(_PROPERTY)}"]'
    widget.setStyleSheet(f"{selector} {{ {rules} {css} }}")


def refresh_tones() -> None:
    """Recompute every toned widget's colours from the current palette."""
    for widget in QApplication.allWidgets():
        if widget.property(_PROPERTY):
            _apply_tone(widget)


# -- themes -----------------------------------------------------------------------------
def dark_palette() -> QPalette:
    """Winnow's dark palette (Fusion style): every text role ≥ 4.5:1 on its ground.

    Fields and lists (Base) are lighter than the window, as in macOS's dark mode: Fusion
    outlines check boxes in a darkened window colour, which vanishes on a darker Base.
    """
    p = QPalette()
    role, group = QPalette.ColorRole, QPalette.ColorGroup
    colours = {
        role.Window: (34, 34, 37), role.WindowText: (232, 232, 232),
        role.Base: (56, 56, 61), role.AlternateBase: (63, 63, 68),
        role.ToolTipBase: (64, 64, 68), role.ToolTipText: (236, 236, 236),
        role.PlaceholderText: (160, 160, 160), role.Text: (232, 232, 232),
        role.Button: (66, 66, 71), role.ButtonText: (232, 232, 232),
        role.BrightText: (255, 110, 110), role.Light: (92, 92, 98),
        role.Midlight: (76, 76, 82), role.Mid: (30, 30, 32), role.Dark: (20, 20, 22),
        role.Shadow: (0, 0, 0), role.Highlight: (38, 100, 190),
        role.HighlightedText: (255, 255, 255), role.Link: (110, 170, 255),
        role.LinkVisited: (180, 140, 255), role.Accent: (38, 100, 190),
    }
    for r, rgb in colours.items():
        p.setColor(r, QColor(*rgb))
    for r in (role.WindowText, role.Text, role.ButtonText):
        p.setColor(group.Disabled, r, QColor(128, 128, 128))
    p.setColor(group.Disabled, role.Highlight, QColor(70, 70, 74))
    return p


def light_palette() -> QPalette:
    """Fusion's standard light palette, its selection darkened to 4.5:1 under white text."""
    p = QStyleFactory.create("Fusion").standardPalette()
    role = QPalette.ColorRole
    highlight = readable(p.color(role.Highlight), p.color(role.HighlightedText))
    for r in (role.Highlight, role.Accent):
        p.setColor(QPalette.ColorGroup.Active, r, highlight)
        p.setColor(QPalette.ColorGroup.Inactive, r, highlight)
    return p


def apply_theme(app: QApplication, theme: str, style_sheet: str = "") -> None:
    """Switch the running application to ``theme`` (one of :data:`THEMES`) and install
    ``style_sheet`` (Winnow's QSS, which only refers to palette roles)."""
    global _original
    if _original is None:
        _original = (app.style().name(), QPalette(app.palette()))
    if theme == "dark":
        app.setStyle("Fusion")
        app.setPalette(dark_palette())
    elif theme == "light":
        app.setStyle("Fusion")
        app.setPalette(light_palette())
    else:
        app.setStyle(_original[0])
        app.setPalette(_original[1])
    app.setStyleSheet(style_sheet)  # re-resolves palette(...) references
    refresh_tones()
