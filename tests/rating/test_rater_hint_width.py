"""ADR 228: the rater's key help is one line at 1280×720 (a ranking session with ties
wrapped it to two, taking a line from the outputs); every key is still listed, the
whole help in the line's tooltip."""

from __future__ import annotations

from pathlib import Path

import pytest
from rating_helpers import MODELS, make_session

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import QRect, Qt  # noqa: E402
from PySide6.QtGui import QScreen  # noqa: E402

from core.rating.session_file import RatingSession  # noqa: E402
from ui.rate.rater import RaterWindow  # noqa: E402


@pytest.mark.parametrize(("protocol", "kw"), [
    ("ranking", {"allow_ties": True}), ("ranking", {}), ("side_by_side", {}),
    ("likert", {}), ("checklist", {})])
def test_the_key_help_fits_one_line_at_1280x720(qtbot, rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                monkeypatch, protocol: str, kw: dict) -> None:
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(0, 0, 1280, 690))
    path = make_session(rproject, tmp_path / "o", protocol, raters=1, sample_ids=("s000",),
                        models=MODELS[:4], **kw)[0]
    w = RaterWindow(RatingSession.open(path))
    qtbot.addWidget(w)
    w.resize(1280, 690)
    w.show()
    qtbot.keyClicks(w.name_edit, "Ida")
    qtbot.keyClick(w.name_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: w.hints.isVisible())
    hints = w.hints
    needed = hints.fontMetrics().horizontalAdvance(hints.text())
    assert needed <= hints.contentsRect().width(), (needed, hints.contentsRect().width())
    assert hints.height() <= 1.5 * hints.fontMetrics().height()  # one line drawn
    for key in ("Space pause", "Backspace", "Ctrl+W close", "+/− zoom", "Enter submit"):
        assert key in hints.text(), key
    assert "answers are saved" in hints.toolTip()  # the longer words, in the tooltip
    w.close()
