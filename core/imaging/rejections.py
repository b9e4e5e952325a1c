"""Detections the photographer rejected: a detector's region they deleted (ADR 201).

Deleting a region a detector found records it here, as it was, under its own id;
detecting again leaves out a detection that lies on a rejected one (:data:`REJECT_IOU`,
whatever either's kind: a region the user re-kinded and then deleted is the detector's
box all the same), and restoring puts the region back exactly. A rejection only
steers Detect: the release check never reads it, so a face left visible is still found
and reported (ADR 185).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from core.imaging.boxes import Box, iou
from core.imaging.photo_records import Region
from core.store.project import now_iso

#: a detection whose IoU with a rejected region reaches this is left out
REJECT_IOU = 0.5

_COLUMNS = ("region_id, photo_id, kind, shape, x, y, w, h, source, score, method, "
            "strength, edited")
#: rows whose numbers are numbers: a box or score a user set to text with sqlite3 (REAL
#: columns take it) is left aside — it steers nothing and is not listed, and stays in
#: the file (ADR 208)
_NUMBERS = ("typeof(x) IN ('integer', 'real') AND typeof(y) IN ('integer', 'real') "
            "AND typeof(w) IN ('integer', 'real') AND typeof(h) IN ('integer', 'real') "
            "AND typeof(score) IN ('integer', 'real', 'null') "
            "AND typeof(strength) IN ('integer', 'real', 'null')")


def _has_table(conn: Any) -> bool:
    """False for a file older than migration 15 opened read-only (never migrated)."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                        "AND name = 'photo_rejections'").fetchone() is not None


def _region(row: Any) -> Region:
    region = Region(*row[:-1])
    region.edited = bool(row[-1])
    return region


def rejected(project: Any, photo_id: int) -> list[Region]:
    """The photo's rejected detections, as they were deleted, oldest first."""
    if not _has_table(project.conn):
        return []
    rows = project.conn.execute(f"SELECT {_COLUMNS} FROM photo_rejections "
                                f"WHERE photo_id = ? AND {_NUMBERS} ORDER BY region_id",
                                (photo_id,))
    return [_region(r) for r in rows]


def rejected_counts(project: Any) -> dict[int, int]:
    """Number of rejected detections per photo id (photos without any are absent)."""
    if not _has_table(project.conn):
        return {}
    return dict(project.conn.execute(
        f"SELECT photo_id, count(*) FROM photo_rejections WHERE {_NUMBERS} "
        "GROUP BY photo_id").fetchall())


def from_detector(region: Region) -> bool:
    """Whether deleting ``region`` rejects a detection (it was not drawn by hand)."""
    return region.source != "manual"


def reject(project: Any, regions: Iterable[Region]) -> None:
    """Remember deleted detector regions (a hand-drawn one is skipped); one transaction
    with an audit row each."""
    rows = [r for r in regions if from_detector(r)]
    if not rows:
        return
    now = now_iso()
    with project.transaction() as conn:
        conn.executemany(
            f"INSERT INTO photo_rejections({_COLUMNS}, rejected_at) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [(r.id, r.photo_id, r.kind, r.shape, r.x, r.y, r.w, r.h, r.source, r.score,
              r.method, r.strength, int(r.edited), now) for r in rows])
        project.audit_many([("edit", "photo_region", str(r.id), "rejected", False, True)
                            for r in rows])


def unreject(project: Any, region_ids: Iterable[int]) -> list[Region]:
    """Forget rejections (undo of a delete, or a restore); returns those it forgot."""
    ids = list(dict.fromkeys(region_ids))
    if not ids or not _has_table(project.conn):
        return []
    with project.transaction() as conn:
        marks = ",".join("?" * len(ids))
        gone = [_region(r) for r in conn.execute(
            f"SELECT {_COLUMNS} FROM photo_rejections WHERE region_id IN ({marks}) "
            "ORDER BY region_id", ids)]
        conn.execute(f"DELETE FROM photo_rejections WHERE region_id IN ({marks})", ids)
        project.audit_many([("edit", "photo_region", str(r.id), "rejected", True, False)
                            for r in gone])
    return gone


def is_rejected(box: Box, rejections: Iterable[Region]) -> bool:
    """Whether a detection at ``box`` is one the photographer rejected."""
    return any(iou((r.x, r.y, r.w, r.h), box) >= REJECT_IOU for r in rejections)
