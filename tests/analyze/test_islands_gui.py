"""The Analyze leaderboard tab shows the warning of models never compared, and draws a
data set of 10,000-character twin names without growing (ADR 217)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from core.analysis.report import AnalysisOptions, analyze  # noqa: E402
from core.visible_text import cut_name  # noqa: E402
from ui.analyze.views import SectionView  # noqa: E402

LONG = ["x" * 5_000 + str(k) + "x" * 5_000 for k in range(2)]


def test_leaderboard_tab_shows_islands_and_long_names(qtbot) -> None:  # type: ignore[no-untyped-def]
    votes = [(LONG[0], LONG[1], "a"), (LONG[1], LONG[0], "tie"), ("C", "D", "b"),
             ("D ", "C", "a")]
    rows = [{"a": a, "b": b, "winner": w} for a, b, w in votes]
    lead = analyze(rows, "votes", AnalysisOptions(n_boot=5)).sections["leaderboard"]
    view = SectionView("leaderboard")
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    view.show_section(lead)
    qtbot.waitUntil(lambda: bool(view.tables) and view.tables[0].isVisible())
    assert view.summary.isVisible()
    assert "2 groups of models that are never compared" in view.summary.text()
    assert "⟨…" in view.summary.text()  # the long names are cut in the warning
    assert len(view.summary.text()) < 1_000
    texts = [t for row in view.tables[0].texts() for t in row]
    assert "D⟨U+0020⟩" in texts
    # the twins are cut in the middle as the report cuts them (ADR 222: whole in the
    # cell, Qt elided both to the same start); the whole name is in the tooltip
    cuts = [t for t in texts if t.startswith("xxx")]
    assert len(cuts) == 2 and cuts[0] != cuts[1]
    assert {cut_name(n, n, len(c)) for n, c in zip(LONG, cuts, strict=True)} == set(cuts) \
        or {cut_name(n, n, len(c)) for n, c in zip(LONG[::-1], cuts, strict=True)} == set(cuts)
    assert view.sizeHint().width() < 3_000
