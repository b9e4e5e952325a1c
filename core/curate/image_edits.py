"""Image-role and screenshot-box edits as undoable commands.

A sample's images are its ``sample_images`` rows: a row without a bbox uses a whole
image as input / output / unused; a row with a bbox is one box on a screenshot (in
source-image pixels) whose crop is an input or output.  Each command takes a
snapshot of the sample's rows (and ``is_screenshot``) before and after, so undo and
redo restore exactly, row ids included, and the audit row records both states.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.curate.commands import Command, EditConflict, touch
from core.store.project import Project

ROLES = ("input", "output", "unused")
_COLS = ("id", "role", "position", "ref", "sha256", "bbox_x", "bbox_y", "bbox_w", "bbox_h",
         "error")

Row = dict[str, Any]
State = tuple[tuple[tuple[Any, ...], ...], int]


def snapshot(project: Project, sample_id: str) -> State:
    """The sample's image rows (sorted by id) and its is_screenshot flag."""
    flag = project.conn.execute("SELECT is_screenshot FROM samples WHERE id = ?",
                                (sample_id,)).fetchone()
    if flag is None:
        raise KeyError(f"no sample {sample_id!r}")
    rows = project.conn.execute(
        f"SELECT {', '.join(_COLS)} FROM sample_images WHERE sample_id = ? ORDER BY id",
        (sample_id,)).fetchall()
    return tuple(tuple(r) for r in rows), int(flag[0])


def _apply(project: Project, sample_id: str, state: State) -> None:
    rows, flag = state
    conn = project.conn
    current = {r[0]: tuple(r) for r in conn.execute(
        f"SELECT {', '.join(_COLS)} FROM sample_images WHERE sample_id = ?", (sample_id,))}
    wanted = {r[0]: r for r in rows if r[0] is not None}
    for rid in current.keys() - wanted.keys():
        conn.execute("DELETE FROM sample_images WHERE id = ?", (rid,))
    setters = ", ".join(f"{c} = ?" for c in _COLS[1:])
    for rid, row in wanted.items():
        if rid in current:
            if current[rid] != row:
                conn.execute(f"UPDATE sample_images SET {setters} WHERE id = ?", (*row[1:], rid))
            continue
        taken = conn.execute("SELECT 1 FROM sample_images WHERE id = ?", (rid,)).fetchone()
        values = row if taken is None else (None, *row[1:])
        conn.execute(f"INSERT INTO sample_images(sample_id, {', '.join(_COLS)}) "
                     f"VALUES (?, {', '.join('?' * len(_COLS))})", (sample_id, *values))
    for row in rows:
        if row[0] is None:
            conn.execute(f"INSERT INTO sample_images(sample_id, {', '.join(_COLS[1:])}) "
                         f"VALUES (?, {', '.join('?' * (len(_COLS) - 1))})", (sample_id, *row[1:]))
    conn.execute("UPDATE samples SET is_screenshot = ? WHERE id = ?", (flag, sample_id))


def _summary(state: State) -> dict[str, Any]:
    rows, flag = state
    images = []
    for r in sorted(rows, key=lambda r: (ROLES.index(r[1]) if r[1] in ROLES else 9, r[2])):
        entry: dict[str, Any] = {"role": r[1], "position": r[2], "image": r[4] or r[3]}
        if r[5] is not None:
            entry["box"] = [r[5], r[6], r[7], r[8]]
        images.append(entry)
    return {"images": images, "is_screenshot": bool(flag)}


def _normalise(rows: list[Row]) -> list[Row]:
    """Renumber positions 0..n-1 within each role, keeping their order."""
    for role in ROLES:
        ordered = sorted((r for r in rows if r["role"] == role),
                         key=lambda r: (r["position"], r["id"] if r["id"] is not None else 1e18))
        for k, r in enumerate(ordered):
            r["position"] = k
    return rows


class ImagesEdit(Command):
    """Change a sample's image rows with ``mutate(rows) -> rows`` (rows as dicts)."""

    def __init__(self, sample_id: str, label: str, mutate: Callable[[list[Row]], list[Row]],
                 merge_key: Any = None) -> None:
        super().__init__()
        self.sample_ids = (sample_id,)
        self.sample_id = sample_id
        self.label = label
        self.mutate = mutate
        self.merge_key = merge_key
        self.before: State | None = None
        self.after: State | None = None

    @property
    def changed(self) -> bool:
        return self.before is not None and self.before != self.after

    def _do(self, project: Project) -> None:
        current = snapshot(project, self.sample_id)
        if self.after is None:
            rows = [dict(zip(_COLS, r, strict=True)) for r in current[0]]
            new_rows = _normalise(self.mutate(rows))
            for r in new_rows:
                if r["role"] not in ROLES:
                    raise ValueError(f"role must be one of {', '.join(ROLES)}, not {r['role']!r}")
            has_box = any(r["bbox_x"] is not None for r in new_rows)
            target: State = (tuple(tuple(r[c] for c in _COLS) for r in new_rows),
                             1 if has_box else current[1])
            self.before = current
        else:
            if current != self.before:
                raise EditConflict(f"{self.label}: the sample's images changed since; "
                                   "redo refused")
            target = self.after
        if target == current:
            self.after = current
            return
        _apply(project, self.sample_id, target)
        self.after = snapshot(project, self.sample_id)
        touch(project, self.sample_id)
        project.audit("edit", "sample", self.sample_id, "images", _summary(current),
                      _summary(self.after))

    def _undo(self, project: Project) -> None:
        assert self.before is not None and self.after is not None
        current = snapshot(project, self.sample_id)
        if current != self.after:
            raise EditConflict(f"sample {self.sample_id!r}: its images were changed elsewhere "
                               f"since '{self.label}'; undo refused to keep that change")
        _apply(project, self.sample_id, self.before)
        touch(project, self.sample_id)
        project.audit("edit", "sample", self.sample_id, "images", _summary(self.after),
                      _summary(self.before))

    def merge(self, other: Command) -> bool:
        if not isinstance(other, ImagesEdit) or other.sample_id != self.sample_id:
            return False
        self.after = other.after
        self.label = other.label
        return True


def _end(rows: list[Row], role: str) -> float:
    return max((r["position"] for r in rows if r["role"] == role), default=-1) + 0.5


def _place(rows: list[Row], target: Row, role: str, index: int) -> None:
    """Give ``target`` ``role`` at ``index`` (clamped) among that role's other rows."""
    same = sorted((r for r in rows if r["role"] == role and r is not target),
                  key=lambda r: r["position"])
    same.insert(max(0, min(len(same), index)), target)
    target["role"] = role
    for pos, r in enumerate(same):
        r["position"] = pos


def set_image_role(sample_id: str, role: str, *, row_id: int | None = None,
                   sha256: str | None = None, ref: str | None = None,
                   index: int | None = None) -> ImagesEdit:
    """Use a whole image as ``role``: change its row, or add one for a post image.

    The image goes last among ``role``'s images, or at ``index`` (0-based, clamped)
    when given (a thumbnail dropped into another role's group).
    """
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}, not {role!r}")

    def mutate(rows: list[Row]) -> list[Row]:
        target = next((r for r in rows if r["id"] == row_id and row_id is not None), None)
        if target is None:
            if sha256 is None and ref is None:
                raise KeyError(f"sample {sample_id!r} has no image row {row_id}")
            target = {"id": None, "role": role, "position": _end(rows, role), "ref": ref,
                      "sha256": sha256, "bbox_x": None, "bbox_y": None, "bbox_w": None,
                      "bbox_h": None,
                      "error": None if sha256 else "the image was never fetched"}
            rows.append(target)
        elif target["role"] != role and index is None:
            target["role"], target["position"] = role, _end(rows, role)
        if index is not None:
            _place(rows, target, role, index)
        return rows

    label = f"Mark image as {role}" if index is None else f"Move image to {role} {index + 1}"
    return ImagesEdit(sample_id, label, mutate)


def move_image(sample_id: str, row_id: int, delta: int) -> ImagesEdit:
    """Move an image (or box) ``delta`` places within its role's order."""

    def mutate(rows: list[Row]) -> list[Row]:
        target = next((r for r in rows if r["id"] == row_id), None)
        if target is None:
            raise KeyError(f"sample {sample_id!r} has no image row {row_id}")
        same = sorted((r for r in rows if r["role"] == target["role"]),
                      key=lambda r: r["position"])
        k = same.index(target)
        j = max(0, min(len(same) - 1, k + delta))
        same.insert(j, same.pop(k))
        for pos, r in enumerate(same):
            r["position"] = pos
        return rows

    return ImagesEdit(sample_id, "Reorder images", mutate)


def _check_rect(rect: tuple[int, int, int, int],
                size: tuple[int, int] | None) -> tuple[int, int, int, int]:
    """``rect`` cut to the image (``size``, the file's pixels like ``rect``): the part of it
    on the image, so a box is cut the same way whichever way the image is shown."""
    x, y, w, h = (int(v) for v in rect)
    if w < 1 or h < 1:
        raise ValueError(f"a box needs a positive width and height, got {w}×{h}")
    if size is None:
        return x, y, w, h
    width, height = size
    left, top = max(0, x), max(0, y)
    right, bottom = min(width, x + w), min(height, y + h)
    if right <= left or bottom <= top:
        raise ValueError(f"the {w}×{h} box lies outside the image; nothing to keep")
    return left, top, right - left, bottom - top


def add_box(sample_id: str, sha256: str | None, ref: str | None, role: str,
            rect: tuple[int, int, int, int], size: tuple[int, int] | None = None) -> ImagesEdit:
    """Add a box (x, y, w, h in source pixels, clipped to ``size``) on a screenshot."""
    if role not in ("input", "output"):
        raise ValueError(f"a box is an input or an output, not {role!r}")
    x, y, w, h = _check_rect(rect, size)

    def mutate(rows: list[Row]) -> list[Row]:
        rows.append({"id": None, "role": role, "position": _end(rows, role), "ref": ref,
                     "sha256": sha256, "bbox_x": x, "bbox_y": y, "bbox_w": w, "bbox_h": h,
                     "error": None})
        return rows

    return ImagesEdit(sample_id, f"Add {role} box", mutate)


def _with_box(sample_id: str, row_id: int, label: str, change: Callable[[Row], None],
              merge_key: Any = None) -> ImagesEdit:
    def mutate(rows: list[Row]) -> list[Row]:
        target = next((r for r in rows if r["id"] == row_id and r["bbox_x"] is not None), None)
        if target is None:
            raise KeyError(f"sample {sample_id!r} has no box {row_id}")
        change(target)
        return [r for r in rows if r.get("_delete") is not True]

    return ImagesEdit(sample_id, label, mutate, merge_key)


def set_box(sample_id: str, row_id: int, rect: tuple[int, int, int, int],
            size: tuple[int, int] | None = None, *, nudge: bool = False) -> ImagesEdit:
    """Move or resize a box; successive nudges of one box merge into one undo step."""
    x, y, w, h = _check_rect(rect, size)

    def change(r: Row) -> None:
        r["bbox_x"], r["bbox_y"], r["bbox_w"], r["bbox_h"] = x, y, w, h

    return _with_box(sample_id, row_id, "Nudge box" if nudge else "Move/resize box", change,
                     ("nudge", sample_id, row_id) if nudge else None)


def set_box_role(sample_id: str, row_id: int, role: str) -> ImagesEdit:
    """Relabel a box as input or output."""
    if role not in ("input", "output"):
        raise ValueError(f"a box is an input or an output, not {role!r}")

    def change(r: Row) -> None:
        if r["role"] != role:
            r["role"] = role
            r["position"] = 1e9

    return _with_box(sample_id, row_id, f"Label box {role}", change)


def delete_box(sample_id: str, row_id: int) -> ImagesEdit:
    """Remove a box from a screenshot."""

    def change(r: Row) -> None:
        r["_delete"] = True

    return _with_box(sample_id, row_id, "Delete box", change)
