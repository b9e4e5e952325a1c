"""Merge returned files one at a time: one bad file never stops the rest (ADR 059).

Used by rating sessions and curator packages.  Each file is merged or refused whole by
``merge_one``; a refusal is one line naming the file and why, and the next file goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from core.jobs import JobState

T = TypeVar("T")


def merge_each(paths: Sequence[str | Path], merge_one: Callable[[Path], T],
               refusals: tuple[type[BaseException], ...], state: JobState,
               items: bool = False) -> tuple[list[T], list[str]]:
    """``merge_one(path)`` for each path; returns (results, refusal lines).

    Exceptions of the ``refusals`` types (their message already names the file), a
    missing file and an unreadable one become refusal lines; anything else is a bug and
    propagates.  ``state`` gets one step per file and, when ``items``, one
    item_done/item_failed per file (the Jobs panel's verdict, ADR 081).
    """
    state.set_total(len(paths))
    results: list[T] = []
    errors: list[str] = []
    for raw in paths:
        state.check()
        path = Path(raw)
        line = None
        try:
            results.append(merge_one(path))
        except refusals as exc:
            line = str(exc)
        except FileNotFoundError:
            line = f"{path.name}: no such file ({path})"
        except OSError as exc:
            line = f"{path.name}: cannot read it ({exc.strerror or exc})"
        if line is not None:
            errors.append(line)
            if items:
                state.item_failed(path.name, line)
        elif items:
            state.item_done()
        state.advance()
    return results, errors
