"""What an analysable data set is, and the registry of the providers that offer them.

:mod:`core.analysis.sources` finds data sets (CSV files, and what the providers here
offer for a project); :mod:`core.analysis.project_sources` holds the built-in providers.
Both import this module and neither imports the other at import time, so the three
form no import cycle.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.stats.tables import IDEA_QUESTIONS

Row = dict[str, Any]
Loader = Callable[[Any], list[Row]]
Provider = Callable[[Any], list["DataSet"]]

#: kind → (required columns, optional columns)
KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "votes": (("a", "b", "winner"), ("criterion", "rater", "item")),
    "rankings": (("rater", "item", "model", "rank"), ()),
    "likert": (("rater", "unit", "model", "criterion", "value"), ()),
    "checklist": (("model", "category", "subtask", "case", *IDEA_QUESTIONS), ()),
    "scores": (("sample", "model", "score"), ("judge",)),
}
#: columns a breakdown can group by (kept when present)
GROUP_COLUMNS = ("category", "edit_type", "split")
KIND_TITLES = {
    "votes": "pairwise votes", "rankings": "full rankings", "likert": "Likert ratings",
    "checklist": "IDEA-Bench checklist", "scores": "per-output scores",
}


@dataclass(frozen=True)
class DataSet:
    """One analysable data set; ``load(project)`` returns its tidy rows."""

    name: str
    kind: str
    key: str
    loader: Loader
    source: str = ""  # "CSV file", "Rating session", "Metric results" …
    description: str = ""
    #: for "scores": whether a higher score is better (e.g. False for a distance)
    higher_is_better: bool = True
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown data set kind {self.kind!r} (expected one of "
                             f"{', '.join(KINDS)})")

    def load(self, project: Any = None) -> list[Row]:
        """The tidy rows (see :mod:`core.analysis.sources`); ``project`` is the worker's view."""
        rows = self.loader(project)
        if not rows:
            raise ValueError(f"{self.name}: no data to analyse yet")
        return rows


# -- project providers ----------------------------------------------------------------

_PROVIDERS: list[Provider] = []


def register_provider(fn: Provider) -> Provider:
    """Add a provider ``fn(project) -> list[DataSet]`` (once; usable as a decorator)."""
    if fn not in _PROVIDERS:
        _PROVIDERS.append(fn)
    return fn


def unregister_provider(fn: Provider) -> None:
    """Remove a provider (tests, plug-ins being unloaded)."""
    with contextlib.suppress(ValueError):
        _PROVIDERS.remove(fn)


def providers() -> list[Provider]:
    """The registered providers, in the order they were registered (a copy)."""
    return list(_PROVIDERS)
