"""The field names an import line may carry, and the misspelt ones named in the report.

Scraped posts carry many fields Winnow does not read (``lang``, ``retweet_count``…); they
are ignored without a word. A name a letter or two away from one Winnow reads
(``image_url``, ``input_image``, ``qualty``) is almost always a typo that would
silently drop the images or the label, so the report names it once (ADR 205).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

#: every top-level field of a post or sample line that Winnow reads or writes (ADR 001;
#: Winnow's own export adds ``prompt_modified``, ``review_status``, ``derived_from``)
FIELDS = frozenset({
    "id", "text", "timestamp", "keyword", "url", "author", "image_urls", "replies_above",
    "replies_below", "engagement", "parent_id", "post_id", "post", "prompt",
    "prompt_modified", "prompt_edited", "original_prompt", "quality", "split",
    "community_feedback", "input_images", "output_images", "is_screenshot", "input_bboxs",
    "output_bboxs", "tags", "notes", "review_status", "derived_from"})

#: distinct unknown names looked at in one import (the rest are ignored unexamined)
MAX_NAMES = 1000


@dataclass
class Misspellings:
    """Fields seen that look like a typo of one Winnow reads: name → (first line, count)."""

    seen: dict[str, list[int]] = field(default_factory=dict)
    _guess: dict[str, str | None] = field(default_factory=dict)

    def check(self, lineno: int, keys: object) -> None:
        """Count the misspelt names among a line's top-level ``keys``."""
        for key in keys:  # type: ignore[attr-defined]  # a dict's keys
            if key in FIELDS:
                continue
            if key not in self._guess:
                if len(self._guess) >= MAX_NAMES:  # a hostile file's million names
                    continue
                close = difflib.get_close_matches(key, FIELDS, n=1, cutoff=0.8)
                self._guess[key] = close[0] if close else None
            if self._guess[key] is not None:
                self.seen.setdefault(key, [lineno, 0])[1] += 1

    def notes(self) -> list[tuple[int, str]]:
        """One (first line, note) per misspelt name, in the order first seen."""
        return [(first, f"field '{key}' is not one Winnow reads (did you mean "
                        f"'{self._guess[key]}'?); it was ignored on {count:,} line(s)")
                for key, (first, count) in self.seen.items()]
