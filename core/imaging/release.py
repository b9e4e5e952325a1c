"""Render and release a photo: regions hidden, geometry applied, no metadata, verified.

The released file is encoded from bare pixels (so it carries no EXIF, GPS,
thumbnail, XMP, IPTC, ICC profile, comments or PNG text), checked byte by byte
for any metadata, then decoded again and searched for faces and for plate text that
can still be read.  A face found inside a hidden region, or readable text on or beside
a plate region, makes the release stronger automatically (blur → stronger blur → fill,
pixelation → coarser → fill, the region grown to cover what was found) or refuses it;
a face outside every region, found at the check's own threshold (CenterFace 0.2), is
hidden by a region of its own (in the app only below ``verify_outside_threshold``; a
stronger one refuses the release unless the user accepts it), and readable plate-shaped
text outside every region is hidden by a region of its own and reported (ADR 043, 112,
114, 185).  The file is encoded, named and written by :mod:`core.imaging.release_files`
(atomic, never replacing a file Winnow did not write); originals are never touched.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from core.imaging.anonymize import HideSpec, hide_regions
from core.imaging.boxes import Box, Detection, intersection
from core.imaging.detect import DetectSettings
from core.imaging.geometry import Geometry, apply_geometry, map_box, plan
from core.imaging.photo_values import clip_box
from core.imaging.release_files import (
    EncodeError,
    encode_clean,
    metadata_found,
    release_stem,
    write_release,
)
from core.imaging.release_regions import ReleaseRegions

#: what it hands out from :mod:`core.imaging.release_files` (the released file's encoding,
#: metadata check, name and writing, ADR 227): callers keep importing them from here
__all__ = ["EncodeError", "encode_clean", "metadata_found", "release_stem", "write_release"]

class ReleaseRefused(Exception):  # noqa: N818 - a user-facing outcome, not a bug
    """The photo may not be released as it is (message names the reason / region)."""

    def __init__(self, message: str, verification: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.verification = verification or {}


@dataclass
class Verification:
    """What the face detector and the text reader still find on the written pixels."""

    detector: str
    inside: list[dict[str, Any]] = field(default_factory=list)  # face in a hidden region
    outside: list[dict[str, Any]] = field(default_factory=list)  # face outside, left as is
    #: face found outside every region and hidden by a region added at release (ADR 185)
    faces_hidden: list[dict[str, Any]] = field(default_factory=list)
    raised: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: readable text on or beside a plate region (refuses) / plate-shaped, outside every
    #: region (hidden by a region added at release, ADR 114, and reported)
    text_inside: list[dict[str, Any]] = field(default_factory=list)
    text_outside: list[dict[str, Any]] = field(default_factory=list)
    text_checked: bool | None = None  # None: nothing to check, False: no text models

    @property
    def ok(self) -> bool:
        """No face found at all where it matters, no plate region still readable."""
        return not self.inside and not self.outside and not self.text_inside

    def why(self) -> str:
        """Why the verification failed, in words: what was still found, and where."""
        parts = []
        if self.inside:
            parts.append(f"{len(self.inside)} face(s) still detected inside hidden regions")
        if self.outside:
            parts.append(f"{len(self.outside)} face(s) detected outside every region")
        if self.text_inside:
            parts.append(f"{len(self.text_inside)} plate(s) still readable")
        return "verification failed: " + ("; ".join(parts) or "not verified")

    def to_json(self) -> dict[str, Any]:
        """Plain dict for reports and the database."""
        return {"detector": self.detector, "ok": self.ok, "inside": self.inside,
                "outside": self.outside, "faces_hidden": self.faces_hidden,
                "raised": self.raised,
                "text_checked": self.text_checked, "text_inside": self.text_inside,
                "text_outside": self.text_outside}


# -- rendering --------------------------------------------------------------------------
def render(rgb: np.ndarray, specs: Sequence[HideSpec], geometry: Geometry) -> np.ndarray:
    """Regions hidden (in original coordinates), then geometry applied."""
    return apply_geometry(hide_regions(rgb, specs), geometry)


def face_finder(settings: DetectSettings) -> tuple[str, Callable[[np.ndarray], list[Detection]]]:
    """The verification detector: CenterFace when installed, else dlib HOG (ungrown boxes).

    The strongest installed one, whatever detector found the regions (ADR 145, 185). It
    looks at the usual thresholds (SPEC §4) or lower ones: a user's raised threshold
    finds fewer faces to hide, never lets a face it missed pass the check (ADR 176); it
    also looks at the photo turned round (ADR 197)."""
    from core.imaging import faces
    from core.imaging.detect import faces_any_way_up

    usual = DetectSettings()
    face = settings.face_threshold  # NaN or out of range: the usual one
    face = face if 0 < face < usual.face_threshold else usual.face_threshold
    hog = settings.hog_threshold
    hog = hog if hog < usual.hog_threshold else usual.hog_threshold
    if faces.centerface_available():
        return "centerface", lambda rgb: faces_any_way_up(rgb, face, settings.min_face_px)
    if faces.hog_available():
        return "hog", lambda rgb: faces.hog_faces(rgb, hog)
    raise RuntimeError("no face detector is installed to verify the release")


def _is_plate(label: str) -> bool:
    """Region labels read ``#<id> (<kind>)``."""
    return label.endswith("(plate)")


def verify(rgb_out: np.ndarray, hidden: Sequence[tuple[str, Box, bool]],
           settings: DetectSettings, anywhere: bool = True) -> Verification:
    """Search the released pixels for faces and readable plates (see the module docstring).

    ``hidden`` = (region label ``#<id> (<kind>)``, box in output pixels, solid fill?).
    A face detection lying entirely inside a solid fill carries no pixel of the person
    (the detector reacts to the blank shape in its surroundings) and is not counted.
    Every other face the check finds (at its own threshold, :func:`face_finder`) is
    listed: ``inside`` a region or ``outside`` every region (ADR 185).
    ``anywhere`` also reads plate-shaped text outside every region (when plate detection
    is on).  The face half and the text half look at the same pixels and share nothing:
    they run at once, one on each of :func:`check_lanes` (ADR 220).
    """
    from core.imaging.lanes import run_tasks

    name, find = face_finder(settings)
    result = Verification(detector=name)
    halves: list[Callable[[], Any]] = [
        partial(find, rgb_out), partial(_verify_text, rgb_out, hidden, settings, anywhere, result)]
    found: list[Detection] = run_tasks(halves, ways=check_lanes())[0]
    for det in found:
        inside = None
        area = max(det.w * det.h, 1e-6)
        for label, box, solid in hidden:
            share = intersection(det.box, box) / area
            if solid and share >= 0.95:
                inside = ""
                break
            if share >= 0.5:
                inside = label
                break
        if inside == "":
            continue
        entry = {"box": [round(v, 1) for v in det.box], "score": round(det.score, 3)}
        if inside is not None:
            result.inside.append({**entry, "region": inside})
        else:
            result.outside.append(entry)
    return result


def check_lanes() -> int:
    """The check's halves run at once: 2 where 2 cores or more are usable, else 1 (each
    half's models keep their own threads; ADR 220)."""
    from core.imaging.lanes import usable_cores

    return min(2, usable_cores())


def _verify_text(rgb_out: np.ndarray, hidden: Sequence[tuple[str, Box, bool]],
                 settings: DetectSettings, anywhere: bool, result: Verification) -> None:
    """The plate half of :func:`verify` (ADR 112)."""
    from core.imaging import plate_check

    plates = [(label, box) for label, box, _solid in hidden if _is_plate(label)]
    anywhere = anywhere and settings.plates
    if not plates and not anywhere:
        return
    result.text_checked = plate_check.text_check_available()
    if not result.text_checked:
        return
    for label, box in plates:
        result.text_inside += [f.to_json() for f in plate_check.around_region(
            rgb_out, label, box)]
    if anywhere:
        result.text_outside = [f.to_json() for f in plate_check.outside_regions(
            rgb_out, [box for _label, box, _solid in hidden], settings.plate_long_side)]


@dataclass
class RenderJob:
    """Everything needed to render and verify one photo."""

    rgb: np.ndarray
    specs: list[HideSpec]
    labels: list[str]
    geometry: Geometry


def render_verified(job: RenderJob, settings: DetectSettings, fmt: str = "jpg",
                    max_rounds: int = 4, hide_text_outside: bool = True,
                    hide_faces_below: float = math.inf) -> tuple[bytes, Verification]:
    """Render, encode, decode and verify; strengthen and grow failing regions and retry.

    A region fails when a face is found inside it or plate text on or beside it is
    still readable.  Plate-shaped text readable outside every region is looked for in
    the first round only (later renders change nothing outside the regions); with
    ``hide_text_outside`` each such plate gets a region of its own, labelled
    ``found after release <n> (plate)`` and hidden as the photo's first region is (blur
    by default), which later rounds verify like any plate region (ADR 114).  A face
    found outside every region scoring below ``hide_faces_below`` (every one, by
    default) gets a region of its own the same way, the face grown by the face margins,
    labelled ``found after release <n> (face)``, in any round but the last; the others
    stay in ``outside`` and fail the check (ADR 185).  An added region is grown to
    contain every region it overlaps (:func:`~core.imaging.release_regions.contain_overlapped`, ADR 161), so its edge
    never ends inside a plate.
    """
    from core.extras import require
    from core.imaging.loading import decode_rgb

    require("anonymize", "Releasing an anonymized photo")

    height, width = job.rgb.shape[:2]
    matrix, _size = plan(job.geometry, width, height)
    regions = ReleaseRegions(list(job.specs), list(job.labels),
                             job.specs[0] if job.specs else HideSpec(0, 0, 1, 1),
                             matrix, width, height)
    specs, labels, raised = regions.specs, regions.labels, regions.raised
    margins = (settings.face_margin, settings.face_margin_top, settings.face_margin_bottom)
    text_outside: list[dict[str, Any]] = []
    faces_hidden: list[dict[str, Any]] = []
    for round_no in range(max_rounds):
        last = round_no == max_rounds - 1
        data = encode_clean(render(job.rgb, specs, job.geometry), fmt)
        hidden = [(label, map_box(matrix, (s.x, s.y, s.w, s.h), s.shape), s.method == "fill")
                  for label, s in zip(labels, specs, strict=True)]
        result = verify(decode_rgb(data), hidden, settings, anywhere=round_no == 0)
        text_outside = result.text_outside = text_outside or result.text_outside
        result.raised = raised
        added = (regions.hide_plates(text_outside)
                 if round_no == 0 and not last and hide_text_outside else False)
        if not last:
            now_hidden, result.outside = regions.hide_faces(result.outside,
                                                            hide_faces_below, margins)
            faces_hidden += now_hidden
            added = added or bool(now_hidden)
        result.faces_hidden = faces_hidden
        failing = result.inside + result.text_inside
        if not (failing or added) or last:
            return data, result
        regions.contain()
        progressed = regions.strengthen(failing)
        progressed = regions.contain() or progressed or added
        if not progressed:
            break
    return data, result


def output_format(file_name: str) -> str:
    """PNG stays PNG; everything else is released as JPEG."""
    return "png" if file_name.lower().endswith(".png") else "jpg"


def release_photo(project: Any, photo_id: int, out_dir: str | os.PathLike[str],
                  settings: DetectSettings | None = None, accept_unhidden: bool = False
                  ) -> tuple[Path, Verification]:
    """Release a reviewed photo into ``out_dir``; returns the file and the verification.

    Raises :class:`ReleaseRefused` (nothing written) when the photo is not reviewed, a
    hidden face is still detectable or a plate region still readable at the strongest
    setting, or a face outside every region scoring ``verify_outside_threshold`` or
    more was found and ``accept_unhidden`` is False (a weaker one is hidden by a region
    of its own, ADR 185). Raises :class:`EncodeError` for a JPEG too big to write.
    """
    from core.imaging import photos as repo
    from core.store.errors import ReadOnlyProjectError

    if project.readonly:  # before a byte is written into the folder or the asset store
        raise ReadOnlyProjectError(f"{project.path.name} is open read-only: nothing is "
                                   "released")
    settings = settings or DetectSettings()
    photo = repo.get_photo(project, photo_id)
    if photo.status not in ("reviewed", "released"):
        raise ReleaseRefused(f"{photo.file_name}: only a reviewed photo can be released "
                             f"(status is {photo.status!r})")
    regs = repo.regions(project, photo_id)
    try:
        repo.check_values(photo, regs)
    except ValueError as exc:
        raise ReleaseRefused(f"{photo.file_name}: {exc}; correct it in Anonymize") from None
    try:
        rgb = repo.load_original(project, photo)
    except repo.OriginalChangedError as exc:
        raise ReleaseRefused(f"{exc}; nothing was released") from None
    specs = [spec_for(photo, r) for r in regs]
    labels = [f"#{r.id} ({r.kind})" for r in regs]
    fmt = output_format(photo.file_name)
    # a photo contributed for its text keeps readable plate-shaped text no region covers:
    # it is reported in the record, not hidden (ADR 114); a face outside every region is
    # hidden, one scoring verify_outside_threshold or more is the photographer's call
    # (ADR 185)
    data, result = render_verified(RenderJob(rgb, specs, labels, photo.geometry), settings, fmt,
                                   hide_text_outside=photo.category != "Text",
                                   hide_faces_below=settings.verify_outside_threshold)
    if result.inside:
        names = ", ".join(sorted({i["region"] for i in result.inside}))
        raise ReleaseRefused(f"{photo.file_name}: a face is still detectable inside region "
                             f"{names} even with the strongest setting; enlarge the region "
                             "or use fill", result.to_json())
    if result.text_inside:
        names = ", ".join(sorted({i["region"] for i in result.text_inside}))
        raise ReleaseRefused(f"{photo.file_name}: plate text is still readable at region "
                             f"{names} even with the strongest setting; enlarge the region "
                             "or use fill", result.to_json())
    if result.outside and not accept_unhidden:
        where = "; ".join(f"at x={o['box'][0]:.0f}, y={o['box'][1]:.0f} (score {o['score']})"
                          for o in result.outside)
        raise ReleaseRefused(f"{photo.file_name}: the released image still shows a face "
                             f"outside every region: {where}", result.to_json())
    # the project's copy first: a disk filling up then leaves no unrecorded file in the
    # user's folder (an unused copy in the content-addressed store harms nothing)
    sha, _ = project.assets.put(data, fmt)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    with project.transaction():  # an edit meanwhile waits the few ms the file takes
        if not repo.unchanged_since(project, photo, regs):
            raise ReleaseRefused(f"{photo.file_name}: the photo was edited or marked new "
                                 "while it was being released; nothing was released: "
                                 "review it and release it again")
        own = project.conn.execute("SELECT released_sha256 FROM photos WHERE id = ?",
                                   (photo_id,)).fetchone()

        def claimed(path: Path) -> bool:
            """Whether ``path`` is another photo's release (asked only in the rare case
            of a file already holding these bytes, so a big project's releases do not
            each resolve every released path)."""
            real = os.path.realpath(path)
            return any(os.path.realpath(row[0]) == real for row in project.conn.execute(
                "SELECT released_path FROM photos WHERE id != ? AND released_path IS NOT "
                "NULL", (photo_id,)))

        target = write_release(Path(out_dir), photo, fmt, data, own[0] if own else None,
                               claimed)
        repo.mark_released(project, photo_id, sha, str(target), result.to_json())
    return target, result


def spec_for(photo: Any, region: Any) -> HideSpec:
    """The HideSpec of a stored region (its own method/strength, else the photo's); its
    box clipped like an edit's (a region an earlier version stored far off the photo
    renders in bounded time, ADR 188)."""
    method = region.method or photo.method
    strength = region.strength if region.method else photo.strength
    if region.method and region.strength is None:
        strength = None
    box = clip_box((region.x, region.y, region.w, region.h), (photo.width, photo.height))
    return HideSpec(*box, region.shape, method, strength, photo.feather)
