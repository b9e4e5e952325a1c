"""The optional dependency of the interchange formats, imported lazily (ADR 100)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

EXTRA = "parquet"
INSTALL_HINT = f"pip install 'winnow[{EXTRA}]'"


class MissingExtraError(ValueError):
    """An optional package a format needs is not installed; the message names the extra."""


def require_pyarrow(what: str = "this format") -> tuple[ModuleType, Any]:
    """``(pyarrow, pyarrow.parquet)``, or :class:`MissingExtraError` naming the extra."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise MissingExtraError(
            f"{what} needs the optional package pyarrow, which is not installed; "
            f"install it with: {INSTALL_HINT}") from exc
    return pa, pq


def pyarrow_available() -> bool:
    """True when pyarrow can be imported (the GUI greys out formats that need it)."""
    try:
        require_pyarrow()
    except MissingExtraError:
        return False
    return True
