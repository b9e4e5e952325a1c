"""``import hf`` killed (-9, a power cut) while a chunk's images sit in its hidden working
folder beside the project: the next import removes that leftover, as the next export
does its own (ADR 187); the folder held up to a chunk of image bytes forever."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from interop_helpers import pattern, png_bytes

from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
REPO = Path(__file__).resolve().parents[2]

CHILD = """
import sys, time
from pathlib import Path
from core.ingest import importer
from core.interop.hf_import import import_hf
from core.store import Project
def slow(*a, **kw):
    Path(sys.argv[2]).write_text("writing")
    time.sleep(60)
importer.import_jsonl = slow
import_hf(Project.open(sys.argv[1]), sys.argv[3])
"""


def test_the_next_import_removes_what_a_killed_one_left(tmp_path: Path) -> None:
    folder = tmp_path / "ds"
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist(
        [{"prompt": "p", "image": {"bytes": png_bytes(pattern((16, 16), 1)), "path": None}}],
        schema=pa.schema([("prompt", pa.string()), ("image", pa.struct(
            [("bytes", pa.binary()), ("path", pa.string())]))])), folder / "train.parquet")
    path = tmp_path / "p.winnow"
    Project.create(path).close()
    ready = tmp_path / "ready"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(ready), str(folder)],
                             env=env)
    deadline = time.monotonic() + 120
    while not ready.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert ready.exists(), "the child never reached the importer"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    left = [n for n in os.listdir(tmp_path) if ".hf-import" in n]
    assert left and all(".winnow-tmp-" in n for n in left)
    with Project.open(path) as project:
        assert import_hf(project, folder).imported == 1
    assert [n for n in os.listdir(tmp_path) if ".hf-import" in n] == []
