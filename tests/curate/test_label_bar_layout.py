"""The label bar's width check reads sizes without changing texts: it used to flip every
button to compact and back inside ``minimumSizeHint``, which asked for a new layout,
whose minimum size asked again — a layout loop that kept the GUI thread busy whenever
Curate was wide enough for the full texts (0.25–0.8 s of CPU a second, idle)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtWidgets import QApplication  # noqa: E402

from ui.curate.label_bar import LabelBar  # noqa: E402


def _measured(bar: LabelBar, compact: bool) -> int:
    """The width as the old code measured it: set the texts, add the size hints up."""
    was = bar.compact
    bar.set_compact(compact)
    layout = bar.layout()
    widgets = [layout.itemAt(k).widget() for k in range(layout.count())]
    width = sum(
        w.sizeHint().width() for w in widgets if w not in (bar.title, bar.link) and not w.isHidden()
    )
    width += bar.title.minimumSizeHint().width() + layout.spacing() * len(widgets)
    bar.set_compact(was)
    return width


@pytest.mark.parametrize("checked", [None, "Benchmark"])
def test_needed_widths_match_the_texts_they_stand_for(qtbot, checked) -> None:  # type: ignore[no-untyped-def]
    bar = LabelBar()
    qtbot.addWidget(bar)
    bar.title.setText("sample-0001-with-a-long-id")
    if checked:
        bar.quality_buttons[checked].setChecked(True)
    for state in (False, True):
        bar.set_compact(state)
        texts = [b.text() for b in bar.quality_buttons.values()] + [bar.reviewed.text()]
        assert bar._needed(True) == _measured(bar, True)
        assert bar._needed(False) == _measured(bar, False)
        # nothing shown changed while measuring
        assert [b.text() for b in bar.quality_buttons.values()] + [bar.reviewed.text()] == texts
    assert bar._needed(True) < bar._needed(False)


def test_a_wide_label_bar_settles(qtbot) -> None:  # type: ignore[no-untyped-def]
    bar = LabelBar()
    qtbot.addWidget(bar)
    bar.title.setText("sample-0001")
    bar.resize(1400, 40)
    bar.show()
    qtbot.waitExposed(bar)
    for _ in range(5):
        QApplication.processEvents()
    assert not bar.compact
    calls = 0
    original = LabelBar.minimumSizeHint

    def counted(self: LabelBar):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        return original(self)

    LabelBar.minimumSizeHint = counted  # type: ignore[method-assign]
    try:
        for _ in range(20):
            qtbot.wait(5)
            QApplication.processEvents()
    finally:
        LabelBar.minimumSizeHint = original  # type: ignore[method-assign]
    assert calls == 0  # no layout keeps asking: the bar is at rest
