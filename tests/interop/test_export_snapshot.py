"""An export reads one state of the project (ADR 187): a change committed by another
connection while it runs is not in it; an older project is exported without changing a
byte of it, as `winnow info` reads it."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import core.curate.export as jsonl_export
import core.interop.hf_export as hf_export
from app.cli import run_cli
from core.store import Project
from core.store.project import APPLICATION_ID
from core.store.schema import MIGRATIONS


def _trash_everything(path: Path) -> Callable[..., Any]:
    """A ``load_sample`` that, on its first call, commits from a second connection: every
    sample becomes Trash with a new prompt (what a `curate merge` meanwhile could do)."""
    real = jsonl_export.load_sample
    fired: list[int] = []

    def hooked(project: Project, sid: str) -> Any:
        if not fired:
            fired.append(1)
            with Project.open(path) as writer, writer.transaction() as conn:
                conn.execute("UPDATE samples SET quality = 'Trash', prompt = 'changed'")
        return real(project, sid)

    return hooked


def _benchmark_ids(path: Path, scratch: Path) -> list[str]:
    """The ids an export of ``path`` writes now (a sample without its images is not)."""
    with Project.open(path, readonly=True) as p:
        jsonl_export.export_benchmark(p, scratch)
    return [json.loads(x)["id"] for x in (scratch / "samples.jsonl").read_text().splitlines()]


def test_jsonl_export_shows_one_state_while_another_process_commits(
        bench_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    want = _benchmark_ids(bench_file, tmp_path / "before")
    monkeypatch.setattr(jsonl_export, "load_sample", _trash_everything(bench_file))
    with Project.open(bench_file, readonly=True) as project:
        report = jsonl_export.export_benchmark(project, tmp_path / "out")
    lines = [json.loads(x) for x in (tmp_path / "out" / "samples.jsonl").read_text().splitlines()]
    assert [d["id"] for d in lines] == want and report.exported == len(want) > 1
    assert {d["quality"] for d in lines} == {"Benchmark"}
    assert "changed" not in {d["prompt"] for d in lines}
    with Project.open(bench_file, readonly=True) as p:  # the change itself was committed
        assert p.conn.execute("SELECT DISTINCT quality FROM samples").fetchall() == [("Trash",)]


def test_hf_export_shows_one_state_while_another_process_commits(
        bench_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pyarrow.parquet as pq

    want = _benchmark_ids(bench_file, tmp_path / "before")
    monkeypatch.setattr(hf_export, "load_sample", _trash_everything(bench_file))
    with Project.open(bench_file, readonly=True) as project:
        hf_export.export_benchmark_hf(project, tmp_path / "hf")
    rows = [r for f in sorted((tmp_path / "hf" / "data").glob("*.parquet"))
            for r in pq.read_table(f, columns=["id", "quality", "prompt"]).to_pylist()]
    assert sorted(r["id"] for r in rows) == sorted(want)
    assert {r["quality"] for r in rows} == {"Benchmark"}
    assert "changed" not in {r["prompt"] for r in rows}


def test_a_snapshot_inside_a_write_transaction_joins_it(bench: Project) -> None:
    from core.interop.snapshot import read_snapshot

    with bench.transaction() as conn:
        conn.execute("UPDATE samples SET notes = 'x'")
        with read_snapshot(bench):
            assert {r[0] for r in conn.execute("SELECT notes FROM samples")} == {"x"}
    assert not bench.conn.in_transaction


# -- an older project ----------------------------------------------------------------------
def _old_project(folder: Path, version: int) -> Path:
    """A project of schema ``version`` (the first migrations only) with one sample."""
    folder.mkdir()
    path = folder / "old.winnow"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    for migrate in MIGRATIONS[:version]:
        conn.execute("BEGIN")
        migrate(conn)
        conn.execute("COMMIT")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.execute("INSERT INTO samples(id, prompt, original_prompt, quality, created_at, "
                 "modified_at) VALUES ('s1', 'p', 'p', 'Benchmark', '2024-01-01', "
                 "'2024-01-01')")
    conn.close()
    return path


def _state(folder: Path) -> dict[str, str]:
    return {n: hashlib.sha256((folder / n).read_bytes()).hexdigest()
            for n in sorted(os.listdir(folder))}


@pytest.mark.parametrize("version", [4, 10])
@pytest.mark.parametrize("fmt", ["jsonl", "hf"])
def test_older_project_is_exported_without_changing_it(tmp_path: Path, version: int,
                                                       fmt: str, capsys) -> None:
    path = _old_project(tmp_path / "p", version)
    before = _state(path.parent)
    out = tmp_path / "out"
    assert run_cli(["export", "benchmark", str(path), "--out", str(out),
                    "--format", fmt]) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["exported"] == 1
    assert _state(path.parent) == before  # not migrated, no -wal/-shm/lock left
    with Project.open(path, readonly=True) as p:
        assert p.schema_version == version


def test_older_project_is_exported_from_a_folder_winnow_cannot_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """Read-only media: opening for writing would be refused, so an export must not."""
    path = _old_project(tmp_path / "p", 10)
    before = _state(path.parent)

    def refuse(*a: Any, **kw: Any) -> Any:
        from core.store.errors import ReadOnlyLocationError
        raise ReadOnlyLocationError("old.winnow is on a read-only medium, so Winnow cannot "
                                    "open it for writing")

    monkeypatch.setattr("core.store.project._lock_for_writing", refuse)
    out = tmp_path / "out"
    assert run_cli(["export", "benchmark", str(path), "--out", str(out)]) == 0, \
        capsys.readouterr().err
    assert (out / "samples.jsonl").is_file()
    assert _state(path.parent) == before


def test_metrics_export_of_a_project_older_than_metrics(tmp_path: Path, capsys) -> None:
    path = _old_project(tmp_path / "p", 4)
    before = _state(path.parent)
    out = tmp_path / "m.csv"
    # read as it is, not migrated; it holds no result, so nothing is written (ADR 228)
    assert run_cli(["metrics", "export", str(path), "--out", str(out)]) == 2
    assert "old.winnow holds no metric results; nothing was written" in \
        capsys.readouterr().err
    assert not out.exists()
    assert _state(path.parent) == before
