"""Fixtures for the data-safety suite: one small real project, copied for each test."""

from __future__ import annotations

from pathlib import Path

import pytest
from safety_helpers import build_project, copy_project


@pytest.fixture(scope="session")
def template_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A closed 12-sample project with images and three models' outputs (built once)."""
    return build_project(tmp_path_factory.mktemp("safety-template") / "t.winnow")


@pytest.fixture
def project_path(template_project: Path, tmp_path: Path) -> Path:
    """A fresh copy of the template project in this test's folder: ``work/p.winnow``."""
    return copy_project(template_project, tmp_path / "work" / "p.winnow")
