"""``import hf`` and one id on several rows: a valid row is never lost because an earlier
row with its id was refused later, by the importer (ADR 200). Row 9 was refused as a
repeat of row 3 even when row 3 itself was then refused (an unknown quality, say), so
the id's only valid row was dropped."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _write(tmp_path: Path, rows: list[tuple[str, str, str | None]]) -> Path:
    """``(id, prompt, quality)`` rows; quality 'Bogus' makes the importer refuse one."""
    ids, prompts, qualities = zip(*rows, strict=True)
    path = tmp_path / "train.parquet"
    pq.write_table(pa.table({"id": list(ids), "prompt": list(prompts),
                             "quality": list(qualities)}), path)
    return path


def _prompts(project: Project) -> dict[str, str]:
    return dict(project.conn.execute("SELECT id, prompt FROM samples").fetchall())


@pytest.mark.parametrize("chunk_rows", [1, 2, 256])
def test_the_valid_row_of_an_id_whose_first_row_is_refused_is_imported(
        project: Project, tmp_path: Path, chunk_rows: int) -> None:
    path = _write(tmp_path, [("x", "first", "Bogus"), ("y", "other", None),
                             ("x", "second", "Bogus"), ("x", "third", None),
                             ("x", "fourth", None)])
    report = import_hf(project, path, chunk_rows=chunk_rows)
    assert _prompts(project) == {"x": "third", "y": "other"}
    errors = {e["row"]: e["error"] for e in report.errors}
    assert set(errors) == {0, 2, 4}
    assert "quality" in errors[0] and "quality" in errors[2]
    assert errors[4] == "id 'x' is already used by train row 3"
    assert (report.rows, report.imported) == (5, 2)


def test_a_repeat_of_an_imported_row_is_still_refused(project: Project,
                                                       tmp_path: Path) -> None:
    path = _write(tmp_path, [("x", "first", None), ("x", "second", None)])
    report = import_hf(project, path, chunk_rows=1)
    assert _prompts(project) == {"x": "first"}
    assert [(e["row"], e["error"]) for e in report.errors] == [
        (1, "id 'x' is already used by train row 0")]


def test_many_repeats_of_a_waiting_row_are_bounded_by_the_chunk(
        project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Held rows count towards the chunk, so a million repeats do not pile up in memory:
    with chunks of 3, ten rows of one id still end with the first valid one."""
    from core.interop.hf_chunk import Chunk

    waiting: list[int] = []
    offer = Chunk.offer

    def counted(self: Chunk, *args: object) -> None:
        offer(self, *args)  # type: ignore[arg-type]
        waiting.append(self.rows + len(self.held))

    monkeypatch.setattr(Chunk, "offer", counted)
    rows: list[tuple[str, str, str | None]] = [("x", f"p{k}", "Bogus") for k in range(6)]
    rows += [("x", f"p{k}", None) for k in range(6, 10)]
    report = import_hf(project, _write(tmp_path, rows), chunk_rows=3)
    assert max(waiting) <= 3
    assert _prompts(project) == {"x": "p6"}
    assert sorted(e["row"] for e in report.errors) == list(range(10)[:6]) + [7, 8, 9]
