"""Axis-aligned boxes: IoU, coverage, growth margin, merging of overlapping detections."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Detection:
    """One detected region in upright-photo pixels (top-left corner + size)."""

    kind: str  # "face" | "plate"
    x: float
    y: float
    w: float
    h: float
    score: float
    detector: str

    @property
    def box(self) -> tuple[float, float, float, float]:
        """(x, y, w, h)."""
        return (self.x, self.y, self.w, self.h)


Box = tuple[float, float, float, float]

#: what a region's ``source`` (a detector's name, or several joined by "+") says to a
#: person: the stored names stay as they are (exports, older projects)
SOURCE_LABELS = {
    "manual": "drawn by hand",
    "centerface": "face detector",
    "hog": "face detector (HOG)",
    "pp-ocr-text": "text found",
    "pp-ocr-read": "plate shape read",
}


#: longest unknown detector name shown (a hand-edited project may hold anything)
SHOWN_NAME = 40


def describe_source(source: str) -> str:
    """A region's ``source`` in words: each detector's label (:data:`SOURCE_LABELS`;
    an unknown name as it is, on one line, its hidden and control characters spelt out
    as all shown text is (:mod:`core.visible_text`), cut at :data:`SHOWN_NAME`),
    several joined by " + "."""
    from core.visible_text import spell_controls, visible

    def shown(name: str) -> str:
        if name in SOURCE_LABELS:
            return SOURCE_LABELS[name]
        name = spell_controls(visible(" ".join(name.split())))
        return name if len(name) <= SHOWN_NAME else name[: SHOWN_NAME - 1] + "…"

    names = [name for name in source.split("+") if name] or [source]
    return " + ".join(shown(name) for name in names)


def area(box: Box) -> float:
    """Area of an (x, y, w, h) box."""
    return max(0.0, box[2]) * max(0.0, box[3])


def intersection(a: Box, b: Box) -> float:
    """Area shared by two boxes."""
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return max(0.0, w) * max(0.0, h)


def iou(a: Box, b: Box) -> float:
    """Intersection over union (0 for disjoint or empty boxes)."""
    inter = intersection(a, b)
    union = area(a) + area(b) - inter
    return inter / union if union > 0 else 0.0


def union_box(a: Box, b: Box) -> Box:
    """The smallest box containing both."""
    x1, y1 = min(a[0], b[0]), min(a[1], b[1])
    x2, y2 = max(a[0] + a[2], b[0] + b[2]), max(a[1] + a[3], b[1] + b[3])
    return (x1, y1, x2 - x1, y2 - y1)


def grow(box: Box, left_right: float, top: float, bottom: float | None = None,
         size: tuple[int, int] | None = None) -> Box:
    """Grow ``box`` by fractions of its width (each side) and height (top / bottom).

    ``size`` = (width, height) clips the result to the image.
    """
    bottom = top if bottom is None else bottom
    x, y, w, h = box
    x1, x2 = x - w * left_right, x + w * (1 + left_right)
    y1, y2 = y - h * top, y + h * (1 + bottom)
    if size is not None:
        x1, y1 = max(0.0, x1), max(0.0, y1)
        x2, y2 = min(float(size[0]), x2), min(float(size[1]), y2)
    return (x1, y1, max(0.0, x2 - x1), max(0.0, y2 - y1))


def overlapping(a: Box, b: Box, iou_threshold: float = 0.3, containment: float = 0.6) -> bool:
    """Whether two boxes are one object's: IoU at least ``iou_threshold``, or the smaller
    one at least ``containment`` inside the other."""
    small = min(area(a), area(b)) or 1.0
    return iou(a, b) >= iou_threshold or intersection(a, b) / small >= containment


def merge_overlapping(dets: Sequence[Detection], iou_threshold: float = 0.3,
                      containment: float = 0.6) -> list[Detection]:
    """Merge detections of the same kind that overlap (several detectors, tiles, scales).

    Two boxes belong together when they are :func:`overlapping`. A merged group becomes
    the union of its boxes (hiding more is the safe side), with the best score and the
    names of every detector that found it. Groups are compared by their union, until
    none overlaps another (ADR 044): no two results of one kind are :func:`overlapping`,
    whatever the order the boxes came in.
    """
    groups: list[tuple[Box, list[Detection]]] = []
    for det in sorted(dets, key=lambda d: -d.score):
        box, members = det.box, [det]
        joined = True
        while joined:  # a grown union may now reach another group
            joined = False
            for k, (other, others) in enumerate(groups):
                if others[0].kind == det.kind and overlapping(other, box, iou_threshold,
                                                              containment):
                    box, members = union_box(other, box), others + members
                    del groups[k]
                    joined = True
                    break
        groups.append((box, members))
    merged: list[Detection] = []
    for box, members in sorted(groups, key=lambda g: -max(d.score for d in g[1])):
        lead = max(members, key=lambda d: d.score)
        names = sorted({name for d in members for name in d.detector.split("+")})
        merged.append(replace(lead, x=box[0], y=box[1], w=box[2], h=box[3],
                              detector="+".join(names)))
    return merged
