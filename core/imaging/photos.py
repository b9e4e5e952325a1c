"""Photo and region repository: reading photos and regions, edits in transactions with
audit rows (intake and the stored originals live in :mod:`core.imaging.photo_originals`;
they are handed out from here too).

Every user edit is one transaction plus one audit row per changed field (action
"edit").  Changing what a release would contain (regions, method, geometry) sends a
reviewed or released photo back to "new": a person has to look at it again.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Any

from core.imaging.boxes import Detection, overlapping
from core.imaging.geometry import Geometry, check_geometry
from core.imaging.photo_originals import (
    OriginalChangedError,
    check_original,
    import_folder,
    import_photo,
    load_original,
    original_path,
    photo_files,
    read_original,
)
from core.imaging.photo_records import (
    DEFAULT_LICENCE,
    REGION_FIELDS,
    IntakeReport,
    Photo,
    Redetection,
    Region,
)
from core.imaging.photo_values import (
    UnreadableRegion,
    check_feather,
    check_readable,
    check_region,
    check_strength,
)
from core.imaging.rejections import is_rejected, rejected
from core.store.project import now_iso

#: the records it hands out, the licence a photo starts with, and (from
#: :mod:`core.imaging.photo_originals`) intake and the stored originals: callers use this
#: module as the one photo repository (``from core.imaging import photos as repo``)
__all__ = ["DEFAULT_LICENCE", "IntakeReport", "OriginalChangedError", "Photo", "Redetection",
           "Region", "UnreadableRegion", "check_original", "check_readable", "import_folder",
           "import_photo", "load_original", "original_path", "photo_files", "read_original"]

CATEGORIES = ("Text", "Clock", "Vehicle", "Architecture", "Art", "Animal", "Nature")
STATUSES = ("new", "reviewed", "released")
_PHOTO_FIELDS = ("method", "strength", "feather", "geometry", "category", "credit",
                 "licence", "caption", "notes")
_CONTENT_FIELDS = {"method", "strength", "feather", "geometry"}


# -- reading -----------------------------------------------------------------------------
def _photo(row: Any) -> Photo:
    (pid, sha, name, width, height, method, strength, feather, geometry, category, credit,
     licence, caption, notes, status, detected_at, released_path, released_at,
     verification) = row
    return Photo(int(pid), sha, name, int(width), int(height), method, strength,
                 float(feather), Geometry.from_json(json.loads(geometry or "{}")), category,
                 credit, licence, caption, notes, status, detected_at, released_path,
                 released_at, json.loads(verification) if verification else None)


_PHOTO_SELECT = ("SELECT id, sha256, file_name, width, height, method, strength, feather, "
                 "geometry, category, credit, licence, caption, notes, status, detected_at, "
                 "released_path, released_at, verification FROM photos")


def list_photos(project: Any) -> list[Photo]:
    """Every photo, in import order."""
    return [_photo(r) for r in project.conn.execute(_PHOTO_SELECT + " ORDER BY id")]


def get_photo(project: Any, photo_id: int) -> Photo:
    """One photo (KeyError if it does not exist)."""
    row = project.conn.execute(_PHOTO_SELECT + " WHERE id = ?", (photo_id,)).fetchone()
    if row is None:
        raise KeyError(f"no photo {photo_id}")
    return _photo(row)


_REGION_COLUMNS = "id, photo_id, kind, shape, x, y, w, h, source, score, method, strength"


def _region_select(conn: Any) -> str:
    """The SELECT of a region; a file older than migration 14 opened read-only (never
    migrated) has no ``edited`` column: none of its regions is marked."""
    has_edited = conn.execute("SELECT 1 FROM pragma_table_info('photo_regions') "
                              "WHERE name = 'edited'").fetchone()
    return (f"SELECT {_REGION_COLUMNS}, {'edited' if has_edited else '0'} "
            "FROM photo_regions")


def _region(row: Any) -> Region:
    region = Region(*row[:-1])
    region.edited = bool(row[-1])
    return region


def regions(project: Any, photo_id: int) -> list[Region]:
    """The photo's regions, oldest first."""
    rows = project.conn.execute(_region_select(project.conn)
                                + " WHERE photo_id = ? ORDER BY id", (photo_id,))
    return [_region(r) for r in rows]


def get_region(project: Any, region_id: int) -> Region:
    """One region (KeyError if it does not exist)."""
    row = project.conn.execute(_region_select(project.conn) + " WHERE id = ?",
                               (region_id,)).fetchone()
    if row is None:
        raise KeyError(f"no region {region_id}")
    return _region(row)


def region_counts(project: Any) -> dict[int, int]:
    """Number of regions per photo id (photos without regions are absent)."""
    return dict(project.conn.execute(
        "SELECT photo_id, count(*) FROM photo_regions GROUP BY photo_id").fetchall())


# -- editing -----------------------------------------------------------------------------
def _invalidate_review(project: Any, photo_id: int) -> None:
    row = project.conn.execute("SELECT status FROM photos WHERE id = ?",
                               (photo_id,)).fetchone()
    if row and row[0] != "new":
        project.conn.execute("UPDATE photos SET status = 'new', modified_at = ? WHERE id = ?",
                             (now_iso(), photo_id))
        project.audit("edit", "photo", str(photo_id), "status", row[0], "new")


def check_values(photo: Photo, regions: Iterable[Region]) -> None:
    """Raise ValueError naming the field unless every value a release renders is one the
    editor accepts (a project edited with sqlite3 may hold anything; ADR 158). A region
    off the photo, stored by an earlier version, passes: it is clipped when rendered
    (ADR 188)."""
    check_strength(photo.strength)
    check_feather(photo.feather)
    check_geometry(photo.geometry, photo.width, photo.height)
    for region in regions:
        if region.unreadable:
            raise ValueError(f"region #{region.id}: {region.unreadable}")
        try:
            check_region(region.fields())
        except ValueError as exc:
            raise ValueError(f"region #{region.id}: {exc}") from None


def add_region(project: Any, photo_id: int, *, kind: str = "face", shape: str = "rect",
               x: float, y: float, w: float, h: float, source: str = "manual",
               score: float | None = None, method: str | None = None,
               strength: float | None = None) -> int:
    """Add a region (one transaction + audit); returns its id."""
    values = check_region({"kind": kind, "shape": shape, "x": float(x), "y": float(y),
                           "w": float(w), "h": float(h), "source": source, "score": score,
                           "method": method, "strength": strength},
                          _photo_size(project, photo_id))
    now = now_iso()
    with project.transaction() as conn:
        cur = conn.execute(
            "INSERT INTO photo_regions(photo_id, kind, shape, x, y, w, h, source, score, "
            "method, strength, created_at, modified_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (photo_id, kind, shape, values["x"], values["y"], values["w"], values["h"],
             source, score, method, strength, now, now))
        region_id = int(cur.lastrowid)
        project.audit("edit", "photo_region", str(region_id), None, None,
                      {"photo_id": photo_id, **values})
        _invalidate_review(project, photo_id)
    return region_id


def update_region(project: Any, region_id: int, *, edited: bool = True, exact: bool = False,
                  **changes: Any) -> None:
    """Change fields of a region (kind, shape, x, y, w, h, method, strength).

    A region that changes is the user's from then on (``edited``; ADR 189): a detection
    never replaces it. An undo passes the flag the region had before, and ``exact``: it
    puts back what was stored, wherever that lay (ADR 201).
    """
    photo_id, old, new = _edited_region(project, region_id, changes, exact)
    changed = {k: new[k] for k in REGION_FIELDS if old[k] != new[k]}
    if not changed:
        return
    with project.transaction() as conn:
        _update_audited(project, "photo_regions", "photo_region", region_id, old, changed)
        conn.execute("UPDATE photo_regions SET edited = ? WHERE id = ?",
                     (int(edited), region_id))
        _invalidate_review(project, photo_id)


def fitted_changes(project: Any, region_id: int, changes: dict[str, Any]
                   ) -> dict[str, Any]:
    """``changes`` as :func:`update_region` stores them: clipped to the photo, plus any
    box field the clip changed (ADR 188), so an undo knows every value it must restore."""
    _photo_id, old, new = _edited_region(project, region_id, changes)
    return {k: new[k] for k in REGION_FIELDS if k in changes or new[k] != old[k]}


def _edited_region(project: Any, region_id: int, changes: dict[str, Any],
                   exact: bool = False) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """(photo id, stored values, checked new values) of an edit of a region: the box is
    held to the photo (ADR 188) only when the edit moves or resizes it, so a region an
    earlier version left off the photo can still change kind, shape or method (ADR 201),
    and not when an undo puts back what was stored (``exact``)."""
    unknown = set(changes) - set(REGION_FIELDS)
    if unknown:
        raise ValueError(f"cannot edit region field(s) {sorted(unknown)}")
    row = project.conn.execute(
        f"SELECT photo_id, {', '.join(REGION_FIELDS)} FROM photo_regions WHERE id = ?",
        (region_id,)).fetchone()
    if row is None:
        raise KeyError(f"no region {region_id}")
    photo_id, old = row[0], dict(zip(REGION_FIELDS, row[1:], strict=True))
    moved = not exact and bool({"x", "y", "w", "h"} & set(changes))
    return photo_id, old, check_region({**old, **changes},
                                       _photo_size(project, photo_id) if moved else None)


def _update_audited(project: Any, table: str, entity: str, row_id: int, old: dict[str, Any],
                    changed: dict[str, Any]) -> None:
    """UPDATE the changed columns (and modified_at) and audit each field, old → new.

    Must run inside a transaction. The JSON ``geometry`` column is audited decoded.
    """
    sets = ", ".join(f"{k} = ?" for k in changed)
    project.conn.execute(f"UPDATE {table} SET {sets}, modified_at = ? WHERE id = ?",
                         (*changed.values(), now_iso(), row_id))
    for key, value in changed.items():
        before, after = old[key], value
        if key == "geometry":
            before, after = json.loads(before), json.loads(after)
        project.audit("edit", entity, str(row_id), key, before, after)


def delete_region(project: Any, region_id: int) -> Region:
    """Delete a region; returns what it was (for undo)."""
    region = get_region(project, region_id)
    with project.transaction() as conn:
        conn.execute("DELETE FROM photo_regions WHERE id = ?", (region_id,))
        project.audit("edit", "photo_region", str(region_id), None, region.fields(), None)
        _invalidate_review(project, region.photo_id)
    return region


def restore_region(project: Any, region: Region) -> None:
    """Put a deleted region back with its own id (undo of a delete, redo of an add), so
    later edits that name it still apply; ValueError if that id is in use again. It comes
    back as it was stored, even off the photo (ADR 201): the photo's size never changes,
    and the region passed the check when it was made."""
    values = check_region(region.fields())
    if _photo_size(project, region.photo_id) is None:
        raise ValueError(f"region {region.id}: its photo {region.photo_id} is gone")
    if project.conn.execute("SELECT 1 FROM photo_regions WHERE id = ?",
                            (region.id,)).fetchone():
        raise ValueError(f"region {region.id} exists already")
    now = now_iso()
    with project.transaction() as conn:
        conn.execute(
            "INSERT INTO photo_regions(id, photo_id, kind, shape, x, y, w, h, source, score, "
            "method, strength, edited, created_at, modified_at) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (region.id, region.photo_id, region.kind, region.shape, values["x"],
             values["y"], values["w"], values["h"], region.source, region.score,
             region.method, region.strength, int(region.edited), now, now))
        project.audit("edit", "photo_region", str(region.id), None, None,
                      {"photo_id": region.photo_id, **values})
        _invalidate_review(project, region.photo_id)


def _photo_size(project: Any, photo_id: int) -> tuple[float, float] | None:
    """The photo's upright (width, height), the frame its regions are checked against
    (None: no such photo, which the insert then refuses)."""
    row = project.conn.execute("SELECT width, height FROM photos WHERE id = ?",
                               (photo_id,)).fetchone()
    return None if row is None else (float(row[0]), float(row[1]))


def _fitted_detections(found: Iterable[Detection], size: tuple[float, float] | None
                       ) -> list[Detection]:
    """Detections clipped like an edit (ADR 188); one off the photo is dropped."""
    out = []
    for det in found:
        try:
            box = check_region({"kind": det.kind, "x": det.x, "y": det.y, "w": det.w,
                                "h": det.h}, size)
        except ValueError:
            continue
        out.append(dataclasses.replace(det, x=box["x"], y=box["y"], w=box["w"],
                                       h=box["h"]))
    return out


def replace_detections(project: Any, photo_id: int, found: Iterable[Detection],
                       settings: dict[str, Any] | None = None) -> Redetection:
    """Replace the photo's untouched detector regions with ``found``; one transaction.

    The user's regions (drawn by hand, or a detector's they edited or confirmed) stay as
    they are, and a detection that overlaps one of them is not added again (ADR 189),
    nor one lying on a detection they rejected (ADR 201). Detections are clipped like an
    edit; one off the photo is dropped (ADR 188). A region whose box is not numbers
    stops it (:class:`UnreadableRegion`), changing nothing (ADR 211).
    """
    found = _fitted_detections(found, _photo_size(project, photo_id))
    with project.transaction() as conn:
        current = regions(project, photo_id)
        check_readable(get_photo(project, photo_id).file_name, current)
        mine = [r for r in current if r.users]
        removed = [r for r in current if not r.users]
        fresh = [d for d in found if not any(overlapping((r.x, r.y, r.w, r.h), d.box)
                                             for r in mine)]
        refused = rejected(project, photo_id)
        new = [d for d in fresh if not is_rejected(d.box, refused)]
        row = conn.execute("SELECT detected_at, detect_settings FROM photos WHERE id = ?",
                           (photo_id,)).fetchone()
        conn.executemany("DELETE FROM photo_regions WHERE id = ?", [(r.id,) for r in removed])
        made = [get_region(project, _insert_detection(conn, photo_id, d)) for d in new]
        after = (now_iso(), json.dumps(settings or {}))
        set_detected(project, photo_id, *after)
        project.audit("detect", "photo", str(photo_id), "regions", len(removed), len(made))
        if removed or made:
            _invalidate_review(project, photo_id)
    return Redetection(photo_id, removed, made, len(mine), len(found) - len(fresh),
                       tuple(row) if row else (None, None), after, len(fresh) - len(new))


def _insert_detection(conn: Any, photo_id: int, det: Detection) -> int:
    now = now_iso()
    cur = conn.execute(
        "INSERT INTO photo_regions(photo_id, kind, shape, x, y, w, h, source, score, "
        "created_at, modified_at) VALUES (?, ?, 'rect', ?, ?, ?, ?, ?, ?, ?, ?)",
        (photo_id, det.kind, det.x, det.y, det.w, det.h, det.detector, det.score, now, now))
    return int(cur.lastrowid)


def set_detected(project: Any, photo_id: int, detected_at: str | None,
                 settings: str | None) -> None:
    """Stamp when and with which settings (JSON) the photo was last detected in (an undo
    of a detection puts the earlier stamp back)."""
    with project.transaction() as conn:
        conn.execute("UPDATE photos SET detected_at = ?, detect_settings = ?, modified_at = ? "
                     "WHERE id = ?", (detected_at, settings, now_iso(), photo_id))


def update_photo(project: Any, photo_id: int, **changes: Any) -> None:
    """Edit photo fields (method, strength, feather, geometry, category, credit, licence,
    caption, notes): one transaction, one audit row per changed field."""
    unknown = set(changes) - set(_PHOTO_FIELDS)
    if unknown:
        raise ValueError(f"cannot edit photo field(s) {sorted(unknown)}")
    if "category" in changes and changes["category"] not in (None, *CATEGORIES):
        raise ValueError(f"unknown category {changes['category']!r}; one of {CATEGORIES}")
    if "method" in changes and changes["method"] not in ("blur", "pixelate", "fill"):
        raise ValueError(f"unknown method {changes['method']!r}")
    if "strength" in changes:
        check_strength(changes["strength"])
    if "feather" in changes:
        check_feather(changes["feather"])
    if "geometry" in changes:
        geom = changes["geometry"]
        geom = geom if isinstance(geom, Geometry) else Geometry.from_json(geom)
        size = project.conn.execute("SELECT width, height FROM photos WHERE id = ?",
                                    (photo_id,)).fetchone()
        if size is not None:
            check_geometry(geom, int(size[0]), int(size[1]))
        changes["geometry"] = json.dumps(geom.to_json())
    row = project.conn.execute(
        f"SELECT {', '.join(_PHOTO_FIELDS)} FROM photos WHERE id = ?", (photo_id,)).fetchone()
    if row is None:
        raise KeyError(f"no photo {photo_id}")
    old = dict(zip(_PHOTO_FIELDS, row, strict=True))
    changed = {k: v for k, v in changes.items() if old[k] != v}
    if not changed:
        return
    with project.transaction():
        _update_audited(project, "photos", "photo", photo_id, old, changed)
        if _CONTENT_FIELDS & set(changed):
            _invalidate_review(project, photo_id)


def set_status(project: Any, photo_id: int, status: str) -> list[int]:
    """Mark a photo "new" or "reviewed" ("released" only happens through a release).

    Marking it reviewed confirms its detector regions: they are the user's from then on
    (ADR 189). Returns the ids of those it confirmed (for undo).
    """
    if status not in ("new", "reviewed"):
        raise ValueError("a photo becomes released only by releasing it")
    old = get_photo(project, photo_id).status
    if old == status:
        return []
    with project.transaction() as conn:
        conn.execute("UPDATE photos SET status = ?, modified_at = ? WHERE id = ?",
                     (status, now_iso(), photo_id))
        project.audit("edit", "photo", str(photo_id), "status", old, status)
        if status != "reviewed":
            return []
        ids = [int(r[0]) for r in conn.execute(
            "SELECT id FROM photo_regions WHERE photo_id = ? AND source != 'manual' "
            "AND edited = 0 ORDER BY id", (photo_id,))]
        mark_edited(project, ids, True)
    return ids


def mark_edited(project: Any, region_ids: Iterable[int], edited: bool) -> None:
    """Set regions' ``edited`` flag (the user's, or the detector's again on undo)."""
    with project.transaction() as conn:
        conn.executemany("UPDATE photo_regions SET edited = ? WHERE id = ?",
                         [(int(edited), rid) for rid in region_ids])


def _content(photo: Photo, regions: Iterable[Region]) -> tuple[Any, ...]:
    """What a release renders from: the original, method, strength, feather, geometry and
    every region."""
    return (photo.sha256, photo.method, photo.strength, photo.feather,
            json.dumps(photo.geometry.to_json()),
            tuple((r.id, *r.fields().values()) for r in regions))


def unchanged_since(project: Any, photo: Photo, regs: Iterable[Region]) -> bool:
    """Whether the photo is still reviewed (or released) with the content it had when
    ``photo`` and its regions ``regs`` were read (a release checks it before it writes;
    ADR 156)."""
    now = get_photo(project, photo.id)
    return now.status in ("reviewed", "released") and \
        _content(now, regions(project, photo.id)) == _content(photo, regs)


def mark_released(project: Any, photo_id: int, sha256: str, path: str,
                  verification: dict[str, Any]) -> None:
    """Record a release (the database refuses unless the photo was reviewed)."""
    old = get_photo(project, photo_id).status
    now = now_iso()
    with project.transaction() as conn:
        conn.execute(
            "UPDATE photos SET status = 'released', released_sha256 = ?, released_path = ?, "
            "released_at = ?, verification = ?, modified_at = ? WHERE id = ?",
            (sha256, path, now, json.dumps(verification), now, photo_id))
        project.audit("release", "photo", str(photo_id), "status", old, "released")
