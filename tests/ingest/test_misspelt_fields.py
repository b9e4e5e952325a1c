"""A field name a letter or two away from one Winnow reads is named once in the import
report (it silently dropped a post's images or a sample's label); the many other fields
scrapers add are ignored without a word (ADR 205)."""

from __future__ import annotations

import json
from pathlib import Path

from core.ingest.fields import MAX_NAMES, Misspellings
from core.ingest.importer import import_jsonl
from core.store import Project


def test_typos_of_known_fields_are_notes_and_scraper_extras_are_not(tmp_path: Path) -> None:
    lines = [
        {"id": "p1", "text": "a", "image_url": ["a.png"], "lang": "en", "retweet_count": 3},
        {"id": "p2", "text": "b", "image_url": ["b.png"], "quoted_post": {"id": "q"}},
        {"id": "s1", "prompt": "x", "post_id": "p1", "input_image": [0], "qualty": "Trash"},
        {"id": "s2", "prompt": "y", "post_id": "p1", "review_status": "reviewed",
         "prompt_modified": False, "derived_from": None},  # Winnow's own export: quiet
    ]
    src = tmp_path / "posts.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    with Project.create(tmp_path / "p.winnow") as project:
        report = import_jsonl(project, src)
    assert not report.errors and report.imported == 4
    assert report.notes == [
        {"line": 1, "note": "field 'image_url' is not one Winnow reads (did you mean "
                            "'image_urls'?); it was ignored on 2 line(s)"},
        {"line": 3, "note": "field 'input_image' is not one Winnow reads (did you mean "
                            "'input_images'?); it was ignored on 1 line(s)"},
        {"line": 3, "note": "field 'qualty' is not one Winnow reads (did you mean "
                            "'quality'?); it was ignored on 1 line(s)"},
    ]


def test_a_flood_of_names_is_bounded() -> None:
    seen = Misspellings()
    seen.check(1, [f"name{k}" for k in range(MAX_NAMES * 3)] + ["notess"])
    assert seen.notes() == []  # names past the bound are not examined
    seen = Misspellings()
    seen.check(1, ["notess"])
    assert [n for _, n in seen.notes()] == [
        "field 'notess' is not one Winnow reads (did you mean 'notes'?); it was ignored on "
        "1 line(s)"]
