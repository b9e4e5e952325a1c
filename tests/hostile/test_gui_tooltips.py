"""Scraped text shown in a tooltip must show literally: Qt guesses HTML in tooltip text
(Qt.mightBeRichText), so a post whose text is markup would render as markup — images
loaded by path, links, huge headings — in the Posts list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.gui

def _as_shown(tip: str) -> str:
    """The text a tooltip shows: Qt renders it as HTML when it guesses markup."""
    from PySide6.QtGui import Qt, QTextDocument  # QtGui's Qt has mightBeRichText

    doc = QTextDocument()
    if Qt.mightBeRichText(tip):
        doc.setHtml(tip)
    else:
        doc.setPlainText(tip)
    return doc.toPlainText().strip()


MARKUP = "<h1>BIG</h1><img src='file:///etc/hostname'><a href='javascript:alert(1)'>x</a>"


def test_post_text_tooltip_is_plain(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import Qt  # QtGui's Qt has mightBeRichText

    from core.ingest.importer import import_jsonl
    from core.store import Project
    from ui.curate.posts_view import COLUMNS, PostListModel

    jsonl = tmp_path / "posts.jsonl"
    jsonl.write_text(json.dumps({"id": "p1", "text": MARKUP}) + "\n", encoding="utf-8")
    with Project.create(tmp_path / "p.winnow") as project:
        import_jsonl(project, jsonl)
        model = PostListModel()
        model.load(project, "all", "")
        column = [k for k, _ in COLUMNS].index("text")
        tip = model.data(model.index(0, column), Qt.ItemDataRole.ToolTipRole)
    assert _as_shown(tip) == MARKUP


def test_analyze_table_shows_long_model_names_literally(qapp) -> None:  # type: ignore[no-untyped-def]
    """A model name of more than 40 characters gets its whole text as a tooltip in the
    Analyze tables: that tooltip rendered a name written as markup (new-votes sweep), and
    the cell showed a right-to-left override reversing the name (ADR 160)."""
    from core.analysis.results import Table
    from ui.analyze.views import TableView

    long_markup = MARKUP + " " + "x" * 40
    spoof = "\u202eLX-xulf"
    view = TableView(Table("t", "Leaderboard", ["Model", "Elo"],
                           [[long_markup, 1000.0], [spoof, 990.0]]))
    # a long tooltip is broken into lines of at most 100 characters (ADR 222); joined, they
    # are the name, shown literally
    assert _as_shown(view.item(0, 0).toolTip()).replace("\n", "") == long_markup
    assert view.item(1, 0).text() == "⟨U+202E⟩LX-xulf"
