"""The import's bulk full-text indexing gives exactly what the per-row triggers give."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from core.ingest import importer
from core.ingest.importer import import_jsonl
from core.store import Project
from core.store.bulk import LIFTED, TRIGGERS_SHA256, triggers_digest


def _lines(variant: int) -> list[dict]:
    out: list[dict] = []
    # a sample whose post comes later in the file (it waits for the end)
    out.append({"id": "s-early", "post_id": "p-late", "prompt": f"early fox {variant}",
                "community_feedback": [{"post_id": "r1", "text": "orange tint"}]})
    for k in range(30):
        out.append({"id": f"p{k}", "text": f"ghibli cat number {k} v{variant}",
                    "replies_below": [{"id": f"r{k}", "text": f"too yellow {k}"}]})
        out.append({"id": f"s{k}", "post_id": f"p{k}", "prompt": f"make cat {k} anime",
                    "community_feedback": [{"post_id": f"r{k}", "text": f"yellow {k}"},
                                           f"second note {k} {variant}"],
                    "tags": ["colour"]})
    out.append({"id": "p-late", "text": f"the late post {variant}"})
    return out


def _snapshot(project: Project) -> dict[str, list]:
    conn = project.conn
    for table in ("posts_fts", "samples_fts", "sample_search"):
        conn.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
    return {
        "search": conn.execute("SELECT rowid, prompt, post_text, feedback, meta "
                               "FROM sample_search ORDER BY rowid").fetchall(),
        "posts": conn.execute("SELECT rowid FROM posts_fts WHERE posts_fts MATCH 'yellow OR "
                              "late OR ghibli' ORDER BY rowid").fetchall(),
        "samples": conn.execute("SELECT rowid FROM samples_fts WHERE samples_fts MATCH "
                                "'cat OR fox' ORDER BY rowid").fetchall(),
        "triggers": sorted(r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'")),
    }


def _run(tmp_path: Path, name: str, bulk: bool, monkeypatch: pytest.MonkeyPatch) -> dict:
    if not bulk:
        monkeypatch.setattr(importer, "deferred_search_index",
                            lambda conn: contextlib.nullcontext())
    src = tmp_path / f"{name}.jsonl"
    with Project.create(tmp_path / f"{name}.winnow") as project:
        for variant in (1, 2):  # the second import updates posts, samples and feedback
            src.write_text("\n".join(json.dumps(x) for x in _lines(variant)) + "\n")
            report = import_jsonl(project, src, fetch_images=False, batch_size=7)
            assert report.errors == []
        snap = _snapshot(project)
    monkeypatch.undo()
    return snap


def test_bulk_indexing_matches_the_triggers(tmp_path: Path, monkeypatch) -> None:
    with_triggers = _run(tmp_path, "rows", bulk=False, monkeypatch=monkeypatch)
    bulk = _run(tmp_path, "bulk", bulk=True, monkeypatch=monkeypatch)
    assert bulk == with_triggers
    assert set(LIFTED) <= set(bulk["triggers"])  # every trigger is back
    assert any("orange tint" in row[3] for row in bulk["search"])
    assert any("the late post 2" in row[2] for row in bulk["search"])
    assert any("s-early p-late" in row[4] for row in bulk["search"])  # id, post, author


def test_the_pinned_triggers_are_the_current_schemas(tmp_path: Path) -> None:
    """A migration that rewrites a lifted trigger must update core/store/bulk.py too (its
    bulk statements reproduce those triggers); until then the import stays on the
    triggers, which this test makes visible."""
    with Project.create(tmp_path / "p.winnow") as project:
        saved = dict(project.conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall())
    assert triggers_digest(saved) == TRIGGERS_SHA256


def test_unknown_triggers_are_left_alone(tmp_path: Path, monkeypatch) -> None:
    from core.store import bulk

    monkeypatch.setattr(bulk, "TRIGGERS_SHA256", "0" * 64)
    with Project.create(tmp_path / "p.winnow") as project, project.transaction() as conn, \
            bulk.deferred_search_index(conn):
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master "
                                            "WHERE type = 'trigger'")}
        assert set(LIFTED) <= names  # nothing lifted
