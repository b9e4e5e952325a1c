"""The list's quality colours are worked out once per palette, and follow a theme change."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QPalette  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from ui.curate.list_model import QUALITY_TONES, _cell  # noqa: E402
from ui.widgets import theme  # noqa: E402

FG = Qt.ItemDataRole.ForegroundRole


def test_quality_brushes_follow_the_palette(qapp) -> None:  # type: ignore[no-untyped-def]
    original = QApplication.palette()
    try:
        for make in (theme.light_palette, theme.dark_palette, theme.light_palette):
            QApplication.setPalette(make())
            for quality, tone in QUALITY_TONES.items():
                row = SimpleNamespace(quality=quality)
                expected = theme.tone_text(tone, role=QPalette.ColorRole.Base)
                first = _cell(row, "quality", FG)  # type: ignore[arg-type]
                assert first.color() == expected, (make.__name__, quality)
                assert _cell(row, "quality", FG) is first  # computed once per palette
            assert _cell(SimpleNamespace(quality=None), "quality", FG) is None  # type: ignore[arg-type]
            assert _cell(SimpleNamespace(quality="Trash"), "prompt", FG) is None  # type: ignore[arg-type]
    finally:
        QApplication.setPalette(original)


class _Lister:
    def __init__(self, ids: list[str]) -> None:
        self.ids = ids

    def ordered_ids(self, *args: object) -> list[str]:
        return list(self.ids)


def test_row_lookups_agree_before_and_after_the_map_is_built(qapp) -> None:  # type: ignore[no-untyped-def]
    from ui.curate.list_model import SampleListModel

    model = SampleListModel()
    for ids in (["s3", "s1", "s2"] + [f"x{k}" for k in range(50)], ["s2", "y"], []):
        model.lister = _Lister(ids)  # type: ignore[assignment]
        model.reload()  # a new list: earlier lookups must not leak into it
        for _ in range(3):  # the first few lookups scan, later ones use the map
            for k, sid in enumerate(ids):
                assert model.row_of(sid) == k
            assert model.row_of("missing") is None
            assert model.row_of("s1") == (ids.index("s1") if "s1" in ids else None)
