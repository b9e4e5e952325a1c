"""Who owns a field: the signature of a field's value, and whether a proposal may write it.

A field holds a machine-made value while it still has the signature the proposal
wrote (``proposal_fields.proposed_sig``).  A proposal may (re)write a field only when
nobody else has touched it:

- not accepted by a curator (an accepted value is the curator's);
- its value still has the signature the last proposal wrote (a change by any means,
  the app, the CLI or sqlite3, makes it the curator's: "corrected");
- no curator edit of that field is in the audit log since the machine last wrote it
  (or since the sample was made) — so even a correction that was later undone, or a
  hand-made choice on a sample no proposal touched yet, is never overwritten.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from core.store.migrations.m010_proposals import SIGNATURE
from core.store.project import Project

#: the audit-log field a curator's edit of each proposal field is logged under
AUDIT_FIELD = {"prompt": "prompt", "quality": "quality", "roles": "images",
               "boxes": "images", "safety": "tags"}
FIELDS = ("prompt", "quality", "roles", "boxes", "safety")


def audit_field(field: str) -> str:
    """The audit-log field name for proposal field ``field``."""
    return field if field.startswith("feedback/") else AUDIT_FIELD[field]


def signature(project: Project, sample_id: str, field: str) -> str:
    """The signature of the value ``field`` of ``sample_id`` holds now."""
    row = project.conn.execute(
        f"SELECT {SIGNATURE} FROM (SELECT ? AS sample_id, ? AS field) pf",
        (sample_id, field)).fetchone()
    return "" if row is None or row[0] is None else str(row[0])


def curator_touched(project: Project, sample_id: str, field: str, since_audit_id: int) -> bool:
    """Whether a curator edited ``field`` of ``sample_id`` after audit row ``since_audit_id``."""
    name = audit_field(field)
    rows = project.conn.execute(
        "SELECT old, new FROM audit_log WHERE entity = 'sample' AND entity_id = ? "
        "AND action = 'edit' AND field = ? AND id > ?", (sample_id, name, since_audit_id))
    if field != "safety":
        return rows.fetchone() is not None
    # any tag edit is logged as 'tags': only one that adds or removes 'unsafe' counts
    return any(("unsafe" in _tags(old)) != ("unsafe" in _tags(new)) for old, new in rows)


def _tags(text: str | None) -> list[str]:
    try:
        value = json.loads(text) if text else []
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def writable(project: Project, sample_id: str, field: str,
             created_audit_id: int) -> tuple[bool, str]:
    """(True, "") when a proposal may write ``field``; else (False, why not)."""
    row = project.conn.execute(
        "SELECT proposed_sig, audit_id, decision FROM proposal_fields WHERE sample_id = ? "
        "AND field = ?", (sample_id, field)).fetchone()
    since = created_audit_id
    if row is not None:
        if row[2] == "accepted":
            return False, f"{field}: accepted by a curator, kept"
        if signature(project, sample_id, field) != row[0]:
            return False, f"{field}: corrected by a curator, kept"
        since = int(row[1])
    if curator_touched(project, sample_id, field, since):
        return False, f"{field}: set by a curator, kept"
    return True, ""


def last_audit_id(project: Project) -> int:
    """Id of the audit row just appended on this connection."""
    return int(project.conn.execute("SELECT max(id) FROM audit_log").fetchone()[0] or 0)


def record_field(project: Project, sample_id: str, field: str, proposal_id: int,
                 proposed: Any, audit_id: int) -> None:
    """Note that ``field`` now holds the value proposal ``proposal_id`` wrote."""
    project.conn.execute(
        "INSERT INTO proposal_fields(sample_id, field, proposal_id, proposed, proposed_sig, "
        "audit_id, decision, decided_at, decided_by) VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, "
        "NULL) ON CONFLICT(sample_id, field) DO UPDATE SET proposal_id = excluded.proposal_id, "
        "proposed = excluded.proposed, proposed_sig = excluded.proposed_sig, "
        "audit_id = excluded.audit_id, decision = NULL, decided_at = NULL, decided_by = NULL",
        (sample_id, field, proposal_id, json.dumps(proposed, ensure_ascii=False),
         signature(project, sample_id, field), audit_id))


def field_status(project: Project, sample_id: str) -> list[dict[str, Any]]:
    """Every machine-made field of a sample: field, status, proposed value, model,
    kind and template version."""
    try:
        rows = project.conn.execute(
            "SELECT v.field, v.status, v.proposed, p.model, p.kind, t.version, p.id "
            "FROM proposal_field_status v JOIN proposals p ON p.id = v.proposal_id "
            "JOIN proposal_templates t ON t.id = p.template_id WHERE v.sample_id = ? "
            "ORDER BY v.field", (sample_id,)).fetchall()
    except sqlite3.OperationalError:  # a read-only project from before proposals existed
        return []
    return [{"field": r[0], "status": r[1], "proposed": _loads(r[2]), "model": r[3],
             "kind": r[4], "version": r[5], "proposal_id": r[6]} for r in rows]


def _loads(text: str | None) -> Any:
    try:
        return json.loads(text) if text else None
    except ValueError:
        return text
