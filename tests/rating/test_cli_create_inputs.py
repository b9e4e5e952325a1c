"""`winnow session create` names what is wrong with its arguments (stop 32)."""

from __future__ import annotations

from pathlib import Path

from rating_helpers import build_project

from app.cli import run_cli


def _create(project: Path, out: Path, *extra: str) -> list[str]:
    return ["session", "create", str(project), "--name", "s", "--protocol", "ranking",
            "--out", str(out), *extra]


def test_unknown_sample_ids_are_named(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    project = tmp_path / "p.winnow"
    build_project(project).close()
    assert run_cli(_create(project, tmp_path / "o", "--samples", "s000,nope,s001,zip")) == 2
    err = capsys.readouterr().err
    assert "no such sample(s) in the project: 'nope', 'zip'" in err
    assert not (tmp_path / "o").exists()


def test_an_out_path_that_is_a_file_is_refused_by_name(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    project = tmp_path / "p.winnow"
    build_project(project).close()
    assert run_cli(_create(project, project)) == 2
    err = capsys.readouterr().err  # the sentence every refusal uses (ADR 216)
    assert f"{project} is a file, not a folder; Winnow left it as it is: " in err
    assert "Errno" not in err


def test_more_raters_than_tasks_can_reach_is_refused(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Before, 1,000 raters for 62 samples wrote 1,000 rater files, 938 of them empty."""
    project = tmp_path / "p.winnow"
    build_project(project).close()  # 6 samples: 6 ranking tasks
    out = tmp_path / "o"
    assert run_cli(_create(project, out, "--raters", "10", "--overlap", "1")) == 2
    err = capsys.readouterr().err
    assert "4 of the 10 raters would get no task" in err and "fewer raters" in err
    assert not out.exists() or not any(out.iterdir())
    assert run_cli(_create(project, out, "--raters", "10", "--overlap", "2")) == 0
