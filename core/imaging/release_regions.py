"""The regions of one verified release as its rounds change them (ADR 114, 161, 185).

:func:`core.imaging.release.render_verified` renders, encodes and checks a photo, then
asks :class:`ReleaseRegions` to act on what the check found: a region whose face or
plate text is still found is made stronger and grown over it; a plate-shaped reading or
a face outside every region gets a region of its own, hidden as the photo's first
region is; a region added so is grown to contain every region it overlaps, so its edge
never ends inside a plate.  Boxes found on the released pixels are mapped back to the
original's (the geometry ``matrix``) and clipped to it; ``raised`` records every
change by region label, as the release's record reports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from core.imaging.anonymize import HideSpec, stronger
from core.imaging.boxes import Box, grow, intersection, union_box
from core.imaging.geometry import map_box


@dataclass
class ReleaseRegions:
    """``specs``/``labels``: the regions (in the original's pixels) and their labels;
    ``like``: how an added region is hidden; ``matrix``, ``width``, ``height``: the
    geometry from the original to the output, and the original's size."""

    specs: list[HideSpec]
    labels: list[str]
    like: HideSpec
    matrix: np.ndarray
    width: int
    height: int
    raised: dict[str, dict[str, Any]] = field(default_factory=dict)

    def hide_plates(self, findings: list[dict[str, Any]]) -> bool:
        """A region for every readable plate-shaped finding outside the regions (each
        marked ``"hidden": True``); True when any was added."""
        for n, finding in enumerate(findings, start=1):
            self._add(self.clipped(finding["box"]), f"found after release {n} (plate)")
            finding["hidden"] = True
        return bool(findings)

    def hide_faces(self, outside: list[dict[str, Any]], below: float,
                   margins: tuple[float, float, float]) -> tuple[list[dict[str, Any]],
                                                                 list[dict[str, Any]]]:
        """A region for every face of ``outside`` scoring below ``below``, the face grown
        by ``margins`` (sides, top, bottom); returns (the faces hidden, each naming its
        region; the faces left)."""
        done = sum(label.startswith("found after release") and label.endswith("(face)")
                   for label in self.labels)
        hidden, left = [], []
        for face in outside:
            if not face["score"] < below:
                left.append(face)
                continue
            done += 1
            label = f"found after release {done} (face)"
            self._add(self.clipped(grow(tuple(face["box"]), *margins)), label)
            hidden.append({**face, "region": label})
        return hidden, left

    def strengthen(self, failing: list[dict[str, Any]]) -> bool:
        """Make each failing region stronger and grow it over what was found; True when
        any changed."""
        progressed = False
        for item in failing:
            i = self.labels.index(item["region"])
            spec = self.specs[i]
            nxt = stronger(spec) or spec
            # a face (or text) found around a hidden region is only partly covered: cover it
            box = self.clipped(item["box"], around=(spec.x, spec.y, spec.w, spec.h))
            nxt = replace(nxt, x=box[0], y=box[1], w=box[2], h=box[3])
            if nxt != spec:
                self.specs[i] = nxt
                self.raised[item["region"]] = {**self.raised.get(item["region"], {}),
                                               "method": nxt.method, "strength": nxt.strength,
                                               "box": [round(v, 1) for v in box]}
                progressed = True
        return progressed

    def contain(self) -> bool:
        """:func:`contain_overlapped` for the regions the release added (ADR 161),
        recorded in ``raised``; True when any grew."""
        added = [i for i, label in enumerate(self.labels)
                 if self.raised.get(label, {}).get("added")]
        grown = contain_overlapped(self.specs, added)
        for i, box in grown.items():
            self.raised[self.labels[i]]["box"] = [round(v, 1) for v in box]
        return bool(grown)

    def clipped(self, box_out: Sequence[float], around: Box | None = None) -> Box:
        """``box_out`` (output pixels) in the original's, joined with ``around`` if given,
        clipped to the original (at least one pixel wide and tall)."""
        box = map_box(np.linalg.inv(self.matrix), (box_out[0], box_out[1], box_out[2],
                                                   box_out[3]))
        if around is not None:
            box = union_box(around, box)
        x1, y1 = max(0.0, box[0]), max(0.0, box[1])
        x2 = min(float(self.width), box[0] + box[2])
        y2 = min(float(self.height), box[1] + box[3])
        return (x1, y1, max(1.0, x2 - x1), max(1.0, y2 - y1))

    def _add(self, box: Box, label: str) -> None:
        """A region of its own at ``box``, hidden as :attr:`like`, recorded as added."""
        like = self.like
        self.specs.append(HideSpec(*box, method=like.method, strength=like.strength,
                                   feather=like.feather, fill=like.fill))
        self.labels.append(label)
        self.raised[label] = {"method": like.method, "strength": like.strength,
                              "added": True, "box": [round(v, 1) for v in box]}


def contain_overlapped(specs: list[HideSpec], grown: Sequence[int]) -> dict[int, Box]:
    """Grow each region ``specs[i]`` (``i`` in ``grown``) until it contains every region
    it overlaps, so its edge never crosses another region (a plate); in place.

    Repeats until nothing changes (a grown region can reach another).  Returns the new
    box of each region that grew.  The other regions are never changed.
    """
    changed: dict[int, Box] = {}
    moving = True
    while moving:
        moving = False
        for i in grown:
            box: Box = (specs[i].x, specs[i].y, specs[i].w, specs[i].h)
            for j, other in enumerate(specs):
                theirs: Box = (other.x, other.y, other.w, other.h)
                if j != i and intersection(box, theirs) > 0:
                    box = union_box(box, theirs)
            if box != (specs[i].x, specs[i].y, specs[i].w, specs[i].h):
                specs[i] = replace(specs[i], x=box[0], y=box[1], w=box[2], h=box[3])
                changed[i] = box
                moving = True
    return changed
