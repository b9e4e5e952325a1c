"""Fixtures for the statistics tests."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"

WriteCsv = Callable[[str, Sequence[str], Iterable[Sequence[object]]], Path]


@pytest.fixture
def write_csv(tmp_path: Path) -> WriteCsv:
    """Write ``header`` + ``rows`` to ``tmp_path/name`` and return the path."""

    def write(name: str, header: Sequence[str], rows: Iterable[Sequence[object]]) -> Path:
        path = tmp_path / name
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(header)
            w.writerows(rows)
        return path

    return write


@pytest.fixture
def data_dir() -> Path:
    return DATA
