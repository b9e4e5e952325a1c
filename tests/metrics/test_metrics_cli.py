"""``winnow metrics run | pair | export | list | winrate`` through the real argument parser."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from judge_server import JudgeServer
from metrics_helpers import cli_project, gradient_image, save, yellow_tint

from app.cli import run_cli
from core.store import Project

_project = cli_project


def _json(capsys) -> dict:
    return json.loads(capsys.readouterr().out)


def test_pair_json(tmp_path: Path, capsys) -> None:
    a = save(gradient_image(), tmp_path / "a.png")
    b = save(yellow_tint(gradient_image()), tmp_path / "b.png")
    assert run_cli(["metrics", "pair", str(a), str(b), "--metric", "colour_shift",
                    "--json"]) == 0
    out = _json(capsys)
    assert out["metric"] == "colour_shift" and out["value"] > 0
    assert out["details"]["b_shift"] > 0 and set(out) >= {"metric", "value", "details"}
    assert run_cli(["metrics", "pair", str(a), str(a), "--metric", "colour"]) == 0
    assert capsys.readouterr().out.strip() == "colour_shift: 0"


def test_pair_with_model_and_text(tiny_clip: Path, tmp_path: Path, capsys) -> None:
    a = save(gradient_image(), tmp_path / "a.png")
    assert run_cli(["metrics", "pair", str(a), str(a), "--metric", "clipscore", "--model",
                    str(tiny_clip), "--text", "a red bicycle", "--device", "cpu",
                    "--json"]) == 0
    out = _json(capsys)
    assert out["status"] == "ok" and out["value"] == pytest.approx(
        100 * max(out["details"]["cosine"], 0))


def test_pair_errors_are_one_line_exit_2(tmp_path: Path, capsys) -> None:
    a = save(gradient_image(), tmp_path / "a.png")
    assert run_cli(["metrics", "pair", str(a), str(tmp_path / "nope.png"),
                    "--metric", "colour_shift"]) == 2
    assert "nope.png: no such image file" in capsys.readouterr().err
    assert run_cli(["metrics", "pair", str(a), str(a), "--metric", "bogus"]) == 2
    assert "unknown metric 'bogus'" in capsys.readouterr().err
    assert run_cli(["metrics", "pair", str(a), str(a), "--metric", "colour_shift",
                    "--model", "x"]) == 2


def test_run_then_cached_then_export(tmp_path: Path, capsys) -> None:
    path = _project(tmp_path)
    assert run_cli(["metrics", "run", str(path), "--metric", "colour_shift,face",
                    "--models", "tinted", "--device", "cpu"]) == 0
    out = _json(capsys)
    assert out["per_metric"]["colour_shift"]["computed"] == 3
    assert out["per_metric"]["face_identity"]["not_applicable"] == 3  # no faces
    assert out["stats"]["colour_shift"]["tinted"]["n"] == 3
    assert run_cli(["metrics", "run", str(path), "--metric", "colour_shift",
                    "--device", "cpu"]) == 0
    again = _json(capsys)
    assert again["cached"] == 3 and again["computed"] == 3  # "same" is new, "tinted" cached
    csv_path = tmp_path / "res.csv"
    assert run_cli(["metrics", "export", str(path), "--out", str(csv_path)]) == 0
    rows = list(csv.DictReader(csv_path.open(encoding="utf-8")))
    assert {r["metric"] for r in rows} >= {"colour_shift", "colour_shift/b_shift",
                                           "face_identity"}
    assert run_cli(["metrics", "run", str(path), "--metric", "colour_shift",
                    "--models", "ghost"]) == 2
    assert "no outputs for model(s) ghost" in capsys.readouterr().err


def test_run_judges_and_winrate(tmp_path: Path, capsys) -> None:
    path = _project(tmp_path)
    with JudgeServer() as srv:
        assert run_cli(["metrics", "run", str(path), "--metric", "judge", "--judge-url", srv.url,
                        "--judge-model", "good:8,low:2,good:5", "--judge-timeout", "5"]) == 0
    out = _json(capsys)
    assert out["per_metric"]["judge_overall"]["computed"] == 6
    assert run_cli(["metrics", "winrate", str(path)]) == 0
    # every judge gives both models the same score: all ties
    assert _json(capsys)["win_rate"] == {"same": 0.5, "tinted": 0.5}


def test_list_names_every_metric(capsys) -> None:
    assert run_cli(["metrics", "list"]) == 0
    names = [m["name"] for m in _json(capsys)]
    assert names == ["colour_shift", "face_identity", "structure_distance", "clipscore",
                     "text_ocr_cer", "judge_overall", "judge_text", "judge_tecci"]


def test_cuda_requested_without_gpu_is_a_clear_error(tmp_path: Path, capsys) -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    a = save(gradient_image(), tmp_path / "a.png")
    assert run_cli(["metrics", "pair", str(a), str(a), "--metric", "structure_distance",
                    "--device", "cuda"]) == 2
    assert "no CUDA GPU" in capsys.readouterr().err


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--dino-resolution", "100000", "the DINO resolution must be 32–1024 pixels"),
    ("--dino-resolution", "-5", "the DINO resolution must be 32–1024 pixels"),
    ("--batch-size", "99999999999999999999", "the batch size must be 1–512"),
    ("--judge-repeats", "-2", "judge repeats must be 1–20"),
    ("--judge-timeout", "nan", "the judge timeout must be from 0 to 3600 seconds"),
])
def test_settings_the_dialog_cannot_make_are_refused(tmp_path: Path, capsys, option: str,
                                                     value: str, message: str) -> None:
    """They were accepted: `--dino-resolution 100000` asked DINO for a 10-gigapixel
    tensor, a NaN judge timeout or negative repeats reached the run."""
    path = _project(tmp_path)
    args = ["metrics", "run", str(path), "--metric", "colour_shift", option, value]
    if option.startswith("--judge"):
        args += ["--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "j"]
    assert run_cli(args) == 2
    assert message in capsys.readouterr().err
    with Project.open(path, readonly=True) as project:
        assert project.conn.execute("SELECT COUNT(*) FROM metric_results").fetchone()[0] == 0


def test_export_with_no_results_is_refused_and_writes_nothing(tmp_path: Path, capsys) -> None:
    """ADR 228: `winnow metrics export` of a project (or a metric) with no stored result
    wrote a header-only file and said "Wrote 0 rows"; it is refused (exit 2, one line
    naming the project and the metrics), and no file is written."""
    path = _project(tmp_path)
    for out in (tmp_path / "none.csv", tmp_path / "none.parquet"):
        assert run_cli(["metrics", "export", str(path), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"{path.name} holds no metric results; nothing was written to {out}" in err
        assert "winnow metrics run" in err and not out.exists()
    assert run_cli(["metrics", "run", str(path), "--metric", "colour_shift",
                    "--models", "tinted", "--device", "cpu"]) == 0
    capsys.readouterr()
    out = tmp_path / "face.csv"
    assert run_cli(["metrics", "export", str(path), "--out", str(out), "--metric",
                    "face"]) == 2
    assert "holds no metric results of face_identity;" in capsys.readouterr().err
    assert not out.exists()
    assert run_cli(["metrics", "export", str(path), "--out", str(out), "--metric",
                    "colour_shift"]) == 0
    assert "Wrote 6 rows" in capsys.readouterr().out and out.exists()
