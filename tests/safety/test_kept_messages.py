"""A refusal to write where something already is reads as one sentence (ADR 216).

Every command that writes a file or folder the user names says, when the name is taken:
the path, why it is in the way, that Winnow left it as it is, and how to go on; exit
status 2, not "[Errno 17] File exists: '…'", and the thing in the way keeps its bytes.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from safety_helpers import snapshot, store_metric_results

from app.cli import run_cli
from core.files import MADE_MEANWHILE, atomic_writer, kept_message


def blockers_in(folder: Path) -> dict[str, Path]:
    """A file, a folder with a file in it, a link to the file and a link to nothing."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "file.txt").write_text("keep me")
    (folder / "dir").mkdir()
    (folder / "dir" / "a.txt").write_text("mine")
    os.symlink("file.txt", folder / "link")
    os.symlink("nowhere", folder / "dangling")
    return {name: folder / name for name in ("file.txt", "dir", "link", "dangling")}


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str], target: Path) -> str:
    assert run_cli(argv) == 2, argv
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Errno" not in err and "File exists" not in err, err
    assert str(target) in err and "Winnow left it as it is: " in err, err
    return err


def _commands(project: Path, target: Path) -> dict[str, list[str]]:
    p = str(project)
    return {
        "export benchmark": ["export", "benchmark", p, "--out", str(target)],
        "export benchmark hf": ["export", "benchmark", p, "--out", str(target),
                                "--format", "hf"],
        "export photos": ["export", "photos", p, "--out", str(target)],
        "curate split": ["curate", "split", p, "--names", "Ann,Ben", "--out", str(target)],
        "metrics export": ["metrics", "export", p, "--out", str(target)],
        "session create": ["session", "create", p, "--name", "s", "--protocol", "likert",
                           "--raters", "2", "--out", str(target)],
        "anonymize": ["anonymize", str(project.parent), "--out", str(target),
                      "--face-detector", "hog", "--no-plates"],
    }


#: which blockers each command refuses (a rater-file folder may be an existing folder)
_REFUSES = {"session create": ("file.txt", "link", "dangling"),
            "anonymize": ("file.txt", "link", "dangling")}


@pytest.mark.parametrize("command", ["export benchmark", "export benchmark hf",
                                     "export photos", "curate split", "metrics export",
                                     "session create", "anonymize"])
def test_every_writing_command_refuses_a_taken_name_in_one_sentence(
        project_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        command: str) -> None:
    if command == "metrics export":
        store_metric_results(project_path)  # with none it refuses before any name (ADR 228)
        capsys.readouterr()
    out = tmp_path / "out"
    blockers = blockers_in(out)
    before = snapshot(out)
    links = {name: os.readlink(path) for name, path in blockers.items() if path.is_symlink()}
    for name in _REFUSES.get(command, tuple(blockers)):
        _refused(capsys, _commands(project_path, blockers[name])[command], blockers[name])
    assert snapshot(out) == before  # nothing written, nothing replaced
    assert {n: os.readlink(p) for n, p in blockers.items() if p.is_symlink()} == links
    assert sorted(os.listdir(out)) == sorted(blockers)


def test_folder_exports_say_a_file_is_in_the_way_as_a_sentence(
        project_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "bench"
    blocker.write_text("keep me")
    err = _refused(capsys, ["export", "benchmark", str(project_path), "--out", str(blocker)],
                   blocker)
    assert err.endswith(f"{blocker} already exists and is not a folder; Winnow left it as "
                        "it is: choose another folder name, or move the file away yourself")
    assert blocker.read_text() == "keep me"


def test_a_split_does_not_suggest_an_overwrite_it_does_not_have(
        project_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "packages"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    err = _refused(capsys, ["curate", "split", str(project_path), "--names", "Ann,Ben",
                            "--out", str(out)], out)
    assert "overwrite" not in err and err.endswith("choose another (or an empty) folder")


def test_atomic_writer_names_a_taken_file_and_one_taken_meanwhile(tmp_path: Path) -> None:
    taken = tmp_path / "taken.txt"
    taken.write_text("keep me")
    with pytest.raises(FileExistsError) as refused, atomic_writer(taken, "w") as fh:
        fh.write("new")
    assert str(refused.value) == kept_message(taken)
    assert taken.read_text() == "keep me"

    late = tmp_path / "late.txt"
    with pytest.raises(FileExistsError) as refused, atomic_writer(late, "w") as fh:
        fh.write("mine")
        late.write_text("another process's")  # made between the check and the move
    assert str(refused.value) == kept_message(late, MADE_MEANWHILE)
    assert "another process" in str(refused.value) and "Errno" not in str(refused.value)
    assert late.read_text() == "another process's"
    assert sorted(os.listdir(tmp_path)) == ["late.txt", "taken.txt"]  # no temporary left


def test_check_folder_target_raises_sentences(tmp_path: Path) -> None:
    """``str()`` of its errors is what the GUI shows (Analyze's report export)."""
    from core.export_folder import check_folder_target

    blockers = blockers_in(tmp_path)
    for name, path in blockers.items():
        with pytest.raises(FileExistsError) as refused:
            check_folder_target(path, False, "analysis report")
        text = str(refused.value)
        assert text.startswith(f"{path} ") and "Winnow left it as it is: " in text, name
        assert "Errno" not in text and "'" not in text, text
