"""What a curator types into the search box, turned into SQL over ``sample_search``.

One document per sample (ADR 032): its prompts, its post's text, its community
feedback and ``meta`` (sample id, post id, author, keyword).  Every word must occur
somewhere in the document, each as a prefix (``cat`` finds "cats"; ``s00042`` finds
that sample; ``@user42`` finds that author's posts).  FTS5's tokenizer drops emoji
and other symbols, so a word's symbols (``🔥``, ``❤️``, ``👍🏽``) are matched as
substrings of the stored document instead; ASCII punctuation is ignored as before.
Scripts written without spaces between words (Chinese, Japanese, Thai, Lao, Khmer,
Burmese) are one FTS5 token per run of text, so their runs are substrings too: ``猫``
finds "把这只猫变成蓝色" (ADR 205).
User text is always a bound parameter or a quoted FTS5 string: typed FTS syntax
cannot break the query.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

#: the document's columns searched for symbols (not ``meta``: ids and handles hold none,
#: and a project from before m009 opened read-only has no such column)
COLUMNS = ("prompt", "post_text", "feedback")
_JOINERS = {"\u200d", "\u20e3"}  # zero-width joiner, combining keycap: part of an emoji
_VARIATION = {"\ufe0e", "\ufe0f"}  # text/emoji presentation selectors: dropped
_SKIN = range(0x1F3FB, 0x1F400)


@dataclass(frozen=True)
class TextQuery:
    """A search split into FTS5 prefix phrases and substrings (symbols, and runs of a
    script written without spaces)."""

    phrases: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """True when nothing searchable was typed (only spaces or ASCII punctuation)."""
        return not self.phrases and not self.symbols

    def match(self) -> str:
        """The FTS5 MATCH expression: each phrase quoted and prefix-matched, except a
        single letter or digit, which is a whole word ("a" finds "a", not every word
        starting with a: that filters nothing and costs most)."""
        return " ".join('"' + p.replace('"', '""') + ('"' if _tokens(p) == 1 else '"*')
                        for p in self.phrases)

    def sql(self) -> tuple[str, list[str]]:
        """``SELECT rowid FROM sample_search WHERE …`` for this query, and its parameters
        (the query must not be :attr:`empty`)."""
        clauses: list[str] = []
        params: list[str] = []
        if self.phrases:
            clauses.append("sample_search MATCH ?")
            params.append(self.match())
        for symbol in self.symbols:
            clauses.append("(" + " OR ".join(f"instr({c}, ?) > 0" for c in COLUMNS) + ")")
            params.extend([symbol] * len(COLUMNS))
        return "SELECT rowid FROM sample_search WHERE " + " AND ".join(clauses), params

    def post_sql(self) -> tuple[str, list[str]]:
        """``SELECT rowid FROM posts WHERE …``: this query over the posts' own text (the
        query must not be :attr:`empty`)."""
        clauses: list[str] = []
        params: list[str] = []
        if self.phrases:
            clauses.append("rowid IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?)")
            params.append(self.match())
        for symbol in self.symbols:
            clauses.append("instr(text, ?) > 0")
            params.append(symbol)
        return "SELECT rowid FROM posts WHERE " + " AND ".join(clauses), params


#: Unicode name prefixes of the scripts written without spaces between words
_UNSPACED = ("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH",
             "IDEOGRAPHIC ITERATION MARK",
             "HIRAGANA", "KATAKANA", "HALFWIDTH KATAKANA", "THAI ", "LAO ", "KHMER ",
             "MYANMAR ")


def _is_symbol(ch: str) -> bool:
    """Whether ``ch`` is matched as part of a substring rather than by FTS5: an emoji or
    other symbol, or a letter of a script written without spaces."""
    return ord(ch) >= 0x80 and (unicodedata.category(ch).startswith("S")
                                or ch in _JOINERS or ord(ch) in _SKIN
                                or unicodedata.name(ch, "").startswith(_UNSPACED))


def _tokens(text: str) -> int:
    """How many letters and digits ``text`` holds (what FTS5 indexes of it)."""
    return sum(1 for ch in text if unicodedata.category(ch)[0] in "LN")


def parse(text: str) -> TextQuery:
    """Split a typed search into prefix phrases (letters and digits, as FTS5 sees them)
    and substring runs (emoji with their joiners and skin tones, ©, ™ …, and text in
    scripts written without spaces)."""
    phrases: list[str] = []
    symbols: list[str] = []
    for word in text.split():
        word = "".join(ch for ch in word if ch not in _VARIATION)
        plain, run = [], []
        for ch in word + " ":
            if _is_symbol(ch):
                run.append(ch)
                continue
            if run:
                symbols.append("".join(run))
                run = []
                plain.append(" ")
            plain.append(ch)
        rest = "".join(plain).strip()
        if _tokens(rest):
            phrases.append(rest)
    return TextQuery(tuple(dict.fromkeys(phrases)), tuple(dict.fromkeys(symbols)))


def text_clause(text: str) -> tuple[str, list[str]] | None:
    """A WHERE clause over ``samples s`` selecting the samples that match ``text``, with
    its parameters; None when ``text`` holds nothing searchable."""
    query = parse(text)
    if query.empty:
        return None
    sql, params = query.sql()
    return f"s.rowid IN ({sql})", params
