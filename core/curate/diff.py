"""Word-level diff between the original extracted prompt and the edited one."""

from __future__ import annotations

import difflib
import re

_TOKENS = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)


def prompt_diff(original: str, edited: str) -> list[tuple[str, str]]:
    """Segments ``(op, text)`` with op ``equal`` / ``delete`` / ``insert`` that turn
    ``original`` into ``edited`` (joining the equal+insert parts gives ``edited``)."""
    a, b = _TOKENS.findall(original), _TOKENS.findall(edited)
    out: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.append(("equal", "".join(a[i1:i2])))
            continue
        if op in ("delete", "replace"):
            out.append(("delete", "".join(a[i1:i2])))
        if op in ("insert", "replace"):
            out.append(("insert", "".join(b[j1:j2])))
    return [(op, text) for op, text in out if text]
