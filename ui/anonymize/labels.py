"""Where the region labels go on a crowded photo, so that no two of them overlap.

Pure geometry in screen pixels (no Qt): each label tries a few spots around its region
(above, below, inside, beside) and takes the first one that overlaps no label placed
before it, preferring spots that cover no other region either. A label with no free spot
is left out (its region still shows its outline and, on hover, its tooltip); the
selected region is placed first, so its label is always shown.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from itertools import chain

#: (x, y, width, height)
Rect = tuple[float, float, float, float]
CELL = 64.0  # px: the grid that finds neighbours without comparing every pair
#: a rectangle covering more cells than this is kept in one list, checked against every
#: query, so the grid's cost does not grow with the zoom (ADR 188)
MAX_CELLS = 64


def _overlaps(a: Rect, b: Rect) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and \
        b[1] < a[1] + a[3]


def _span(r: Rect) -> tuple[int, int, int, int]:
    """The first and last cell columns and rows ``r`` touches."""
    return (int(r[0] // CELL), int(r[1] // CELL), int((r[0] + r[2]) // CELL),
            int((r[1] + r[3]) // CELL))


class _Grid:
    """Rectangles bucketed by the grid cells they touch; big ones in a list of their own."""

    def __init__(self) -> None:
        self.cells: defaultdict[tuple[int, int], list[Rect]] = defaultdict(list)
        self.big: list[Rect] = []

    def _keys(self, r: Rect) -> list[tuple[int, int]] | None:
        """The cells of ``r`` (None: more than :data:`MAX_CELLS`)."""
        x0, y0, x1, y1 = _span(r)
        if (x1 - x0 + 1) * (y1 - y0 + 1) > MAX_CELLS:
            return None
        return [(i, j) for i in range(x0, x1 + 1) for j in range(y0, y1 + 1)]

    def add(self, r: Rect) -> None:
        keys = self._keys(r)
        if keys is None:
            self.big.append(r)
            return
        for key in keys:
            self.cells[key].append(r)

    def hits(self, r: Rect, ignore: Rect | None = None) -> bool:
        keys = self._keys(r)
        near: Iterable[Rect] = chain.from_iterable(
            self.cells.values() if keys is None  # a big query (a label never is): all
            else (self.cells.get(key, ()) for key in keys))
        return any(other is not ignore and _overlaps(r, other)
                   for other in chain(near, self.big))


def _spots(box: Rect, size: tuple[float, float]) -> list[Rect]:
    x, y, w, h = box
    lw, lh = size
    spots = [(x, y - lh), (x + w - lw, y - lh), (x, y + h), (x + w - lw, y + h)]
    if lw <= w and lh <= h:
        spots.append((x, y))
    spots += [(x - lw, y), (x + w, y), (x - lw, y + h - lh), (x + w, y + h - lh)]
    return [(sx, sy, lw, lh) for sx, sy in spots]


def _inside(r: Rect, bounds: Rect | None) -> bool:
    return bounds is None or (r[0] >= bounds[0] and r[1] >= bounds[1]
                              and r[0] + r[2] <= bounds[0] + bounds[2]
                              and r[1] + r[3] <= bounds[1] + bounds[3])


def place_labels(boxes: Sequence[Rect], sizes: Sequence[tuple[float, float]],
                 bounds: Rect | None = None, first: int | None = None
                 ) -> list[tuple[float, float] | None]:
    """Top-left corner of each region's label (None = no free spot: not shown).

    ``boxes`` are the regions on screen, ``sizes`` the labels' (width, height);
    ``bounds`` keeps labels inside the visible photo where it can; ``first`` is the
    index placed before all others (the selected region).
    """
    order = sorted(range(len(boxes)), key=lambda i: (boxes[i][1], boxes[i][0]))
    if first is not None and 0 <= first < len(boxes):
        order.remove(first)
        order.insert(0, first)
    regions = _Grid()
    for box in boxes:
        regions.add(box)
    placed = _Grid()
    out: list[tuple[float, float] | None] = [None] * len(boxes)
    for i in order:
        spots = [s for s in _spots(boxes[i], sizes[i]) if not placed.hits(s)]
        inside = [s for s in spots if _inside(s, bounds)] or spots
        clear = [s for s in inside if not regions.hits(s, ignore=boxes[i])]
        choice = clear[0] if clear else inside[0] if inside else None
        if choice is not None:
            placed.add(choice)
            out[i] = (choice[0], choice[1])
    return out
