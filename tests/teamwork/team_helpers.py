"""Helpers for the teamwork tests: a small project (the Curate test project: posts with
reply trees, whole-image samples, a screenshot with boxes, a template, a missing image),
a split of it, and edits made in a package through Curate's own commands."""

from __future__ import annotations

import importlib.util
import sqlite3
from pathlib import Path
from typing import Any

from core.curate.commands import Command, SetField, SetTag, UndoStack
from core.ingest.importer import import_jsonl
from core.store import Project
from core.teamwork.split import SplitReport, split_project

REPO = Path(__file__).resolve().parents[2]


def _curate_sources() -> Any:
    spec = importlib.util.spec_from_file_location(
        "curate_test_sources", REPO / "tests" / "curate" / "conftest.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.write_sources


def make_project(folder: Path, name: str = "lead.winnow") -> Project:
    """The Curate test project, imported through the real importer, open for writing."""
    src = _curate_sources()(folder / "src")
    project = Project.create(folder / name)
    report = import_jsonl(project, src)
    assert not report.errors, report.errors
    return project


def split(project: Project, out: Path, names: tuple[str, ...] = ("Alice", "Bob"),
          overlap: float = 1.0, seed: int = 7) -> SplitReport:
    """Split every sample; with overlap 1.0 and two curators both get every sample."""
    return split_project(project, out, list(names), overlap=overlap, seed=seed,
                         name="test split")


def package_path(report: SplitReport, curator: str) -> Path:
    entry = next(p for p in report.packages if p["curator"] == curator)
    return report.out / entry["file"]


def worked_team(folder: Path, *, tag: bool = False) -> tuple[Project, Path, Path]:
    """The project split between Alice and Bob, each having worked in their package:
    Alice labels s2 and rewrites s4's prompt (and tags s2 "nice" with ``tag``), Bob labels
    s5. Returns (project, Alice's package, Bob's package); the caller closes the project."""
    project = make_project(folder)
    report = split(project, folder / "out")
    alice, bob = package_path(report, "Alice"), package_path(report, "Bob")
    with Curator(alice) as c:
        c.label("s2", "Benchmark")
        c.prompt("s4", "a zebra-striped unicorn")
        if tag:
            c.tag("s2", "nice")
    with Curator(bob) as c:
        c.label("s5", "Analysis")
    return project, alice, bob


class Curator:
    """A curator working in their package through Curate's own commands and undo stack."""

    def __init__(self, path: Path) -> None:
        self.project = Project.open(path)
        self.stack = UndoStack(self.project)

    def run(self, command: Command) -> bool:
        return self.stack.push(command)

    def label(self, sid: str, quality: str | None) -> bool:
        return self.run(SetField([sid], "quality", quality))

    def prompt(self, sid: str, text: str) -> bool:
        return self.run(SetField([sid], "prompt", text, "Edit prompt"))

    def tag(self, sid: str, tag: str, present: bool = True) -> bool:
        return self.run(SetTag([sid], tag, present))

    def close(self) -> None:
        self.project.close()

    def __enter__(self) -> Curator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def state(project: Project) -> list[tuple[Any, ...]]:
    """Everything a merge can change, for comparing whole states."""
    conn = project.conn
    out: list[tuple[Any, ...]] = []
    out += [("s", *r) for r in conn.execute(
        "SELECT id, quality, review_status, split, prompt, notes, is_screenshot FROM samples "
        "ORDER BY id")]
    out += [("t", *r) for r in conn.execute("SELECT sample_id, tag FROM sample_tags "
                                            "ORDER BY 1, 2")]
    out += [("i", *r) for r in conn.execute(
        "SELECT sample_id, role, position, ref, sha256, bbox_x, bbox_y, bbox_w, bbox_h "
        "FROM sample_images ORDER BY 1, 2, 3, 4, 5, 6, 7")]
    out += [("c", *r) for r in conn.execute(
        "SELECT package_uid, sample_id, field, status FROM team_conflicts ORDER BY 1, 2, 3, 4")]
    return out


def raw(path: Path) -> sqlite3.Connection:
    """A plain sqlite3 connection, as a curator at a shell would open the package."""
    return sqlite3.connect(path, isolation_level=None)
