"""Fixtures for the shell's GUI tests: the session's demo project (tests/conftest.py),
copied per test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture
def demo_path(demo_template: Path, tmp_path: Path) -> Path:
    """A private copy of the demo project (file and asset folder) for one test."""
    target = tmp_path / "demo"
    target.mkdir()
    for item in demo_template.parent.iterdir():
        if item.name.endswith(".lock"):
            continue
        if item.is_dir():
            shutil.copytree(item, target / item.name)
        else:
            shutil.copy2(item, target / item.name)
    return target / demo_template.name
