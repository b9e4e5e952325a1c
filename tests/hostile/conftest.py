"""Fixtures for the attack suite (tests/hostile/)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rating"))


@pytest.fixture
def rated(tmp_path: Path) -> Iterator[tuple[Any, list[Path]]]:
    """A side-by-side session with two answered rater files (Ada's R1, Bob's R2)."""
    import tamper_helpers as th
    from rating_helpers import build_project, make_session

    project = build_project(tmp_path / "r.winnow")
    files = make_session(project, tmp_path / "out", "side_by_side")
    th.rate_all(files[0], "Ada")
    th.rate_all(files[1], "Bob")
    yield project, files
    project.close()
