"""Interop fixtures: a small curated project built through the real importer, released
photos, and ``datasets`` kept offline with its cache in the test's folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from interop_helpers import write_sources

from core.ingest.importer import import_jsonl
from core.store import Project


@pytest.fixture(autouse=True)
def _hf_offline(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """``datasets`` never reaches the network and caches under the test's temp folder."""
    home = tmp_path_factory.getbasetemp() / "hf-home"
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(home / "datasets"))


@pytest.fixture
def bench(tmp_path: Path):  # type: ignore[no-untyped-def]
    """The small project above, open for writing (s1's prompt curated)."""
    from core.curate.commands import UndoStack, set_prompt

    project = Project.create(tmp_path / "bench.winnow")
    report = import_jsonl(project, write_sources(tmp_path / "src"))
    assert not report.errors, report.errors
    UndoStack(project).push(set_prompt("s1", "Make the cat bright green"))
    yield project
    project.close()


@pytest.fixture
def bench_file(tmp_path: Path) -> Path:
    """The same project as a closed file (for the CLI and the main window)."""
    project = Project.create(tmp_path / "bench.winnow")
    import_jsonl(project, write_sources(tmp_path / "src"))
    project.close()
    return tmp_path / "bench.winnow"


