"""The demo project's content is pinned: the same seed gives the same project.

Written before ``core/demo*.py`` became the ``core.demo`` package (issue 16), so the
refactor could be shown to change nothing.  The pins hold for the versions in
``packaging/constraints.txt`` (Pillow draws the pictures and its font); a deliberate
change of the demo, or of Pillow's drawing, updates them: ``python
tests/test_demo_project.py PROJECT.winnow`` prints the fingerprint of a project.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

#: table -> rows pinned (ORDER BY makes each deterministic; no times, no uuids)
QUERIES = {
    "samples": "SELECT id, post_id, prompt, original_prompt, quality, split, is_screenshot, "
               "review_status, notes FROM samples ORDER BY id",
    "prompts": "SELECT prompt FROM samples ORDER BY id",
    "sample_images": "SELECT sample_id, role, position, ref, sha256, bbox_x, bbox_y, bbox_w, "
                     "bbox_h, error FROM sample_images ORDER BY sample_id, role, position",
    "images": "SELECT sha256, ext, width, height, bytes FROM images WHERE sha256 NOT IN "
              "(SELECT sha256 FROM photos) ORDER BY sha256",
    "posts": "SELECT id, parent_id, text, timestamp, author, engagement FROM posts ORDER BY id",
    "sample_tags": "SELECT sample_id, tag FROM sample_tags ORDER BY 1, 2",
    "feedback": "SELECT sample_id, position, post_id, text FROM feedback ORDER BY 1, 2",
    "model_outputs": "SELECT sample_id, model, sha256 FROM model_outputs ORDER BY 1, 2",
    "metric_results": "SELECT sample_id, model, metric, status, round(value, 9) "
                      "FROM metric_results ORDER BY 1, 2, 3",
    "rating_sessions": "SELECT name, protocol, seed FROM rating_sessions ORDER BY name",
    "rating_tasks": "SELECT s.name, t.task_id, t.slot, t.position, t.sample_id, t.unit, "
                    "t.criterion, t.gold FROM rating_tasks t JOIN rating_sessions s "
                    "ON s.id = t.session_id ORDER BY 1, 2, 3, 4",
    "rating_blinding": "SELECT s.name, b.token, b.task_id, b.position, b.model, b.sha256, "
                       "b.source_sha256, b.degraded FROM rating_blinding b "
                       "JOIN rating_sessions s ON s.id = b.session_id ORDER BY 1, 2",
    "rating_judgments": "SELECT s.name, j.task_id, j.rater, j.answer, j.flag, j.reason, "
                        "j.time_ms FROM rating_judgments j JOIN rating_sessions s "
                        "ON s.id = j.session_id ORDER BY 1, 2, 3, 4",
}
#: only with the [anonymize] extra (drawing the photos needs OpenCV); detections depend
#: on the detectors installed, so only the photographer's manual regions are pinned
PHOTO_QUERIES = {
    "photos": "SELECT sha256, file_name, width, height, status, category, credit, licence, "
              "caption FROM photos ORDER BY sha256",
    "manual_regions": "SELECT p.sha256, r.kind, r.shape, round(r.x, 6), round(r.y, 6), "
                      "round(r.w, 6), round(r.h, 6) FROM photo_regions r JOIN photos p "
                      "ON p.id = r.photo_id WHERE r.source = 'manual' ORDER BY 1, 4, 5",
}

EXPECTED: dict[str, tuple[int, str]] = {
    "samples": (115, "23b33b3d68d71369"),
    "prompts": (115, "721e897fbe09a030"),
    "sample_images": (191, "e15c286c16932627"),
    "images": (437, "06c1e8dc5252c06e"),
    "posts": (428, "8e848bf72dd97d8d"),
    "sample_tags": (109, "73c34f00b93ce0d1"),
    "feedback": (126, "281ca08a02727a10"),
    "model_outputs": (247, "c4c7b9dc0e8f4035"),
    "metric_results": (362, "ef3ddc352c31d358"),
    "rating_sessions": (3, "cf618ccc47ac5f54"),
    "rating_tasks": (186, "66c5a1d2e7bb2daa"),
    "rating_blinding": (348, "f790efd29006f6bd"),
    "rating_judgments": (187, "10d808bee540520e"),
}
EXPECTED_PHOTOS: dict[str, tuple[int, str]] = {
    "photos": (5, "73c513cc87c24b7b"),
    "manual_regions": (2, "9cf968128f82d5b0"),
}
#: rows per table (the audit log's too: who did what, not when); photo_regions is left
#: out (detections depend on the detectors installed)
EXPECTED_COUNTS: dict[str, int] = {
    "audit_log": 159, "feedback": 126, "images": 437, "metric_results": 362,
    "metric_runs": 1, "model_outputs": 247, "photos": 0, "post_images": 186, "posts": 428,
    "project_meta": 4, "rating_blinding": 348, "rating_files": 9, "rating_judgments": 187,
    "rating_keys": 3, "rating_merges": 9, "rating_sessions": 3, "rating_tasks": 186,
    "sample_images": 191, "sample_links": 0, "sample_tags": 109, "samples": 115,
    "sample_raw": 115,
}
#: demo photos add their originals to the images table
PHOTO_COUNTS = {"photos": 5, "images": 5}
SOURCES_SHA256 = "712b3484e7486ea7dc780f34b5aaaf70bfc03031529eb4e3b2836c17fca8a7ad"
SAMPLE_IDS_SHA256 = "b42f3e5e410f8eb56a7e9cee72ac4f58fa2dd10dae528092086c8ebfe02de65d"


def test_demo_project_content_is_pinned(demo_template: Path) -> None:
    from core import extras

    photos = extras.available("anonymize")
    got = fingerprint(demo_template, photos)
    counts = dict(got.pop("counts"))
    counts.pop("photo_regions", None)
    expected_counts = dict(EXPECTED_COUNTS)
    if photos:
        for table, extra in PHOTO_COUNTS.items():
            expected_counts[table] += extra
    assert got.pop("sample_ids") == SAMPLE_IDS_SHA256
    # tables of later features that the demo does not fill (proposals, ...) stay empty
    assert {t: n for t, n in counts.items() if t not in expected_counts and n} == {}
    assert {t: counts.get(t) for t in expected_counts} == expected_counts
    assert got == {**EXPECTED, **(EXPECTED_PHOTOS if photos else {})}


def test_a_later_demo_may_replace_the_whole_sources_folder(demo_template: Path) -> None:
    """Everything the demo wrote beside the project — the data set, the photos, the
    rater files — is in the folder's ownership marker, unchanged (ADR 005)."""
    from core.demo import demo_sources_dir
    from core.export_folder import folder_problem

    sources = demo_sources_dir(demo_template)
    assert (sources / "rating-sessions").is_dir()
    assert folder_problem(sources) is None


def test_demo_sources_are_pinned(tmp_path: Path) -> None:
    """Every file of a small demo data set (posts, pictures, outputs, screenshot truth);
    not the folder's hidden bookkeeping (its ownership marker, with times in it)."""
    from core.demo.sources import generate_demo_sources

    root = tmp_path / "src"
    sources = generate_demo_sources(root, seed=0, n_threads=30)
    digest = hashlib.sha256()
    files = sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))
    for p in files:
        sha = hashlib.sha256(p.read_bytes()).hexdigest()
        digest.update(f"{p.relative_to(root).as_posix()}\0{sha}\n".encode())
    assert (len(files), sources.n_posts, sources.n_samples) == (106, 110, 29)
    assert digest.hexdigest() == SOURCES_SHA256


def fingerprint(path: Path, photos: bool) -> dict[str, Any]:
    """(rows, short hash) per query, rows per table, and the hash of the sample ids."""
    conn = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        out: dict[str, Any] = {}
        for key, sql in {**QUERIES, **(PHOTO_QUERIES if photos else {})}.items():
            rows = [list(r) for r in conn.execute(sql)]
            digest = hashlib.sha256(json.dumps(rows, default=str).encode()).hexdigest()
            out[key] = (len(rows), digest[:16])
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE "
            "'%VIRTUAL TABLE%' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%\\_fts\\_%' "
            "ESCAPE '\\' AND name NOT LIKE 'sample_search\\_%' ESCAPE '\\' ORDER BY name")]
        out["counts"] = {t: conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]
                         for t in tables}
        ids = "\n".join(r[0] for r in conn.execute("SELECT id FROM samples ORDER BY id"))
        out["sample_ids"] = hashlib.sha256(ids.encode()).hexdigest()
        return out
    finally:
        conn.close()


if __name__ == "__main__":
    print(json.dumps(fingerprint(Path(sys.argv[1]), photos=True), indent=1))
