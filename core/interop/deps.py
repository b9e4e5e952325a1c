"""The optional dependency of the interchange formats, imported lazily (ADR 100).

A missing pyarrow is core's :class:`~core.extras.ExtraMissingError` for the ``parquet``
extra, with the one install command :mod:`core.extras` gives for every extra.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from core.extras import ExtraMissingError, available, missing_message, require

#: what a format raises when pyarrow is missing (the message names the extra)
MissingExtraError = ExtraMissingError


def require_pyarrow(what: str = "This format") -> tuple[ModuleType, Any]:
    """``(pyarrow, pyarrow.parquet)``, or :class:`ExtraMissingError` naming the extra."""
    require("parquet", what)
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pa, pq


def pyarrow_available() -> bool:
    """True when pyarrow can be imported (the GUI greys out formats that need it)."""
    return available("parquet")


def pyarrow_missing_message(what: str) -> str:
    """The sentence (with install command) shown where a format needs pyarrow."""
    return missing_message("parquet", what)
