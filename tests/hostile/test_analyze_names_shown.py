"""Names in Analyze tables, HTML reports and charts stay distinguishable (ADR 215).

A tab, line feed, carriage return or terminal escape in a model name draws as a space
(or nothing) in a browser and on a chart, so ``"a\\tb"`` looked like ``"a b"`` and
``"bell\\x07"`` like ``"bell"``; invisible format characters drew as a space on charts.
"""

from __future__ import annotations

import pytest

from core.analysis.plots import plain
from core.analysis.results import format_cell
from core.visible_text import shown_name

TWINS = [("a\tb", "a b"), ("line1\nline2", "line1 line2"), ("\rCR", " CR"),
         ("bell\x07", "bell"), ("x\x1b[31m", "x[31m"), ("mod\u200bel", "mod el"),
         ("model\u202etxt", "model txt"), ("a\x85b", "a b")]


@pytest.mark.parametrize(("odd", "plainer"), TWINS)
def test_table_cells_keep_twins_apart(odd: str, plainer: str) -> None:
    assert format_cell(odd) != format_cell(plainer)
    assert "⟨U+" in format_cell(odd)


@pytest.mark.parametrize(("odd", "plainer"), TWINS)
def test_chart_labels_keep_twins_apart(odd: str, plainer: str) -> None:
    assert plain(odd) != plain(plainer)
    assert plain(odd).isprintable()


def test_ordinary_names_are_unchanged() -> None:
    for name in ("flux-XL", "نموذج عربي", "👩\u200d🎨 gen", "a b", "模型"):
        assert shown_name(name) == name
        assert format_cell(name) == name


def test_long_chart_labels_are_still_shortened() -> None:
    assert len(plain("L" * 10_000)) <= 48
    assert len(plain("\x07" * 10_000)) <= 48
