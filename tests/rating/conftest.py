"""Fixtures for rating tests: a small project with samples, input images and model outputs."""

from __future__ import annotations

from pathlib import Path

import pytest
from rating_helpers import build_project


@pytest.fixture
def rproject(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A small project with 6 samples and outputs of 4 models."""
    p = build_project(tmp_path / "r.winnow")
    yield p
    p.close()
