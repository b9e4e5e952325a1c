"""Write a field value into the project through Curate's own commands, so every change
gets the same checks and audit rows as an edit made by hand (ADR 132).

Callers hold the transaction and choose the audit actor (:func:`acting_as`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from core.curate import bulk
from core.curate.commands import SetField, SetTag
from core.curate.image_edits import ImagesEdit
from core.store.project import Project
from core.teamwork.values import SCALARS, Values

_ROW_COLS = ("role", "position", "ref", "sha256", "bbox_x", "bbox_y", "bbox_w", "bbox_h",
             "error")


@contextlib.contextmanager
def acting_as(project: Project, actor: str) -> Iterator[None]:
    """Audit rows written meanwhile name ``actor`` (the curator whose edit is merged)."""
    saved = project.actor
    project.actor = actor
    try:
        yield
    finally:
        project.actor = saved


def apply_scalars(project: Project, name: str, values: dict[str, Any]) -> int:
    """Set scalar field ``name`` per sample (``{id: value}``), one set-based edit per
    distinct value; returns how many samples changed."""
    assert name in SCALARS
    changed = 0
    for value, ids in bulk.group_by_value(values).items():
        command = SetField(ids, name, value)
        command.do(project)
        changed += len(command.old)
    return changed


def apply_tags(project: Project, sample_id: str, wanted: list[str]) -> bool:
    """Make the sample's tags exactly ``wanted``; True when something changed."""
    have = {r[0] for r in project.conn.execute(
        "SELECT tag FROM sample_tags WHERE sample_id = ?", (sample_id,))}
    done = False
    for tag in sorted(set(wanted) - have):
        SetTag([sample_id], tag, True).do(project)
        done = True
    for tag in sorted(have - set(wanted)):
        SetTag([sample_id], tag, False).do(project)
        done = True
    return done


def apply_images(project: Project, sample_id: str, value: dict[str, Any],
                 label: str = "Merge image roles and boxes") -> bool:
    """Give the sample exactly the image rows and screenshot flag of ``value`` (rows that
    already match keep their ids); True when something changed."""
    wanted = [dict(zip(_ROW_COLS, row, strict=True)) for row in value["rows"]]

    def mutate(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        free = list(rows)
        out = []
        for row in wanted:
            same = next((r for r in free if all(r[c] == row[c] for c in _ROW_COLS)), None)
            if same is not None:
                free.remove(same)
            out.append({"id": same["id"] if same else None, **row})
        return out

    edit = ImagesEdit(sample_id, label, mutate)
    edit.do(project)
    flag = int(bool(value["screenshot"]))
    current = project.conn.execute("SELECT is_screenshot FROM samples WHERE id = ?",
                                   (sample_id,)).fetchone()[0]
    if current != flag:
        SetField([sample_id], "is_screenshot", flag).do(project)
        return True
    return edit.changed


def apply_value(project: Project, sample_id: str, name: str, value: Any) -> bool:
    """Write one field of one sample; True when something changed."""
    if name in SCALARS:
        return apply_scalars(project, name, {sample_id: value}) > 0
    if name == "tags":
        return apply_tags(project, sample_id, list(value))
    if name == "images":
        return apply_images(project, sample_id, value)
    raise ValueError(f"{name!r} is not a field a package brings back")


def unknown_images(project: Project, values: dict[str, Values]) -> dict[str, str]:
    """``{sample: sha256}`` for samples whose image rows name an image the project does
    not have (a package cannot bring images)."""
    wanted = {row[3] for v in values.values() for row in v["images"]["rows"] if row[3]}
    if not wanted:
        return {}
    known = {r[0] for r in project.conn.execute(
        "SELECT sha256 FROM images WHERE sha256 IN (SELECT value FROM json_each(?))",
        (bulk.ids_json(sorted(wanted)),))}
    out = {}
    for sid, v in values.items():
        for row in v["images"]["rows"]:
            if row[3] and row[3] not in known:
                out[sid] = row[3]
                break
    return out
