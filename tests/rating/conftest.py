"""Fixtures for rating tests: a small project with samples, input images and model outputs."""

from __future__ import annotations

from pathlib import Path

import pytest
import tamper_helpers as th
from rating_helpers import build_project, make_session


@pytest.fixture
def rproject(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A small project with 6 samples and outputs of 4 models."""
    p = build_project(tmp_path / "r.winnow")
    yield p
    p.close()


@pytest.fixture
def rated(rproject, tmp_path: Path):  # type: ignore[no-untyped-def]
    """A side-by-side session with two answered rater files (one answer changed each)."""
    files = make_session(rproject, tmp_path / "out", "side_by_side")
    th.rate_all(files[0], "Ada")
    th.rate_all(files[1], "Bob")
    return rproject, files
