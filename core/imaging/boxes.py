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


def merge_overlapping(dets: Sequence[Detection], iou_threshold: float = 0.3,
                      containment: float = 0.6) -> list[Detection]:
    """Merge detections of the same kind that overlap (several detectors, tiles, scales).

    Two boxes belong together when their IoU reaches ``iou_threshold`` or when the
    smaller one lies ``containment`` inside the larger.  A merged group becomes the
    union of its boxes (hiding more is the safe side), with the best score and the
    names of every detector that found it.
    """
    order = sorted(dets, key=lambda d: -d.score)
    groups: list[list[Detection]] = []
    for det in order:
        for group in groups:
            lead = group[0]
            if lead.kind != det.kind:
                continue
            inter = intersection(lead.box, det.box)
            small = min(area(lead.box), area(det.box)) or 1.0
            if iou(lead.box, det.box) >= iou_threshold or inter / small >= containment:
                group.append(det)
                break
        else:
            groups.append([det])
    merged: list[Detection] = []
    for group in groups:
        box = group[0].box
        for det in group[1:]:
            box = union_box(box, det.box)
        names = sorted({d.detector for d in group})
        merged.append(replace(group[0], x=box[0], y=box[1], w=box[2], h=box[3],
                              detector="+".join(names)))
    return merged
