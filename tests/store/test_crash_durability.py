"""A writer killed with SIGKILL in the middle of an import loses nothing it committed."""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.ingest.importer import import_jsonl
from core.store import Project

CHILD = r"""
import sys
from core.ingest.importer import import_jsonl
from core.store import Project
from core.store import project as project_module

project = Project.open(sys.argv[1])
original = Project.transaction

import contextlib

@contextlib.contextmanager
def reporting(self):
    outer = self._depth == 0
    with original(self) as conn:
        yield conn
    if outer:  # committed: say how many posts are durable now
        n = self.conn.execute("SELECT count(*) FROM posts").fetchone()[0]
        print(f"committed {n}", flush=True)

Project.transaction = reporting
import_jsonl(project, sys.argv[2], batch_size=int(sys.argv[3]), fetch_images=False)
print("finished", flush=True)
"""

N_POSTS = 20_000
BATCH = 250


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("crash") / "posts.jsonl"
    with open(path, "w") as fh:
        for k in range(N_POSTS):
            post = {"id": f"p{k}", "text": f"post number {k} " * 5, "author": f"@u{k % 97}",
                    "image_urls": [{"url": f"https://example.invalid/{k}.jpg", "alt": "x"}],
                    "replies_below": [{"id": f"r{k}", "text": "reply"}]}
            fh.write(json.dumps(post) + "\n")
    return path


@pytest.mark.parametrize("trial", range(4))
def test_sigkill_mid_import_keeps_every_committed_batch(tmp_path: Path, source: Path,
                                                        trial: int) -> None:
    project_path = tmp_path / "crash.winnow"
    Project.create(project_path).close()
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(project_path), str(source),
                              str(BATCH)], stdout=subprocess.PIPE, text=True)
    rng = random.Random(trial)
    wanted = rng.randint(2, 30)
    last = 0
    for _ in range(wanted):
        line = child.stdout.readline()
        if not line.startswith("committed"):
            break
        last = int(line.split()[1])
    time.sleep(rng.uniform(0, 0.05))
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert child.returncode == -signal.SIGKILL

    conn = sqlite3.connect(project_path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    posts = conn.execute("SELECT count(*) FROM posts WHERE id LIKE 'p%'").fetchone()[0]
    replies = conn.execute("SELECT count(*) FROM posts WHERE id LIKE 'r%'").fetchone()[0]
    images = conn.execute("SELECT count(*) FROM post_images").fetchone()[0]
    conn.close()
    assert posts + replies >= last, "a committed batch was lost"
    assert posts % BATCH == 0, "a batch was half written"
    assert replies == posts == images, "a post lost its replies or image rows"

    # the interrupted import can simply be run again: no duplicates, nothing missing
    with Project.open(project_path) as project:
        report = import_jsonl(project, source, fetch_images=False)
        assert report.imported + report.unchanged == N_POSTS
        assert report.unchanged == posts
        assert project.counts()["posts"] == 2 * N_POSTS
