"""Tooltips that show text from outside (scraped posts, prompts, file names) literally."""

from __future__ import annotations

import html
import textwrap

from core.visible_text import cut_mark

#: a tooltip line holds at most this many characters (a name without spaces drew one
#: line across the whole screen)
TOOLTIP_CHARS = 100
#: and at most this many lines (one 10,000-character name was 100 lines, taller than the
#: screen): the first and the last, and how much is left out between them
TOOLTIP_LINES = 20


def plain_tooltip(text: str) -> str:
    """A tooltip that shows ``text`` literally: Qt guesses HTML in tooltip text
    (``Qt.mightBeRichText``), so a post written as markup would render as markup —
    images loaded by path, links, huge headings."""
    return "<p style='white-space:pre-wrap'>" + html.escape(text) + "</p>"


def wrapped_tooltip(text: str, width: int = TOOLTIP_CHARS, most: int = TOOLTIP_LINES, *,
                    name: str | None = None) -> str:
    """:func:`plain_tooltip` with every line longer than ``width`` characters broken into
    lines of at most ``width`` (at a space where there is one): Qt wraps a tooltip only
    between words, so a 10,000-character name was one line wider than the screen.  Of
    more than ``most`` lines the first and the last are kept, between them one line
    saying how many of how many characters are left out, after the cut's mark
    (:func:`core.visible_text.cut_mark` of ``name``, default ``text``: the cell's hash) —
    a 10,000-character name was a tooltip taller than the screen (ADR 228).  Joining the
    lines of a shorter text gives ``text`` back."""
    lines = []
    for line in text.split("\n"):
        lines += textwrap.wrap(line, width, expand_tabs=False, replace_whitespace=False,
                               drop_whitespace=False, break_on_hyphens=False) or [line]
    if len(lines) > most:
        tail = max((most - 1) // 4, 1)
        head = max(most - 1 - tail, 1)
        left_out = sum(map(len, lines[head:len(lines) - tail]))
        mark = cut_mark(text if name is None else name)
        lines = [*lines[:head], f"{mark} {left_out:,} of its {len(text):,} characters left "
                 "out here", *lines[len(lines) - tail:]]
    return plain_tooltip("\n".join(lines))
