"""`winnow metrics` says what failed (ADR 187): a run whose items failed exits non-zero
naming them, a model that is not installed or a folder that does not exist is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge_server import JudgeServer
from metrics_helpers import cli_project, gradient_image, save

from app.cli import run_cli

_project = cli_project


def _judged(path: Path, url: str, metric: str = "judge_overall") -> list[str]:
    return ["metrics", "run", str(path), "--metric", metric, "--judge-url", url,
            "--judge-model", "refuse", "--judge-timeout", "5", "--judge-repeats", "1"]


def test_every_item_failing_exits_2_naming_them(tmp_path: Path, capsys) -> None:
    path = _project(tmp_path)
    with JudgeServer() as srv:
        code = run_cli(_judged(path, srv.url))
    out, err = capsys.readouterr()
    assert code == 2
    assert json.loads(out)["errors"] == 6  # the report is still printed
    first = err.splitlines()[0]
    assert first.startswith("winnow metrics run: 6 of 6 item(s) failed")
    assert "s0 × same" in err and "content policy" in err
    assert "Traceback" not in err


def test_some_items_failing_exits_1_naming_only_those(tmp_path: Path, capsys) -> None:
    path = _project(tmp_path)
    with JudgeServer() as srv:
        code = run_cli(_judged(path, srv.url, "colour_shift,judge_overall"))
    out, err = capsys.readouterr()
    assert code == 1
    assert json.loads(out)["per_metric"]["colour_shift"]["computed"] == 6
    assert "6 of 12 item(s) failed" in err and "judge_overall" in err
    assert "colour_shift" not in err


def test_a_model_that_is_not_installed_is_one_line(tmp_path: Path, capsys,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("transformers")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    a = save(gradient_image(), tmp_path / "a.png")
    assert run_cli(["metrics", "pair", str(a), str(a), "--metric", "clipscore",
                    "--text", "x"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "is not a folder and not in the Hugging Face cache" in err


@pytest.mark.parametrize("metric", ["clipscore", "structure_distance"])
def test_a_missing_model_folder_says_no_such_folder(tmp_path: Path, capsys,
                                                    metric: str) -> None:
    pytest.importorskip("transformers")
    a = save(gradient_image(), tmp_path / "a.png")
    missing = tmp_path / "nonexistent" / "clip"
    assert run_cli(["metrics", "pair", str(a), str(a), "--metric", metric,
                    "--model", str(missing), "--text", "x"]) == 2
    err = capsys.readouterr().err
    assert f"no such folder: {missing}" in err and "Repo id" not in err
