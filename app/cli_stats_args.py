"""What each option of ``winnow stats`` accepts: argparse types with messages that say so.

Split from :mod:`app.cli_stats` (ADR 227). Each raises ``argparse.ArgumentTypeError``
naming the value given and the range wanted, which argparse prints with the option. Not a
command group: it has no ``register`` and :data:`app.cli.COMMAND_MODULES` does not list it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeVar

from core.stats import tables

T = TypeVar("T")


def _parsed(text: str, kind: Callable[[str], T], what: str) -> T:
    """``kind(text)``, or an error saying ``what`` was expected."""
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None


def probability(text: str) -> float:
    """A number strictly between 0 and 1 (an interval level)."""
    value = _parsed(text, float, "a number between 0 and 1")
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(
            f"expected a number between 0 and 1 (exclusive), got {text!r}"
        )
    return value


def non_negative_int(text: str) -> int:
    """A whole number, 0 or more (a count of resamples)."""
    value = _parsed(text, int, "a whole number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def finite_float(text: str) -> float:
    """A number that is neither NaN nor infinite."""
    value = _parsed(text, float, "a number")
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def elo_k(text: str) -> float:
    """K of the online Elo: more than 0, at most ``MAX_K``."""
    from core.stats.online_elo import MAX_K

    value = finite_float(text)
    if not 0 < value <= MAX_K:
        raise argparse.ArgumentTypeError(
            f"expected a number from 0 to {MAX_K:g} (exclusive of 0), got {text!r}")
    return value


def likert_tau(text: str) -> float:
    """A success threshold on the Likert scale (1 to 5)."""
    value = finite_float(text)
    lo, hi = tables.LIKERT_RANGE
    if not lo <= value <= hi:
        raise argparse.ArgumentTypeError(
            f"expected a threshold from {lo:g} to {hi:g}, got {text!r}"
        )
    return value
