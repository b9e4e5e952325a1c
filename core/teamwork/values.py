"""The fields a curator package brings back, read the same way from a project and from
a package (they share the schema), as plain JSON values that compare with ``==``.

=============== ===================================================================
field           value
=============== ===================================================================
quality         "Benchmark" | "Analysis" | "Trash" | None
review_status   "unreviewed" | "reviewed"
split           "text-to-image" | "image-to-image" | None
prompt          text (the original extracted prompt never changes)
notes           text
tags            sorted list of tags
images          {"screenshot": bool, "rows": sorted [role, position, ref, sha256,
                x, y, w, h, error] rows} — image roles and screenshot boxes
=============== ===================================================================
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

SCALARS = ("quality", "review_status", "split", "prompt", "notes")
FIELDS = (*SCALARS, "tags", "images")
FIELD_TITLES = {"quality": "Quality", "review_status": "Review status", "split": "Split",
                "prompt": "Prompt", "notes": "Notes", "tags": "Tags",
                "images": "Image roles and boxes"}
_IDS = "SELECT value FROM json_each(?)"
ROLE_ORDER = {"input": 0, "output": 1, "unused": 2}

Values = dict[str, Any]


def ids_json(ids: Iterable[str]) -> str:
    """Sample ids as the JSON array the queries take."""
    return json.dumps(list(ids), ensure_ascii=False)


def read_values(conn: sqlite3.Connection, ids: Iterable[str]) -> dict[str, Values]:
    """``{sample id: {field: value}}`` for the ``ids`` that exist (four queries)."""
    payload = ids_json(ids)
    out: dict[str, Values] = {}
    for sid, quality, review, split, prompt, notes, shot in conn.execute(
            "SELECT id, quality, review_status, split, prompt, notes, is_screenshot "
            f"FROM samples WHERE id IN ({_IDS})", (payload,)):
        out[sid] = {"quality": quality, "review_status": review, "split": split,
                    "prompt": prompt, "notes": notes, "tags": [],
                    "images": {"screenshot": bool(shot), "rows": []}}
    for sid, tag in conn.execute(
            f"SELECT sample_id, tag FROM sample_tags WHERE sample_id IN ({_IDS}) "
            "ORDER BY sample_id, tag", (payload,)):
        if sid in out:
            out[sid]["tags"].append(tag)
    for sid, *row in conn.execute(
            "SELECT sample_id, role, position, ref, sha256, bbox_x, bbox_y, bbox_w, bbox_h, "
            f"error FROM sample_images WHERE sample_id IN ({_IDS})", (payload,)):
        if sid in out:
            out[sid]["images"]["rows"].append(list(row))
    for values in out.values():
        values["images"]["rows"].sort(key=row_key)
    return out


def row_key(row: list[Any]) -> tuple[Any, ...]:
    """Sort key of an image row (role, position, then everything else as text)."""
    return (ROLE_ORDER.get(row[0], 9), row[1] if isinstance(row[1], int) else 0, repr(row))


def dumps(value: Any) -> str:
    """A value as the JSON text stored in ``team_*`` tables (compact, key-sorted)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def loads(text: str | None) -> Any:
    """The value stored by :func:`dumps` (None stays None)."""
    return None if text is None else json.loads(text)


def images_summary(value: dict[str, Any]) -> tuple[tuple[str, ...], bool]:
    """An images value in the terms Curate's audit rows use (``image_edits._summary``:
    role, position, image = sha256 or reference, box), order-free, for comparing."""
    entries = []
    for role, position, ref, sha, x, y, w, h, _error in value["rows"]:
        entry: dict[str, Any] = {"role": role, "position": position, "image": sha or ref}
        if x is not None:
            entry["box"] = [x, y, w, h]
        entries.append(dumps(entry))
    return tuple(sorted(entries)), bool(value["screenshot"])


def comparable(name: str, value: Any) -> Any:
    """A field's value in the terms merges compare: images by role, position, image and
    box (as Curate's audit rows name them); everything else as it is."""
    if name == "images" and isinstance(value, dict):
        return images_summary(value)
    if name == "images" and isinstance(value, list | tuple):  # already a summary
        return tuple(value[0]), bool(value[1])
    return value


def audit_summary_key(summary: Any) -> tuple[tuple[str, ...], bool] | None:
    """The same comparison key for an ``images`` audit value (None when malformed)."""
    if not isinstance(summary, dict) or not isinstance(summary.get("images"), list):
        return None
    try:
        entries = tuple(sorted(dumps(e) for e in summary["images"]))
    except TypeError:
        return None
    return entries, bool(summary.get("is_screenshot"))


def roles(value: dict[str, Any]) -> dict[str, str]:
    """``{image: role}`` of the whole images (no box) of an images value."""
    out: dict[str, str] = {}
    for role, _pos, ref, sha, x, *_rest in value["rows"]:
        if x is None:
            out[sha or ref or ""] = role
    return out


def boxes(value: dict[str, Any]) -> list[tuple[str, str, tuple[int, int, int, int]]]:
    """``(image, role, (x, y, w, h))`` of every screenshot box of an images value."""
    return [(sha or ref or "", role, (x, y, w, h))
            for role, _pos, ref, sha, x, y, w, h, _err in value["rows"] if x is not None]


def describe(field: str, value: Any) -> str:
    """A value as one short line of text (reports, the conflict list)."""
    if field == "tags":
        return ", ".join(value) if value else "(no tags)"
    if field == "images":
        n_box = len(boxes(value))
        counts = {r: sum(1 for v in roles(value).values() if v == r) for r in ROLE_ORDER}
        text = f"{counts['input']} in, {counts['output']} out, {counts['unused']} unused"
        return text + (f", {n_box} box(es)" if n_box else "")
    if value is None or value == "":
        return "(empty)"
    text = str(value)
    return text if len(text) <= 80 else text[:77] + "…"
