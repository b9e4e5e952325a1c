"""Traces a curious rater looks for in a fresh rater file besides metadata (new-votes sweep).

tests/rating/test_blinding.py searches the bytes for every spelling of the model names
and classifies images by their file features. This looks where those tests do not: the
digests of the generators' own files (a rater who has the public images can hash them),
unused pages that might hold deleted rows, and row order (the rowid of an image or a task
is insertion order, which a careless writer would take from the design's model order or
put gold last).
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rating"))
from hostile_outputs import LONG_SIDE, MODELS  # noqa: E402
from hostile_outputs import output as hostile_output  # noqa: E402
from rating_helpers import build_project, make_session  # noqa: E402

from core.rating import images as session_images  # noqa: E402

SAMPLES = tuple(f"s{k:03d}" for k in range(12))
PROTOCOLS = ("ranking", "likert", "side_by_side", "checklist")


@pytest.fixture(scope="module")
def made(tmp_path_factory):  # type: ignore[no-untyped-def]
    mp = pytest.MonkeyPatch()
    mp.setattr(session_images, "LONG_SIDE", LONG_SIDE)
    tmp = tmp_path_factory.mktemp("traces")
    project = build_project(tmp / "t.winnow", n_samples=len(SAMPLES), output=hostile_output)
    files = [f for protocol in PROTOCOLS for f in make_session(
        project, tmp / protocol, protocol, name=f"traces-{protocol}", sample_ids=SAMPLES,
        models=MODELS, gold_rate=0.25, tasks_per_rater=12)]
    blind = {tok: (model, bool(deg)) for tok, model, deg in project.conn.execute(
        "SELECT token, model, degraded FROM rating_blinding")}
    sources = [sha for (sha,) in project.conn.execute("SELECT sha256 FROM model_outputs")]
    yield project, files, blind, sources
    project.close()
    mp.undo()


def _ro(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)


def test_no_digest_of_a_generators_file_or_picture(made) -> None:  # type: ignore[no-untyped-def]
    _project, files, _blind, sources = made
    digests = []
    for k in range(len(SAMPLES)):
        for m in MODELS:
            data = hostile_output(k, m)[0]
            digests += [hashlib.sha256(data).digest(), hashlib.md5(data).digest()]
    assert len(sources) == len(SAMPLES) * len(MODELS)  # the project's own digests too
    for path in files:
        raw = path.read_bytes()
        for sha in sources:
            assert sha.encode() not in raw and bytes.fromhex(sha) not in raw
            assert sha[:16].encode() not in raw  # not even a prefix
        for d in digests:
            assert d not in raw and d.hex().encode() not in raw


def test_no_unused_pages_after_writing(made) -> None:  # type: ignore[no-untyped-def]
    """A file written and then trimmed could keep deleted rows (the design's blinding,
    other raters' tasks) in free pages that ``strings`` shows."""
    _project, files, _blind, _sources = made
    for path in files:
        conn = _ro(path)
        assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        conn.close()
        assert not any("blind" in n or "gold" in n or "model" in n for n in names), names
        raw = path.read_bytes()
        for word in (b"rating_blinding", b"degraded", b"gold", b"source_sha256"):
            assert word not in raw.lower() or word == b"gold" and _only_in_scans(path, raw,
                                                                                 word)


def _only_in_scans(path: Path, raw: bytes, word: bytes) -> bool:
    """Four letters turn up by chance in JPEG scan data (the compressed pixels), nowhere
    else: every time the file holds ``word``, an image's scan holds it.  Images are read
    whole through SQLite: a blob longer than a page is stored in pieces, so a position in
    the file says nothing of which image, or which part of it, holds the bytes."""
    conn = _ro(path)
    try:
        scans = [bytes(d)[bytes(d).find(b"\xff\xda"):].lower()
                 for (d,) in conn.execute("SELECT data FROM images")]
        others = [bytes(d)[:bytes(d).find(b"\xff\xda")].lower()
                  for (d,) in conn.execute("SELECT data FROM images")]
    finally:
        conn.close()
    in_scans = sum(len(re.findall(re.escape(word), scan)) for scan in scans)
    in_file = len(re.findall(re.escape(word), raw.lower()))
    return in_file <= in_scans and not any(word in head for head in others)


def test_row_order_follows_neither_model_nor_gold(made) -> None:  # type: ignore[no-untyped-def]
    """Images are stored in digest order, whatever task or option first used them (so an
    image's rowid says no more than its digest); option tokens, task ids and task order
    are checked against the models and gold: each mean relative rank must sit near the
    middle."""
    _project, files, blind, _sources = made
    by_token: dict[str, list[float]] = {m: [] for m in MODELS}
    gold_positions: list[float] = []
    gold_ids: list[float] = []
    for path in files:
        conn = _ro(path)
        stored = [sha for (sha,) in conn.execute("SELECT sha256 FROM images ORDER BY rowid")]
        tasks = conn.execute("SELECT rowid, position, options FROM tasks").fetchall()
        ids = sorted(r for (r,) in conn.execute("SELECT task_id FROM tasks"))
        id_of = dict(conn.execute("SELECT position, task_id FROM tasks").fetchall())
        conn.close()
        assert stored == sorted(stored) and len(stored) > len(tasks)
        tokens = sorted(tok for _r, _p, o in tasks for tok, _sha in json.loads(o))
        assert [t[0] for t in sorted(tasks, key=lambda t: t[1])] == sorted(t[0] for t in tasks)
        for _r, position, options in tasks:
            opts = json.loads(options)
            for tok, _sha in opts:
                model, degraded = blind[tok]
                if not degraded:
                    by_token[model].append(tokens.index(tok) / (len(tokens) - 1))
            if any(blind[tok][1] for tok, _sha in opts):
                gold_positions.append(position / (len(tasks) - 1))
                gold_ids.append(ids.index(id_of[position]) / (len(ids) - 1))
    # each token is drawn at random once: its sorted rank is uniform (sd 0.29)
    for model, seen in by_token.items():
        assert abs(np.mean(seen) - 0.5) < 4 * 0.29 / np.sqrt(len(seen)), model
    # gold tasks spread over the task list, not at its end
    assert len(gold_positions) >= 16
    assert 0.3 < np.mean(gold_positions) < 0.7
    assert 0.3 < np.mean(gold_ids) < 0.7  # task ids sorted do not put gold together
