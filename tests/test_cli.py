"""The ``winnow`` command: version, info, import, demo, clear errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import run_cli
from core import __version__


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True,
                          timeout=120)


def test_version() -> None:
    out = run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"winnow {__version__}"


def test_import_posts_json_contract_and_info(tmp_path: Path, capsys) -> None:
    src = tmp_path / "posts.jsonl"
    src.write_text('{"id": "a", "text": "hello"}\n{oops\n{"id": "b", "text": "x"}\n')
    project = tmp_path / "p.winnow"
    # exit 1: done, but a line was not imported (the report says which)
    assert run_cli(["import", "posts", str(src), "--project", str(project), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["imported"] == 2 and report["updated"] == 0
    assert report["errors"] == [{"line": 2, "error": report["errors"][0]["error"]}]
    assert "invalid JSON" in report["errors"][0]["error"]
    assert report["images"]["fetched"] == 0 and report["images"]["failed"] == 0
    assert run_cli(["info", str(project), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["posts"], info["samples"], info["images"]) == (2, 0, 0)


def test_errors_are_one_clear_line(tmp_path: Path) -> None:
    out = run("info", str(tmp_path / "missing.winnow"))
    assert out.returncode == 2
    assert "No project at" in out.stderr and "Traceback" not in out.stderr
    bad = tmp_path / "bad.winnow"
    bad.write_text("not a database")
    out = run("import", "posts", str(tmp_path / "x.jsonl"), "--project", str(bad))
    assert out.returncode == 2 and "not a Winnow project" in out.stderr


def test_demo_command(tmp_path: Path, capsys) -> None:
    path = tmp_path / "demo.winnow"
    assert run_cli(["demo", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["posts"] > 100 and data["samples"] > 50
    assert data["import"]["errors"] == []
    with __import__("core.store", fromlist=["Project"]).Project.open(path, readonly=True) as p:
        models = [r[0] for r in p.conn.execute("SELECT DISTINCT model FROM model_outputs")]
        quality = {r[0] for r in p.conn.execute("SELECT DISTINCT quality FROM samples")}
        from core.analysis.sources import project_datasets

        datasets, problems = project_datasets(p)
    assert len(models) == 4
    assert {"Benchmark", "Analysis", "Trash"} <= quality
    # the demo ships colour-shift results, so Metrics and Analyze have something to show
    assert problems == []
    assert any(d.kind == "scores" and "colour" in d.name.lower() for d in datasets)


@pytest.mark.parametrize("seed", ["-1", str(2**63), "99999999999999999999999999", "1.5"])
@pytest.mark.parametrize("command", [
    ["demo", "{tmp}/d.winnow"],
    ["session", "create", "{tmp}/p.winnow", "--name", "x", "--protocol", "ranking",
     "--out", "{tmp}/out"],
    ["stats", "elo", "{tmp}/v.csv"],
    ["curate", "split", "{tmp}/p.winnow", "--curators", "2", "--out", "{tmp}/out"],
], ids=["demo", "session", "stats", "curate"])
def test_a_seed_out_of_range_is_refused_naming_the_option(tmp_path: Path, capsys,
                                                          command: list[str],
                                                          seed: str) -> None:
    """`--seed 99999999999999999999999999` ended in an OverflowError traceback (demo,
    session create: SQLite holds 64 bits); `--seed -1` in numpy's bare 'expected
    non-negative integer'. Refused before anything is written."""
    argv = [a.replace("{tmp}", str(tmp_path)) for a in command] + ["--seed", seed]
    with pytest.raises(SystemExit) as exit_:
        run_cli(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --seed: expected a whole number from 0 to {2**63 - 1}" in err
    assert "Traceback" not in err and list(tmp_path.iterdir()) == []


def test_a_reader_that_goes_away_is_not_an_error(tmp_path: Path) -> None:
    """`winnow info P | head -1` printed 'winnow info: error: [Errno 32] Broken pipe'
    (`| true`: the reader is gone before Winnow writes, every time)."""
    (tmp_path / "v.csv").write_text("a,b,winner\nm1,m2,a\nm2,m3,b\n")
    done = subprocess.run(f"{sys.executable} -m app stats winrate v.csv | true; "
                          "echo ${PIPESTATUS[0]}", shell=True, executable="/bin/bash",
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    assert done.stderr == "" and done.stdout == "141\n"


def _session_project(tmp_path: Path) -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parent / "rating"))
    from rating_helpers import build_project

    build_project(tmp_path / "p.winnow").close()
    return tmp_path / "p.winnow"


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("content", "message"), [
    ("fifo", "is not a regular file (a pipe, a device or a socket)"),
    ("/dev/zero", "is not a regular file (a pipe, a device or a socket)"),
    ("[" * 100_000 + "]" * 100_000, "not valid JSON (nested too deeply)"),
    ('{"sample": "s000"}', "expected a JSON list of objects"),
    ("[1, 2]", "expected a JSON list of objects"),
    (b"\xff\xfe[]", "is not UTF-8 text"),
])
def test_session_create_reads_its_small_files_safely(tmp_path: Path, capsys,
                                                     content: str | bytes,
                                                     message: str) -> None:
    """`--gold-file` (and `--questions`, `propose template --user`) read whole: a pipe
    waited for ever, /dev/zero filled the memory, deep nesting or an object instead of a
    list ended in a RecursionError or AttributeError traceback."""
    project = _session_project(tmp_path)
    gold = tmp_path / "gold.json"
    if content == "fifo":
        os.mkfifo(gold)
    elif content == "/dev/zero":
        gold = Path("/dev/zero")
    elif isinstance(content, bytes):
        gold.write_bytes(content)
    else:
        gold.write_text(content)
    args = ["session", "create", str(project), "--name", "x", "--protocol", "ranking",
            "--out", str(tmp_path / "out"), "--models", "aurora-xl,brushwork-2",
            "--gold-rate", "0.1", "--gold-file", str(gold)]
    assert run_cli(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()
    if content == "fifo":  # the checklist questions file, read the same way
        assert run_cli([*args[:-4], "--protocol", "checklist", "--questions",
                        str(gold)]) == 2
        assert "is not a regular file" in capsys.readouterr().err


def test_an_export_into_a_folder_holding_files_says_so_without_errno(tmp_path: Path,
                                                                     capsys) -> None:
    src = tmp_path / "posts.jsonl"
    src.write_text('{"id": "s", "prompt": "p", "text": "t", "quality": "Benchmark"}\n')
    project = tmp_path / "p.winnow"
    assert run_cli(["import", "posts", str(src), "--project", str(project)]) == 0
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("not Winnow's")
    capsys.readouterr()
    assert run_cli(["export", "benchmark", str(project), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out} already exists and is not empty; Winnow left it as it is: " in err
    assert "Errno" not in err
    assert (out / "mine.txt").read_text() == "not Winnow's"
