"""Headless bulk anonymization of a folder (``winnow anonymize``): detect, hide, verify, write.

For trusted bulk use without review: every detected region is hidden with one
method, the output carries no metadata, and the report lists every region with
its detector and score and every photo whose verification failed.

Every input gets its own output name, also where names differ only in case or
extension (``x.jpg``, ``x.JPG``, ``x.jpeg`` and ``x.heic`` would all become ``x.jpg``):
see :func:`output_names`. Files that are not photos Winnow reads are listed as skipped
with the reason. Outputs are recorded in the folder's ownership marker
(:mod:`core.export_files`) with the photo and settings they came from, so a run that was
interrupted resumes: verified outputs of the same photo with the same settings are kept,
Winnow's other earlier outputs are replaced only with ``overwrite``, and a file Winnow did
not write (or that was changed since) is never replaced.

An output whose verification failed (a face or a readable plate still found) is not
written (ADR 163): the report names it and why. With ``keep_failed`` it is written as
``x.UNVERIFIED.jpg``, a name that says so; it is never taken as finished by a re-run,
and Winnow removes such a copy of its own (proved by the marker) once a run writes the
photo's verified output, or runs without ``keep_failed``.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from core.export_files import Marker, NotOwnedError, export_bytes
from core.files import WRITE_ERRNOS, WriteError, digest
from core.imaging.anonymize import HideSpec
from core.imaging.detect import DetectSettings, detect_all
from core.imaging.geometry import Geometry
from core.imaging.loading import PhotoDecodeError, decode_photo, scan_photos
from core.imaging.release import RenderJob, output_format, render_verified


def scan(in_dir: Path, out_dir: Path) -> tuple[list[Path], list[dict[str, str]]]:
    """``(photos, skipped)`` under ``in_dir``: relative paths of the photos to anonymize,
    and every other (non-hidden) file with the reason it is left out. ``out_dir`` is not
    searched when it lies inside ``in_dir``."""
    photos, skipped = scan_photos(in_dir, exclude=out_dir)
    return photos, [{"file": name, "reason": f"{why}; nothing was written"}
                    for name, why in skipped]


def output_names(photos: list[Path]) -> dict[Path, Path]:
    """A distinct output path for every input (relative), the same for the same inputs.

    The natural name is the input's with the output format's extension. Where two
    inputs would share one (ignoring case, as Windows and macOS do), each of them gets
    its original extension in the name instead: ``x.jpg`` → ``x-jpg.jpg``, ``x.heic`` →
    ``x-heic.jpg``, then ``-2``, ``-3`` … if that is still taken.
    """
    natural = {rel: rel.with_suffix(f".{output_format(rel.name)}") for rel in photos}
    groups: dict[str, list[Path]] = defaultdict(list)
    for rel, out in natural.items():
        groups[out.as_posix().casefold()].append(rel)
    names = {members[0]: natural[members[0]] for members in groups.values()
             if len(members) == 1}
    taken = {out.as_posix().casefold() for out in names.values()}
    for key in sorted(groups):
        for rel in sorted(groups[key], key=lambda p: p.as_posix()) if len(groups[key]) > 1 \
                else ():
            out = natural[rel]
            stem = f"{rel.stem}-{rel.suffix.lstrip('.') or 'file'}"
            candidate, n = out.with_name(f"{stem}{out.suffix}"), 2
            while candidate.as_posix().casefold() in taken:
                candidate, n = out.with_name(f"{stem}-{n}{out.suffix}"), n + 1
            taken.add(candidate.as_posix().casefold())
            names[rel] = candidate
    return names


def _settings_key(method: str, settings: DetectSettings) -> str:
    text = json.dumps({"method": method, **settings.to_json()}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


#: the word an output that failed verification carries in its name (ADR 163)
UNVERIFIED = "UNVERIFIED"


def unverified_name(out: Path) -> Path:
    """The name of an output kept although its verification failed: ``x.UNVERIFIED.jpg``."""
    return out.with_name(f"{out.stem}.{UNVERIFIED}{out.suffix}")


def _same_output(marker: Marker, out: Path, key: str, source_sha256: str | None) -> bool:
    """Whether the marker's last record of ``out`` is this photo with these settings."""
    record = marker.records.get(out.as_posix(), [{}])[-1]
    return record.get("settings") == key and record.get("source_sha256") == source_sha256


def _finished(marker: Marker, out: Path) -> bool:
    """Whether the marker's last record of ``out`` says it passed verification (records
    of versions before ADR 163 do not say: such an output is made again)."""
    return marker.records.get(out.as_posix(), [{}])[-1].get("verified") is True


def _remove_own(out_dir: Path, out: Path, source_sha256: str,
                report: dict[str, Any], why: str, settings: str | None = None) -> None:
    """Remove ``out`` if the marker proves it is Winnow's output of this photo (with these
    ``settings``, if given), unchanged and not on record as verified (ADR 005: nothing
    else is ever deleted); the report names it and why."""
    target = out_dir / out
    try:
        marker = Marker(out_dir)
        if not os.path.lexists(target) or not marker.lists(out.as_posix(), target):
            return
        record = marker.records[out.as_posix()][-1]
        if record.get("source_sha256") != source_sha256 or record.get("verified") is True \
                or (settings is not None and record.get("settings") != settings):
            return
        target.unlink()
    except (NotOwnedError, OSError):
        return
    report["removed"].append({"output": str(target), "why": why})


def _written_meanwhile(out_dir: Path, target: Path, key: str, data: bytes) -> bool:
    """Whether ``target``, which appeared after the outputs were checked (another run
    into the same folder), is Winnow's output of the photo ``data`` with the same
    settings."""
    try:
        marker = Marker(out_dir)
        if target.is_symlink() or not target.is_file():
            return False
        size, sha = digest(target)
    except (NotOwnedError, OSError):
        return False
    source = hashlib.sha256(data).hexdigest()
    # the record of the bytes now there (a run whose move failed also left a line)
    return any(r["size"] == size and r["sha256"] == sha and r.get("settings") == key
               and r.get("source_sha256") == source
               for r in marker.records.get(target.relative_to(out_dir).as_posix(), []))


def _check_outputs(in_dir: Path, out_dir: Path, names: dict[Path, Path], key: str,
                   overwrite: bool) -> tuple[set[Path], set[Path]]:
    """``(keep, replace)``: inputs whose existing output can be kept (same photo, same
    settings, verified), and those whose existing output is Winnow's earlier one, to be
    replaced (that of the same photo and settings whose verification is not on record:
    always; others: with ``overwrite``); raises before anything is written when an output
    is in the way."""
    marker = Marker(out_dir) if out_dir.is_dir() else None
    keep: set[Path] = set()
    replace: set[Path] = set()
    foreign: list[str] = []
    earlier: list[str] = []
    for rel, out in names.items():
        target = out_dir / out
        if not os.path.lexists(target):
            continue
        if marker is None or not marker.lists(out.as_posix(), target):
            foreign.append(out.as_posix())
        elif _same_output(marker, out, key, _sha256(in_dir / rel)):
            (keep if _finished(marker, out) else replace).add(rel)
        else:
            earlier.append(out.as_posix())
            replace.add(rel)
    if foreign or (earlier and not overwrite):
        parts = []
        if foreign:
            parts.append(f"{', '.join(foreign[:5])} (not written by Winnow, or changed "
                         "since: never replaced; move them away or choose another folder)")
        if earlier and not overwrite:
            parts.append(f"{', '.join(earlier[:5])} (earlier Winnow outputs of other "
                         "settings or another photo: pass --overwrite to replace them)")
        count = len(foreign) + (0 if overwrite else len(earlier))
        raise FileExistsError(f"{count} output file(s) already exist in {out_dir}: "
                              + "; ".join(parts))
    return keep, replace


def anonymize_folder(in_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str],
                     method: str = "blur", settings: DetectSettings | None = None,
                     state: Any = None, overwrite: bool = False,
                     keep_failed: bool = False) -> dict[str, Any]:
    """Anonymize every photo under ``in_dir`` into ``out_dir`` (same relative folders).

    Outputs in the way are refused before anything is written (see the module
    docstring). Returns the report: ``photos`` (file, output, regions, verification,
    ms), ``kept`` (verified outputs of an earlier run, unchanged and still valid),
    ``failed`` (files whose verification still found a face or a readable plate: file,
    why, and the ``x.UNVERIFIED.jpg`` output with ``keep_failed``, else none), ``removed``
    (Winnow's own unverified outputs of earlier runs it removed), ``errors`` (files that
    could not be read or written), ``skipped`` (files that are not photos Winnow reads)
    and ``not_written`` (photos not reached because the disk filled up).
    """
    settings = settings or DetectSettings()
    in_dir, out_dir = Path(in_dir), Path(out_dir)
    if out_dir.resolve() == in_dir.resolve():
        raise ValueError("the output folder must differ from the input folder "
                         "(originals are never overwritten)")
    if os.path.lexists(out_dir) and not out_dir.is_dir():
        raise ValueError(f"{out_dir} is a file, not a folder: choose a folder for the "
                         "anonymized copies")
    photos, skipped = scan(in_dir, out_dir)
    names = output_names(photos)
    key = _settings_key(method, settings)
    keep, replace = _check_outputs(in_dir, out_dir, names, key, overwrite)
    report: dict[str, Any] = {"method": method, "settings": settings.to_json(),
                              "photos": [], "kept": [], "failed": [], "removed": [],
                              "errors": [], "skipped": skipped, "not_written": []}
    if state is not None:
        state.set_total(len(photos))
    for i, rel in enumerate(photos):
        target = out_dir / names[rel]
        if state is not None:
            state.check()
            state.set_status(str(rel))
        if rel in keep:
            report["kept"].append({"file": rel.as_posix(), "output": str(target)})
        else:
            try:
                _one(in_dir, rel, target, out_dir, method, settings, key, report,
                     rel in replace, keep_failed)
            except WriteError as exc:
                report["errors"].append({"file": rel.as_posix(), "error": str(exc)})
                if exc.errno in WRITE_ERRNOS:  # a full disk: every further write fails
                    report["not_written"] = [p.as_posix() for p in photos[i + 1:]]
                    break
        if state is not None:
            state.advance()
    return report


def _one(in_dir: Path, rel: Path, target: Path, out_dir: Path, method: str,
         settings: DetectSettings, key: str, report: dict[str, Any],
         replace: bool = False, keep_failed: bool = False) -> None:
    started = time.perf_counter()
    try:
        data = (in_dir / rel).read_bytes()
    except OSError as exc:
        report["errors"].append({"file": rel.as_posix(),
                                 "error": f"cannot read ({exc.strerror or exc})"})
        return
    try:
        rgb = decode_photo(data, rel.name)
    except PhotoDecodeError as exc:
        report["errors"].append({"file": rel.as_posix(), "error": str(exc)})
        return
    found = detect_all(rgb, settings)
    specs = [HideSpec(d.x, d.y, d.w, d.h, "rect", method) for d in found]
    labels = [f"#{i + 1} ({d.kind})" for i, d in enumerate(found)]
    fmt = output_format(rel.name)
    out, result = render_verified(RenderJob(rgb, specs, labels, Geometry()), settings, fmt)
    source = hashlib.sha256(data).hexdigest()
    natural = target.relative_to(out_dir)
    spare = unverified_name(natural)
    if not result.ok:
        # an earlier version's output of this photo and settings, never verified: the
        # same failure, so it goes (only when the marker proves it is Winnow's)
        if replace:
            _remove_own(out_dir, natural, source, report, "an earlier run's output of "
                        f"{rel.as_posix()} that did not pass verification", settings=key)
        if not keep_failed:
            _remove_own(out_dir, spare, source, report, f"an earlier unverified copy of "
                        f"{rel.as_posix()} (this run did not pass --keep-failed)")
            report["failed"].append({
                "file": rel.as_posix(), "why": result.why(), "output": None,
                "inside": result.inside, "outside": result.outside,
                "text_inside": result.text_inside,
                # an earlier output of other settings (--overwrite) stays as it was
                "earlier_output_left": str(target) if os.path.lexists(target) else None})
            return
        target, replace = out_dir / spare, True  # replaced only if Winnow's (marker)
    try:
        if not replace and os.path.lexists(target):  # appeared since the check
            raise FileExistsError(target)
        export_bytes(target, out, root=out_dir,
                     record={"source": rel.as_posix(), "settings": key,
                             "source_sha256": source, "verified": result.ok})
    except FileExistsError:  # another run into the same folder, or the user, meanwhile
        if result.ok and _written_meanwhile(out_dir, target, key, data):
            report["kept"].append({"file": rel.as_posix(), "output": str(target)})
        else:
            report["errors"].append({"file": rel.as_posix(), "error": (
                f"{rel.as_posix()}: not written: {target.name} is in the output folder "
                "(another run, or someone else, put it there), and Winnow never replaces "
                "a file it cannot prove it wrote for this photo with these settings")})
        return
    if result.ok:
        _remove_own(out_dir, spare, source, report, f"an earlier unverified copy of "
                    f"{rel.as_posix()}, now superseded by its verified output")
    report["photos"].append({
        "file": rel.as_posix(), "output": str(target),
        "regions": [{"region": labels[i], "kind": d.kind, "detector": d.detector,
                     "score": round(d.score, 4),
                     "box": [round(v, 1) for v in d.box]} for i, d in enumerate(found)],
        "verification": result.to_json(),
        "ms": round(1000 * (time.perf_counter() - started), 1),
    })
    if not result.ok:
        report["failed"].append({"file": rel.as_posix(), "why": result.why(),
                                 "output": str(target), "inside": result.inside,
                                 "outside": result.outside,
                                 "text_inside": result.text_inside})
