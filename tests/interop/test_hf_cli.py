"""The command line: ``export benchmark --format hf``, ``export photos``, ``import hf``;
exit statuses, clear errors, and a kill -9 mid-export."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from interop_helpers import pattern, release

from core.store import Project

REPO = Path(__file__).resolve().parents[2]
datasets = pytest.importorskip("datasets")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=300)


def test_export_hf_then_import_hf(bench_file: Path, tmp_path: Path) -> None:
    run = _cli("export", "benchmark", str(bench_file), "--out", "hf", "--format", "hf",
               "--license", "cc-by-4.0", cwd=tmp_path)
    assert run.returncode == 1, run.stderr  # s4's image is missing: not everything written
    report = json.loads(run.stdout)
    assert report["exported"] == 3 and report["skipped"][0]["sample"] == "s4"
    assert set(datasets.load_dataset(str(tmp_path / "hf"))) == {"image_to_image",
                                                                "text_to_image"}
    run = _cli("export", "benchmark", str(bench_file), "--out", "hf", "--format", "hf",
               cwd=tmp_path)
    assert run.returncode == 2 and "not empty" in run.stderr and "Traceback" not in run.stderr
    (tmp_path / "hf" / "notes.txt").write_text("mine")
    run = _cli("export", "benchmark", str(bench_file), "--out", "hf", "--format", "hf",
               "--overwrite", cwd=tmp_path)
    assert run.returncode == 2 and "notes.txt" in run.stderr and "Traceback" not in run.stderr
    assert (tmp_path / "hf" / "notes.txt").read_text() == "mine"
    (tmp_path / "hf" / "notes.txt").unlink()
    run = _cli("import", "hf", "hf", "--project", "new.winnow", "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["imported"] == 3
    run = _cli("import", "hf", "hf", "--project", "new.winnow", "--column", "prompt",
               cwd=tmp_path)
    assert run.returncode == 2 and "FIELD=COLUMN" in run.stderr


def test_import_hf_exit_status_names_bad_rows(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"prompt": ["ok", None], "id": ["a", "b"]}),
                   tmp_path / "train.parquet")
    run = _cli("import", "hf", "train.parquet", "--project", "p.winnow", cwd=tmp_path)
    assert run.returncode == 1
    assert "train row 1" in run.stdout and "prompt" in run.stdout
    run = _cli("import", "hf", "nowhere", "--project", "p.winnow", cwd=tmp_path)
    assert run.returncode == 2 and "does not exist" in run.stderr


def test_export_photos(tmp_path: Path) -> None:
    project = Project.create(tmp_path / "ph.winnow")
    pattern((30, 20), 4).save(tmp_path / "a.png")
    release(project, tmp_path / "a.png", category="Art", credit="Cy")
    project.close()
    run = _cli("export", "photos", "ph.winnow", "--out", "photos", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    ds = datasets.load_dataset(str(tmp_path / "photos"))["train"]
    assert ds["category"] == ["Art"] and ds["credit"] == ["Cy"]


def test_missing_pyarrow_is_a_message_naming_the_extra(bench_file: Path,
                                                       tmp_path: Path) -> None:
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import sys\nsys.modules['pyarrow'] = None\nsys.modules['pyarrow.parquet'] = None\n")
    env = {**os.environ, "PYTHONPATH": f"{blocker}{os.pathsep}{REPO}"}
    run = subprocess.run([sys.executable, "-m", "app", "export", "benchmark", str(bench_file),
                          "--out", "hf", "--format", "hf"], capture_output=True, text=True,
                         cwd=tmp_path, env=env, timeout=300)
    assert run.returncode == 2
    assert "'parquet' part" in run.stderr and "[parquet]" in run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "hf").exists()


CHILD = """
import sys, time
from pathlib import Path
from core.interop import shards
from core.interop.hf_export import export_benchmark_hf
from core.store import Project
real = shards.ShardWriter.add
def slow(self, *a, **kw):
    real(self, *a, **kw)
    Path(sys.argv[2]).write_text("writing")
    time.sleep(60)
shards.ShardWriter.add = slow
export_benchmark_hf(Project.open(sys.argv[1], readonly=True), sys.argv[3])
"""


def test_kill_9_mid_export_leaves_nothing_that_looks_complete(bench_file: Path,
                                                              tmp_path: Path) -> None:
    from core.interop.hf_export import export_benchmark_hf

    ready, out = tmp_path / "ready", tmp_path / "hf"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(bench_file), str(ready),
                              str(out)], env=env)
    deadline = time.monotonic() + 120
    while not ready.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert ready.exists(), "the child never started writing"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert not out.exists()
    leftovers = [n for n in os.listdir(tmp_path) if n.startswith(".hf")]
    assert leftovers and all(".winnow-tmp-" in n for n in leftovers)  # hidden, recognisable
    with Project.open(bench_file, readonly=True) as project:
        export_benchmark_hf(project, out)  # the next export cleans what the kill left
    assert [n for n in os.listdir(tmp_path) if n.startswith(".hf")] == []
    assert (out / "README.md").is_file()
