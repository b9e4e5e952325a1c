"""Tooltips that show text from outside (scraped posts, prompts, file names) literally."""

from __future__ import annotations

import html


def plain_tooltip(text: str) -> str:
    """A tooltip that shows ``text`` literally: Qt guesses HTML in tooltip text
    (``Qt.mightBeRichText``), so a post written as markup would render as markup —
    images loaded by path, links, huge headings."""
    return "<p style='white-space:pre-wrap'>" + html.escape(text) + "</p>"
