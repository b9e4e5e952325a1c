"""User text shown so that what a reader sees is what is there (ADR 160).

A name scraped or typed by a stranger can hold characters that draw nothing or turn the
text around: U+202E (right-to-left override) makes ``LX-xulf`` *display* as ``flux-XL``,
a zero-width space makes ``fl\u200bux`` look like ``flux``.  In a report or a leaderboard
two models would then look the same.  :func:`visible` spells every such character as
``⟨U+XXXX⟩``.  Scripts written right to left need none of them (the Unicode bidi
algorithm orders them), and the joiners U+200C/U+200D that shape Persian, Indic scripts
and emoji sequences are kept.  The bracket ``⟨`` itself is spelt out too, so a name that
*writes* ``⟨U+202E⟩`` never looks like one that holds the override.  Data files keep the
exact text; only what is shown changes.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence

_KEPT = {"\u200c", "\u200d"}  # zero-width non-joiner / joiner: they shape text and emoji
_FORMAT = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff"
                     "\ufff9-\ufffb]")


def _hidden(ch: str) -> bool:
    if ch == "\u27e8":  # the spelling's own bracket: a name cannot write "⟨U+202E⟩" itself
        return True
    return ch not in _KEPT and (unicodedata.category(ch) == "Cf" or bool(_FORMAT.match(ch)))


def visible(text: str) -> str:
    """``text`` with each invisible format or direction character spelt ``⟨U+XXXX⟩``."""
    if text.isascii():
        return text
    return "".join(f"⟨U+{ord(c):04X}⟩" if _hidden(c) else c for c in text)


#: Control characters a terminal acts on (C0 but tab and line feed, DEL, C1).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def spell_controls(text: str) -> str:
    """``text`` with each control character but tab and line feed spelt ``⟨U+XXXX⟩``:
    for the terminal, where an escape sequence from a stranger's file name would act
    (retitle the window, hide or recolour lines, write the clipboard) (ADR 176)."""
    return _CONTROL.sub(lambda m: f"⟨U+{ord(m.group()):04X}⟩", text)


#: Every control character, tab, line feed and carriage return included.
_ANY_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


#: White space at either end of a name (a browser, a chart or a table cell shows none),
#: any white space but the plain space anywhere (a no-break or thin space draws as one),
#: and a run of plain spaces inside (two drew like one: ADR 228)
_ODD_SPACE = re.compile(r"^\s+|\s+$|[^\S ]| {2,}")


def _spell(match: re.Match[str]) -> str:
    return "".join(f"⟨U+{ord(c):04X}⟩" for c in match.group())


def shown_name(text: str) -> str:
    """One name as a table cell or chart label shows it: :func:`visible`, and every control
    character spelt too, since a browser or a chart draws a tab, line feed or escape as a
    space or nothing, and ``"a\\tb"`` would look like ``"a b"`` (ADR 215); white space at
    either end is spelt too, or ``"A "`` would look like ``"A"``, and a no-break, thin or
    ideographic space anywhere, or ``"a\\u00a0b"`` would look like ``"a b"`` (ADR 217), and
    every space of a run of plain spaces inside, or ``"a  b"`` would look like ``"a b"``
    (ADR 228)."""
    return _ODD_SPACE.sub(_spell, _ANY_CONTROL.sub(_spell, visible(text)))


#: Longest name a table cell shows; a longer one is cut in the middle (:func:`cut_name`).
NAME_MAX = 64


def cut_mark(name: str) -> str:
    """``⟨…xxxxxxxx⟩``: what stands for the part of ``name`` a cut leaves out, with a hash
    of the whole name (the same wherever the name is cut: a cell, its tooltip, a report)."""
    digest = hashlib.blake2s(name.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()
    return f"⟨…{digest}⟩"


def cut_name(shown: str, name: str, limit: int = NAME_MAX) -> str:
    """``shown`` (``name`` as shown) cut to ``limit`` characters when longer: its start and
    end, and between them ``⟨…xxxxxxxx⟩``, a hash of the whole ``name``, so two long names
    differing only in the part cut out still look different (ADR 217).  No name can write
    the marker itself: a ``⟨`` of its own is spelt ``⟨U+27E8⟩``.  A cut never splits a
    ``⟨U+XXXX⟩`` spelling."""
    if len(shown) <= limit:
        return shown
    mark = cut_mark(name)
    room = max(limit - len(mark), 2)
    tail = room // 3
    head, end = shown[:room - tail], shown[len(shown) - tail:] if tail else ""
    if (i := head.rfind("⟨")) > head.rfind("⟩"):
        head = head[:i]
    if (j := end.find("⟩")) != -1 and not -1 < end.find("⟨") < j:
        end = end[j + 1:]
    return head + mark + end


def short_name(name: str, limit: int = NAME_MAX) -> str:
    """:func:`shown_name`, cut to ``limit`` characters by :func:`cut_name`."""
    return cut_name(shown_name(name), name, limit)


def listed(names: Sequence[str], limit: int = 10) -> str:
    """Names for a message: ``"'x', 'y' and 3 more"`` (the first ``limit``, quoted)."""
    more = f" and {len(names) - limit:,} more" if len(names) > limit else ""
    return ", ".join(map(repr, names[:limit])) + more
