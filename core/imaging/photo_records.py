"""What the photo repository (:mod:`core.imaging.photos`) hands out: a photo, a region,
what one detection changed, what an intake did (plain records, no database access)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.imaging.geometry import Geometry
from core.imaging.photo_values import unreadable_box

DEFAULT_LICENCE = "CC-BY-4.0"
#: a region's editable fields, in the order of the table's columns
REGION_FIELDS = ("kind", "shape", "x", "y", "w", "h", "method", "strength")


@dataclass
class Region:
    """A region to hide, in upright-original pixels."""

    id: int
    photo_id: int
    kind: str
    shape: str
    x: float
    y: float
    w: float
    h: float
    source: str = "manual"
    score: float | None = None
    method: str | None = None  # None = the photo's method
    strength: float | None = None
    #: a detector's region the user edited or confirmed: theirs now (ADR 189)
    edited: bool = False

    def fields(self) -> dict[str, Any]:
        """The editable fields plus source/score (to re-create a deleted region)."""
        return {k: getattr(self, k) for k in (*REGION_FIELDS, "source", "score")}

    @property
    def users(self) -> bool:
        """Drawn by hand, or a detector's the user edited or confirmed: a detection
        never replaces it."""
        return self.source == "manual" or self.edited

    @property
    def unreadable(self) -> str | None:
        """Why its box cannot be placed (text or NULL written with sqlite3: "its x is
        'abc', not a number"), else None (ADR 211)."""
        return unreadable_box((self.x, self.y, self.w, self.h))


@dataclass
class Photo:
    """One contributed photo (the original stays read-only in the asset store)."""

    id: int
    sha256: str
    file_name: str
    width: int
    height: int
    method: str = "blur"
    strength: float | None = None
    feather: float = 0.0
    geometry: Geometry = field(default_factory=Geometry)
    category: str | None = None
    credit: str = ""
    licence: str = DEFAULT_LICENCE
    caption: str = ""
    notes: str = ""
    status: str = "new"
    detected_at: str | None = None
    released_path: str | None = None
    released_at: str | None = None
    verification: dict[str, Any] | None = None


@dataclass
class Redetection:
    """What one detection changed in a photo: enough to undo and redo it (ADR 189)."""

    photo_id: int
    removed: list[Region]  # the untouched detector regions it replaced
    made: list[Region]  # the regions it added
    kept: int  # the user's regions, left as they were
    skipped: int  # detections not added: a user's region lies on them already
    before: tuple[str | None, str | None]  # detected_at, detect_settings
    after: tuple[str | None, str | None]
    declined: int = 0  # detections not added: the user rejected them before (ADR 201)

    @property
    def added(self) -> list[int]:
        """The ids of the regions it added."""
        return [r.id for r in self.made]

    @property
    def changed(self) -> bool:
        """Whether any region came or went."""
        return bool(self.removed or self.made)


@dataclass
class IntakeReport:
    """What a folder intake did."""

    imported: list[int] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, why): not photos

    def to_json(self) -> dict[str, Any]:
        """Plain dict."""
        return {"imported": len(self.imported), "duplicates": self.duplicates,
                "errors": [{"file": f, "error": e} for f, e in self.errors],
                "skipped": [{"file": f, "reason": r} for f, r in self.skipped]}
