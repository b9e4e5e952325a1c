"""Tooltips that show text from outside (scraped posts, prompts, file names) literally."""

from __future__ import annotations

import html
import textwrap

#: a tooltip line holds at most this many characters (a name without spaces drew one
#: line across the whole screen)
TOOLTIP_CHARS = 100


def plain_tooltip(text: str) -> str:
    """A tooltip that shows ``text`` literally: Qt guesses HTML in tooltip text
    (``Qt.mightBeRichText``), so a post written as markup would render as markup —
    images loaded by path, links, huge headings."""
    return "<p style='white-space:pre-wrap'>" + html.escape(text) + "</p>"


def wrapped_tooltip(text: str, width: int = TOOLTIP_CHARS) -> str:
    """:func:`plain_tooltip` with every line longer than ``width`` characters broken into
    lines of at most ``width`` (at a space where there is one): Qt wraps a tooltip only
    between words, so a 10,000-character name was one line wider than the screen.  No
    character is dropped: joining the lines gives ``text`` back."""
    lines = []
    for line in text.split("\n"):
        lines += textwrap.wrap(line, width, expand_tabs=False, replace_whitespace=False,
                               drop_whitespace=False, break_on_hyphens=False) or [line]
    return plain_tooltip("\n".join(lines))
