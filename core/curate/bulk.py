"""Set-based writes of one sample field on many samples (ADR 036).

Labelling 30,000 selected samples must not run 90,000 statements: the ids travel
as one JSON array (``json_each``), the audit rows are written by one
``INSERT … SELECT`` that reads each old value before one ``UPDATE`` changes them
all; a different value per sample (undo) is one ``UPDATE … FROM json_each`` over the
``{id: value}`` map.  Callers hold the transaction; audit values are JSON exactly as
:meth:`core.store.project.Project.audit` writes them (``json_quote`` and
``json.dumps(…, ensure_ascii=False)`` agree on every string, see the tests).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from core.store.project import Project, now_iso

#: the sample columns a bulk edit may write (the SQL names are never user text)
FIELDS = frozenset({"prompt", "notes", "quality", "review_status", "split", "is_screenshot"})

_IDS = "SELECT value FROM json_each(?)"


def _check(field: str) -> str:
    if field not in FIELDS:
        raise ValueError(f"{field!r} is not an editable sample field")
    return field


def ids_json(ids: Iterable[str]) -> str:
    """A list of sample ids as the JSON array the bulk statements take."""
    return json.dumps(list(ids), ensure_ascii=False)


def current_values(project: Project, field: str, ids: Sequence[str]) -> dict[str, Any]:
    """``{sample id: value of field}`` for ``ids``; KeyError naming the first unknown id."""
    _check(field)
    # one row (a JSON object) rather than one per sample: a worker thread fetching
    # 30,000 rows hands the GIL back and forth 30,000 times and stalls the GUI thread
    found = project.conn.execute(
        f"SELECT json_group_object(id, {field}) FROM samples WHERE id IN ({_IDS})",
        (ids_json(ids),)).fetchone()[0]
    values: dict[str, Any] = json.loads(found) if found else {}
    if len(values) != len(set(ids)):
        missing = next(s for s in ids if s not in values)
        raise KeyError(f"no sample {missing!r}")
    return values


def first_differing(project: Project, field: str, ids: Sequence[str], value: Any) -> str | None:
    """The first of ``ids`` whose field is not ``value`` (None when all are)."""
    _check(field)
    row = project.conn.execute(
        f"SELECT id FROM samples WHERE id IN ({_IDS}) AND {field} IS NOT ? LIMIT 1",
        (ids_json(ids), value)).fetchone()
    return None if row is None else row[0]


def write_field(project: Project, field: str, ids: Sequence[str], value: Any,
                stamp: str | None = None) -> int:
    """Set ``field`` to ``value`` on ``ids`` with one audit row each (old → new) and a
    fresh ``modified_at`` (``stamp``, default now); returns how many rows were written.
    Inside a transaction."""
    _check(field)
    if not ids:
        return 0
    stamp = stamp or now_iso()
    payload = ids_json(ids)
    new = None if value is None else json.dumps(value, ensure_ascii=False)
    conn = project.conn
    conn.execute(
        "INSERT INTO audit_log(at, actor, action, entity, entity_id, field, old, new) "
        f"SELECT ?, ?, 'edit', 'sample', s.id, ?, "
        f"CASE WHEN s.{field} IS NULL THEN NULL ELSE json_quote(s.{field}) END, ? "
        f"FROM samples s WHERE s.id IN ({_IDS})",
        (stamp, project.actor, field, new, payload))
    cur = conn.execute(f"UPDATE samples SET {field} = ?, modified_at = ? WHERE id IN ({_IDS})",
                       (value, stamp, payload))
    return int(cur.rowcount)


def _split_nul(values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``values`` as (those ``json_each`` returns exactly, text holding NUL): SQLite's JSON
    parser cuts a string at ``\u0000``, so those few travel as bound parameters."""
    nul = {k: v for k, v in values.items() if isinstance(v, str) and "\x00" in v}
    if not nul:
        return values, nul
    return {k: v for k, v in values.items() if k not in nul}, nul


def write_values(project: Project, field: str, values: dict[str, Any]) -> int:
    """Write a different value per sample (``{id: value}``, e.g. undo putting each old
    label back) in one audit ``INSERT … SELECT`` and one ``UPDATE … FROM json_each``
    over the map: the rows :func:`write_field` would write sample by sample, with one
    ``modified_at`` stamp.  Returns how many rows were written.  Inside a transaction."""
    _check(field)
    if not values:
        return 0
    stamp = now_iso()
    values, nul = _split_nul(values)
    payload = json.dumps(values, ensure_ascii=False)
    conn = project.conn
    # json_quote(j.value) is json.dumps(value, ensure_ascii=False) for text and integers,
    # as json_quote(s.field) is for the old value (tests/curate/test_bulk_undo.py)
    conn.execute(
        "INSERT INTO audit_log(at, actor, action, entity, entity_id, field, old, new) "
        f"SELECT ?, ?, 'edit', 'sample', s.id, ?, "
        f"CASE WHEN s.{field} IS NULL THEN NULL ELSE json_quote(s.{field}) END, "
        "CASE WHEN j.type = 'null' THEN NULL ELSE json_quote(j.value) END "
        "FROM json_each(?) AS j JOIN samples s ON s.id = j.key",
        (stamp, project.actor, field, payload))
    cur = conn.execute(f"UPDATE samples SET {field} = j.value, modified_at = ? "
                       "FROM json_each(?) AS j WHERE samples.id = j.key", (stamp, payload))
    return int(cur.rowcount) + sum(write_field(project, field, ids, value, stamp)
                                   for value, ids in group_by_value(nul).items())


def first_not_matching(project: Project, field: str, values: dict[str, Any]) -> str | None:
    """An id of ``values`` (``{id: value}``) whose field is not its value there (None
    when all match), checked as :func:`write_values` writes."""
    _check(field)
    values, nul = _split_nul(values)
    row = project.conn.execute(
        f"SELECT s.id FROM json_each(?) AS j JOIN samples s ON s.id = j.key "
        f"WHERE s.{field} IS NOT j.value LIMIT 1",
        (json.dumps(values, ensure_ascii=False),)).fetchone()
    if row is not None:
        return str(row[0])
    return next((sid for value, ids in group_by_value(nul).items()
                 if (sid := first_differing(project, field, ids, value)) is not None), None)


def group_by_value(values: dict[str, Any]) -> dict[Any, list[str]]:
    """``{id: value}`` turned into ``{value: [ids]}`` (ids in their original order)."""
    groups: dict[Any, list[str]] = {}
    for sid, value in values.items():
        groups.setdefault(value, []).append(sid)
    return groups


def write_tag(project: Project, ids: Sequence[str], tag: str, present: bool) -> list[str]:
    """Add (``present``) or remove ``tag`` on those of ``ids`` that lack or have it, with
    one audit row each (the sorted tag lists before → after, as ``Project.audit`` writes
    them) and a fresh ``modified_at``; returns those ids, in order.  KeyError naming the
    first unknown id.  A few statements whatever the count.  Inside a transaction."""
    payload = ids_json(ids)
    conn = project.conn
    missing, found = conn.execute(
        "SELECT (SELECT j.value FROM json_each(?1) j WHERE NOT EXISTS "
        "        (SELECT 1 FROM samples WHERE id = j.value) ORDER BY j.key LIMIT 1), "
        "       (SELECT json_group_array(value) FROM (SELECT j.value FROM json_each(?1) j "
        "        WHERE EXISTS (SELECT 1 FROM sample_tags t WHERE t.sample_id = j.value "
        "                      AND t.tag = ?2) != ?3 ORDER BY j.key))",
        (payload, tag, int(present))).fetchone()
    if missing is not None:
        raise KeyError(f"no sample {missing!r}")
    targets: list[str] = json.loads(found)
    if not targets:
        return []
    payload = ids_json(targets)
    (tags,) = conn.execute(
        "SELECT json_group_object(sample_id, json(tags)) FROM (SELECT sample_id, "
        "json_group_array(tag) AS tags FROM sample_tags WHERE sample_id IN "
        f"({_IDS}) GROUP BY sample_id)", (payload,)).fetchone()
    before: dict[str, list[str]] = json.loads(tags) if tags else {}
    rows = {}
    for sid in targets:
        old = sorted(before.get(sid, ()))
        new = sorted([*old, tag]) if present else [t for t in old if t != tag]
        rows[sid] = [json.dumps(old, ensure_ascii=False), json.dumps(new, ensure_ascii=False)]
    stamp = now_iso()
    if present:
        conn.execute("INSERT INTO sample_tags(sample_id, tag) SELECT value, ? FROM json_each(?)",
                     (tag, payload))
    else:
        conn.execute(f"DELETE FROM sample_tags WHERE tag = ? AND sample_id IN ({_IDS})",
                     (tag, payload))
    conn.execute(f"UPDATE samples SET modified_at = ? WHERE id IN ({_IDS})", (stamp, payload))
    # one INSERT … SELECT rather than executemany: a worker thread stepping 30,000 rows
    # hands the GIL back and forth 30,000 times (ADR 036)
    conn.execute(
        "INSERT INTO audit_log(at, actor, action, entity, entity_id, field, old, new) "
        "SELECT ?, ?, 'edit', 'sample', j.key, 'tags', json_extract(j.value, '$[0]'), "
        "json_extract(j.value, '$[1]') FROM json_each(?) AS j",
        (stamp, project.actor, json.dumps(rows, ensure_ascii=False)))
    return targets
