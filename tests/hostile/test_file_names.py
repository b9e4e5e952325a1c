"""File names Winnow derives from user text (session names): portable, never a path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rating"))
from rating_helpers import build_project, make_session  # noqa: E402


@pytest.mark.parametrize("name", ["x" * 300, "é" * 200, "../../evil", "a/b\\c", "CON", "..",
                                  "a\nb\x00c"])
def test_session_files_stay_in_the_folder_with_a_short_name(tmp_path: Path, name: str) -> None:
    """A 300-character session name failed with 'File name too long'."""
    project = build_project(tmp_path / "p.winnow", n_samples=2)
    try:
        files = make_session(project, tmp_path / "out", "ranking", name=name, raters=1,
                             sample_ids=("s000", "s001"))
    finally:
        project.close()
    assert [f.parent for f in files] == [tmp_path / "out"]
    for f in files:
        assert f.is_file() and len(f.name.encode()) <= 255
        assert "/" not in f.name and "\\" not in f.name and "\x00" not in f.name
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(f.name for f in files)


def test_a_dangling_link_named_like_a_rater_file_is_refused_up_front(tmp_path: Path) -> None:
    """It failed late with '[Errno 17] File exists (not replaced)'; now the same clear
    refusal as for an existing file, and the link is left alone."""
    import os

    out = tmp_path / "out"
    out.mkdir()
    os.symlink(tmp_path / "nowhere", out / "ranking-R1.winnow-session")
    project = build_project(tmp_path / "p.winnow", n_samples=2)
    try:
        with pytest.raises(FileExistsError, match="already exists; Winnow left it as it is: "
                                                   "choose another session name or an empty"):
            make_session(project, out, "ranking", raters=1, sample_ids=("s000", "s001"))
    finally:
        project.close()
    assert os.readlink(out / "ranking-R1.winnow-session") == str(tmp_path / "nowhere")


@pytest.mark.parametrize("name", ["../../evil", "a/b\\c", "CON", "x" * 300, "a\x00b",
                                  "Zoë O'Brien", "..", "<script>"])
def test_curator_package_names_are_portable(name: str) -> None:
    from core.teamwork.split import file_stem

    stem = file_stem(name)
    assert stem and len(stem) <= 40 and stem == stem.lower()
    assert all(c.isascii() and (c.isalnum() or c == "-") for c in stem), stem
