"""The stored ``raw`` text and ``raw_hash`` of imported lines are pinned byte for byte:
a re-import recognises a line as unchanged by its hash, so any change to how the
importer encodes (a faster encoder, other parsing) must keep these exact bytes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from core.ingest.importer import import_jsonl
from core.store import Project

LINES: list[dict[str, object]] = [
    {
        "text": "Ghibli cat — “quoted”, naïve café 猫 🐈",
        "id": "p1",
        "author": "@ä",
        "timestamp": "2025-04-01T10:00:00Z",
        "engagement": {"views": 10**6, "likes": 3},
        "url": "https://x.com/a/status/1",
        "keyword": "ghibli",
        "image_urls": [
            {"url": "https://pbs.example/1.jpg", "alt": "in\tput\n"},
            "https://pbs.example/2.jpg",
        ],
        "replies_below": [{"id": "p2", "text": 'too "yellow" \\ \u2028 \x7f', "author": "@b"}],
    },
    {
        "id": "p3",
        "text": "floats 0.1 1e-07 12345678901234567890",
        "engagement": {"ratio": 0.1, "small": 1e-07, "big": 12345678901234567890, "neg": -0.0},
        "zz": None,
        "aa": [True, False, {}, []],
        "Ä": "key order by code point",
        "B": 1,
    },
    {
        "id": "s1",
        "post_id": "p1",
        "prompt": "make it anime, ✨ keep the cat",
        "quality": "Benchmark",
        "input_images": [0],
        "output_images": [1],
        "is_screenshot": False,
        "tags": ["colour", "ïdentity"],
        "community_feedback": [{"post_id": "p2", "text": "too yellow"}],
    },
]

#: sha1 over the sorted (table, id, raw, raw_hash) rows, from the importer as of
#: issue 18 (the same bytes main has stored since the hashes were introduced)
GOLDEN = "3c3b84147eef0d1e74e974c15c60edc869845083"


def _rows(project: Project) -> list[tuple[str, str, str, str]]:
    rows = [("posts", *r) for r in project.conn.execute("SELECT id, raw, raw_hash FROM posts")]
    # a sample's line lives beside its row since schema 13 (ADR 027), byte for byte the same
    rows += [("samples", *r) for r in project.conn.execute(
        "SELECT s.id, r.raw, r.raw_hash FROM samples s JOIN sample_raw r ON r.sample_id = s.id")]
    return sorted(rows)


def test_raw_text_and_hashes_are_byte_identical(project: Project, tmp_path: Path) -> None:
    src = tmp_path / "lines.jsonl"
    src.write_text("".join(json.dumps(line) + "\n" for line in LINES), encoding="utf-8")
    report = import_jsonl(project, src, fetch_images=False)
    assert not report.errors
    rows = _rows(project)
    assert [r[:2] for r in rows] == [
        ("posts", "p1"),
        ("posts", "p2"),
        ("posts", "p3"),
        ("samples", "s1"),
    ]
    for _, _, raw, raw_hash in rows:
        assert raw_hash == hashlib.sha1(raw.encode("utf-8")).hexdigest()
        # canonical: sorted keys, no whitespace, non-ASCII kept as it is
        assert raw == json.dumps(
            json.loads(raw), sort_keys=True, ensure_ascii=False, separators=(",", ":")
        )
    digest = hashlib.sha1(repr(rows).encode("utf-8")).hexdigest()
    assert digest == GOLDEN

    again = import_jsonl(project, src, fetch_images=False)  # nothing seen as changed
    assert again.imported == 0 and again.updated == 0
    assert _rows(project) == rows
