"""core.visible_text: names that draw nothing or turn text around are spelt out (ADR 160)."""

from __future__ import annotations

import unicodedata

import pytest

from core.visible_text import visible


@pytest.mark.parametrize(("text", "shown"), [
    ("\u202eLX-xulf", "⟨U+202E⟩LX-xulf"),
    ("fl\u200bux", "fl⟨U+200B⟩ux"),
    ("\u2067flux\u2069", "⟨U+2067⟩flux⟨U+2069⟩"),
    ("\u200eflux\u200f", "⟨U+200E⟩flux⟨U+200F⟩"),
    ("flux\ufeff", "flux⟨U+FEFF⟩"),
    ("fl\u00adux", "fl⟨U+00AD⟩ux"),
    ("\u061cabc", "⟨U+061C⟩abc"),
])
def test_hidden_characters_are_spelt_out(text: str, shown: str) -> None:
    assert visible(text) == shown
    assert visible(shown) != shown  # a name that writes the spelling looks different


@pytest.mark.parametrize("text", ["flux-XL", "نموذج عربي", "מודל", "👩\u200d🎨 gen",
                                  "می\u200cخواهم", "e\u0301", "模型", "👍🏽", "a\tb"])
def test_ordinary_text_is_unchanged(text: str) -> None:
    assert visible(text) == text


def test_a_name_cannot_write_the_spelling_itself() -> None:
    assert visible("⟨U+202E⟩LX-xulf") == "⟨U+27E8⟩U+202E⟩LX-xulf"
    assert visible("⟨U+202E⟩LX-xulf") != visible("\u202eLX-xulf")


def test_every_format_character_but_the_joiners_is_spelt_out() -> None:
    for cp in range(0x110000):
        ch = chr(cp)
        if unicodedata.category(ch) == "Cf" and ch not in "\u200c\u200d":
            assert visible(ch) == f"⟨U+{cp:04X}⟩"
