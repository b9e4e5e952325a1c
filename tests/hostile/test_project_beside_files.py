"""A new project whose asset folder's name is taken by a file, a demo that fails half-way,
an import whose source cannot be read: refused before anything is written, or nothing
half-made left behind."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from app.cli import run_cli
from core.store import Project


def test_a_file_where_the_asset_folder_goes_is_refused_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`x.assets` was a user's file: the project was created anyway and every image of
    the import failed with a bare 'Not a directory'."""
    (tmp_path / "x.assets").write_text("mine")
    with pytest.raises(FileExistsError, match=r"x\.assets .*not a folder"):
        Project.create(tmp_path / "x.winnow")
    assert not (tmp_path / "x.winnow").exists()
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": "s1", "prompt": "p"}\n')
    assert run_cli(["import", "posts", str(src), "-p", str(tmp_path / "x.winnow")]) == 2
    assert "x.assets" in capsys.readouterr().err
    assert not (tmp_path / "x.winnow").exists()
    assert (tmp_path / "x.assets").read_text() == "mine"


def test_a_demo_that_fails_half_way_leaves_no_project(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk while importing the demo's outputs left a half-made `d.winnow` that
    every later `winnow demo d.winnow` refused as 'already exists'."""
    import core.demo.project as demo

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(demo, "import_outputs", full)
    with pytest.raises(OSError, match="No space left"):
        demo.create_demo_project(tmp_path / "d.winnow", ratings=False)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("d.winnow")]
    monkeypatch.undo()
    project, _ = demo.create_demo_project(tmp_path / "d.winnow", ratings=False)
    with project:
        assert project.counts()["samples"] > 0


@pytest.mark.parametrize("content", [b"not parquet at all", None])
def test_a_dataset_that_cannot_be_read_makes_no_project(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None) -> None:
    """`winnow import hf junk.parquet -p new.winnow` failed but left an empty new.winnow
    behind (`import posts` checks its file before creating anything)."""
    pytest.importorskip("pyarrow")
    source = tmp_path / "junk.parquet"
    if content is None:
        source = tmp_path / "empty-folder"
        source.mkdir()
    else:
        source.write_bytes(content)
    assert run_cli(["import", "hf", str(source), "-p", str(tmp_path / "new.winnow")]) == 2
    assert source.name in capsys.readouterr().err
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("new.")]
