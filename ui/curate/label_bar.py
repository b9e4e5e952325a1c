"""The bar above a sample: its id, what it derives from, the quality buttons (B/A/T)
and Reviewed.  Compact when narrow (the keys move to the tooltips), so Curate fits a
1024-px window.

The chosen quality button is drawn in the palette's Highlight colours (so it follows a
dark palette), bold, and with a check mark, so it is told apart without relying on
colour alone.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QWidget,
)

from ui.widgets.theme import set_tone

QUALITY_KEYS = (("Benchmark", "B"), ("Analysis", "A"), ("Trash", "T"))
CHECK = "✓ "
#: the chosen quality button, in palette roles only (light and dark palettes alike)
QUALITY_STYLE = ("QToolButton { padding: 3px 5px; } "
                 "QToolButton:checked { background-color: palette(highlight); "
                 "color: palette(highlighted-text); font-weight: bold; "
                 "border: 1px solid palette(dark); border-radius: 4px; padding: 3px 5px; }")


class ElidedLabel(QLabel):
    """The sample id: elided in the middle when the bar is narrow (full id as tooltip)."""

    def __init__(self) -> None:
        super().__init__()
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._full = ""

    def setText(self, text: str) -> None:  # noqa: N802
        self._full = text
        self.setToolTip(text)
        self._elide()

    def full_text(self) -> str:
        """The whole id, whatever is shown."""
        return self._full

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), 70), hint.height())

    def sizeHint(self) -> QSize:  # noqa: N802
        hint = super().sizeHint()
        return QSize(self.fontMetrics().horizontalAdvance(self._full) + 4, hint.height())

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideMiddle,
                                              max(self.width(), 70))
        super().setText(shown)


class QualityButton(QToolButton):
    """A checkable quality button whose text names its key when there is room and
    carries a check mark while chosen; its width does not change on checking."""

    def __init__(self, quality: str, key: str) -> None:
        super().__init__()
        self.quality, self.key = quality, key
        self.compact = False
        self.setCheckable(True)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.setStyleSheet(QUALITY_STYLE)
        self.setToolTip(f"Label {quality} ({key}); Shift+{key} also marks reviewed and "
                        "moves on. Click the chosen label again to clear it.")
        self.toggled.connect(lambda _on: self._update_text())
        self._update_text()

    def set_compact(self, compact: bool) -> None:
        """Leave the key out of the text (it stays in the tooltip)."""
        self.compact = compact
        self._update_text()

    def _text(self, checked: bool) -> str:
        base = self.quality if self.compact else f"{self.quality} ({self.key})"
        return (CHECK if checked else "") + base

    def _update_text(self) -> None:
        self.setText(self._text(self.isChecked()))
        self.updateGeometry()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(self.width_for(self.compact), super().sizeHint().height())

    def width_for(self, compact: bool) -> int:
        """The width :meth:`sizeHint` has with compact (or full) texts, computed without
        changing the text: changing it would ask for a new layout, whose minimum size
        asks this again (a layout loop that kept the GUI thread busy)."""
        was, self.compact = self.compact, compact
        try:
            text, checked = self._text(self.isChecked()), self._text(True)
        finally:
            self.compact = was
        # Qt's hint grows with the text's width; shift it from the text shown now
        plain = super().sizeHint().width() + _text_width(self, text) - _text_width(self, self.text())
        bold = QFont(self.font())
        bold.setBold(True)
        return max(plain, QFontMetrics(bold).horizontalAdvance(checked) + 14)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return self.sizeHint()


class LabelBar(QWidget):
    """Id, link, quality buttons and Reviewed; compact texts when the full ones do not
    fit."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = ElidedLabel()
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title.setFont(font)
        self.link = QLabel()
        self.link.setTextFormat(Qt.TextFormat.PlainText)
        set_tone(self.link, "muted", text_only=True)
        self.link.setWordWrap(True)
        self.read_only_note = QLabel("Read-only")
        set_tone(self.read_only_note, "danger", "font-weight: 600;", text_only=True)
        self.read_only_note.setToolTip(
            "The project is open read-only (another Winnow may be writing to it): labels, "
            "prompts, notes, tags and images cannot be changed here. Reopen it for writing "
            "to edit.")
        self.read_only_note.hide()
        self.quality_group = QButtonGroup(self)
        self.quality_group.setExclusive(False)
        self.quality_buttons: dict[str, QualityButton] = {}
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.read_only_note)
        layout.addWidget(self.link, 1)
        self.link.hide()  # shown only when there is a link to show
        for quality, key in QUALITY_KEYS:
            button = QualityButton(quality, key)
            self.quality_group.addButton(button)
            self.quality_buttons[quality] = button
            layout.addWidget(button)
        self.reviewed = QCheckBox("Reviewed (R)")
        self.reviewed.setToolTip("Mark the sample reviewed (R)")
        layout.addWidget(self.reviewed)
        self.compact = False

    def set_link(self, text: str) -> None:
        """What the sample derives from (hidden when nothing)."""
        self.link.setText(text)
        self.link.setVisible(bool(text))

    def set_compact(self, compact: bool) -> None:
        """Short texts (keys in the tooltips only) or full ones."""
        if compact == self.compact:
            return
        self.compact = compact
        for button in self.quality_buttons.values():
            button.set_compact(compact)
        self.reviewed.setText(_reviewed_text(compact))

    def _needed(self, compact: bool) -> int:
        """Width the bar needs with full or compact texts (the title may elide).  Reads
        sizes only (see :meth:`_shift`)."""
        layout = self.layout()
        assert layout is not None  # built in __init__
        items = [layout.itemAt(k) for k in range(layout.count())]
        widgets = [w for w in (i.widget() if i is not None else None for i in items)
                   if w is not None]
        width = sum(w.sizeHint().width() for w in widgets
                    if w not in (self.title, self.link) and not w.isHidden())
        width += self.title.minimumSizeHint().width() + layout.spacing() * len(widgets)
        return width + self._shift(compact)

    def _shift(self, compact: bool) -> int:
        """How much wider the bar's texts are with compact (or full) ones than with those
        shown, computed without setting them: this runs inside layout, and a text set
        here would ask for another layout, whose minimum size asks again, forever."""
        if compact == self.compact:
            return 0
        shift = sum(b.width_for(compact) - b.width_for(self.compact)
                    for b in self.quality_buttons.values() if not b.isHidden())
        if not self.reviewed.isHidden():
            shift += (_text_width(self.reviewed, _reviewed_text(compact))
                      - _text_width(self.reviewed, self.reviewed.text()))
        return shift

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(self._needed(True), super().minimumSizeHint().height())

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.set_compact(self.width() < self._needed(False))


def _reviewed_text(compact: bool) -> str:
    return "Reviewed" if compact else "Reviewed (R)"


def _text_width(widget: QWidget, text: str) -> int:
    """The text width Qt's buttons and check boxes size themselves by."""
    return widget.fontMetrics().size(Qt.TextFlag.TextShowMnemonic, text).width()
