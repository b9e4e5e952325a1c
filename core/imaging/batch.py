"""Headless bulk anonymization of a folder (``winnow anonymize``): detect, hide, verify, write.

For trusted bulk use without review: every detected region is hidden with one
method, the output carries no metadata, and the report lists every region with
its detector and score and every photo whose verification failed.

Every input gets its own output name, also where names differ only in case or
extension (``x.jpg``, ``x.JPG``, ``x.jpeg`` and ``x.heic`` would all become ``x.jpg``),
and none takes another's ``x.UNVERIFIED.jpg`` or a folder's name: see
:func:`output_names`. Files that are not photos Winnow reads, and linked or hidden
folders holding photos, are listed as skipped with the reason. Outputs are recorded in
the folder's ownership marker (:mod:`core.export_files`) with the photo and settings they
came from, so a run that was interrupted resumes: verified outputs of the same photo with
the same settings are kept, Winnow's other earlier outputs are replaced only with
``overwrite``, and a file Winnow did not write (or that was changed since) is never
replaced. A photo that fails in any unforeseen way is an error naming it; the rest of the
folder is still done (ADR 186).

An output whose verification failed (a face or a readable plate still found) is not
written (ADR 163): the report names it and why. With ``keep_failed`` it is written as
``x.UNVERIFIED.jpg``, a name that says so; it is never taken as finished by a re-run,
is replaced only for the input it was written for, and Winnow removes such a copy of
its own (proved by the marker, of any earlier version of that input) once a run has the
photo's verified output, or fails it again without ``keep_failed``. A copy no input of
the run owns any more (its photo renamed or deleted) is listed under ``failed``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from core.export_files import Marker, NotOwnedError, export_bytes
from core.files import WRITE_ERRNOS, KeptError, WriteError, digest
from core.imaging.anonymize import HideSpec
from core.imaging.detect import DetectSettings, detect_all
from core.imaging.geometry import Geometry
from core.imaging.loading import PhotoDecodeError, decode_photo, scan_photos, why_not_a_folder
from core.imaging.release import RenderJob, output_format, render_verified
from core.jobs import Cancelled

_log = logging.getLogger(__name__)


def scan(in_dir: Path, out_dir: Path) -> tuple[list[Path], list[dict[str, str]]]:
    """``(photos, skipped)`` under ``in_dir``: relative paths of the photos to anonymize,
    and every other (non-hidden) file with the reason it is left out. ``out_dir`` is not
    searched when it lies inside ``in_dir``."""
    photos, skipped = scan_photos(in_dir, exclude=out_dir)
    return photos, [{"file": name, "reason": f"{why}; nothing was written"}
                    for name, why in skipped]


#: the word an output that failed verification carries in its name (ADR 163)
UNVERIFIED = "UNVERIFIED"


#: the longest file name (in UTF-8 bytes) the common file systems take (ext4, APFS, NTFS)
NAME_BYTES = 255


def unverified_name(out: Path) -> Path:
    """The name of an output kept although its verification failed: ``x.UNVERIFIED.jpg``.
    Where that is longer than :data:`NAME_BYTES` (a 250-byte photo name), ``x`` is
    shortened and followed by ``~`` and a hash of the whole name, so two such names stay
    apart and the same output always gets the same name (ADR 228)."""
    name = f"{out.stem}.{UNVERIFIED}{out.suffix}"
    if len(_bytes(name)) <= NAME_BYTES:
        return out.with_name(name)
    tail = f"~{hashlib.sha256(_bytes(out.name)).hexdigest()[:8]}.{UNVERIFIED}{out.suffix}"
    stem = out.stem
    while stem and len(_bytes(stem + tail)) > NAME_BYTES:
        stem = stem[:-1]
    return out.with_name(stem + tail)


def _bytes(name: str) -> bytes:
    """A file name as the file system stores it (undecodable bytes kept as they came)."""
    return os.fsencode(name)


def output_names(photos: list[Path]) -> dict[Path, Path]:
    """A distinct output path for every input (relative), the same for the same inputs.

    The natural name is the input's with the output format's extension. Where two
    inputs would share one (ignoring case, as Windows and macOS do), each of them gets
    its original extension in the name instead: ``x.jpg`` → ``x-jpg.jpg``, ``x.heic`` →
    ``x-heic.jpg``, then ``-2``, ``-3`` … if that is still taken. So does an input whose
    name is shaped like an unverified copy (``x.UNVERIFIED.jpg`` → ``x.UNVERIFIED-jpg.jpg``:
    that name is ``x.jpg``'s), and one whose output or unverified name is a folder's
    (``x.jpeg`` beside the folder ``x.jpg/``) (ADR 186).
    """
    natural = {rel: rel.with_suffix(f".{output_format(rel.name)}") for rel in photos}
    folders = {_fold(parent) for rel in photos for parent in rel.parents
               if parent != Path(".")}
    groups: dict[str, list[Path]] = defaultdict(list)
    for rel, out in natural.items():
        groups[_fold(out)].append(rel)
    names = {members[0]: natural[members[0]] for members in groups.values()
             if len(members) == 1 and _free(natural[members[0]], folders)}
    taken = {_fold(out) for out in names.values()} | folders
    for key in sorted(groups):
        for rel in sorted(groups[key], key=lambda p: p.as_posix()):
            if rel not in names:
                names[rel] = _renamed(rel, natural[rel], taken, folders)
    return names


def _fold(path: Path) -> str:
    """``path`` as compared on a file system that ignores case."""
    return path.as_posix().casefold()


def _free(out: Path, folders: set[str]) -> bool:
    """Whether ``out`` may be a verified output's name: not shaped like an unverified
    copy (any case), and neither it nor its unverified name a folder's."""
    return (not out.stem.casefold().endswith(f".{UNVERIFIED.casefold()}")
            and _fold(out) not in folders and _fold(unverified_name(out)) not in folders)


def _renamed(rel: Path, out: Path, taken: set[str], folders: set[str]) -> Path:
    """``out`` with ``rel``'s extension in the name (then ``-2``, ``-3`` …), not ``taken``
    (which it joins)."""
    stem = f"{rel.stem}-{rel.suffix.lstrip('.') or 'file'}"
    candidate, n = out.with_name(f"{stem}{out.suffix}"), 2
    while _fold(candidate) in taken or not _free(candidate, folders):
        candidate, n = out.with_name(f"{stem}-{n}{out.suffix}"), n + 1
    taken.add(_fold(candidate))
    return candidate


def _settings_key(method: str, settings: DetectSettings) -> str:
    text = json.dumps({"method": method, **settings.to_json()}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _source_proof(data: bytes) -> dict[str, str]:
    """What the marker records of the input's bytes (ADR 199): a salted SHA-256, so the
    released folder holds no hash of the original photo that could be looked up or
    matched elsewhere; the same bytes are still recognised by salting them again."""
    salt = secrets.token_hex(16)
    return {"source_salt": salt,
            "source_tag": hashlib.sha256(bytes.fromhex(salt) + data).hexdigest()}


def _same_source(record: dict[str, Any], data: bytes | None) -> bool:
    """Whether ``record`` was written for an input of exactly these bytes (records of
    versions before ADR 199 hold the plain ``source_sha256``)."""
    if data is None:
        return False
    salt, tag = record.get("source_salt"), record.get("source_tag")
    if isinstance(salt, str) and isinstance(tag, str):
        try:
            return hashlib.sha256(bytes.fromhex(salt) + data).hexdigest() == tag
        except ValueError:  # a salt that is not hex: not Winnow's record
            return False
    return record.get("source_sha256") == hashlib.sha256(data).hexdigest()


def _same_output(marker: Marker, out: Path, rel: Path, key: str,
                 data: bytes | None) -> bool:
    """Whether the marker's last record of ``out`` is the input ``rel`` with these bytes
    and settings."""
    record = marker.records.get(out.as_posix(), [{}])[-1]
    return (record.get("source") == rel.as_posix() and record.get("settings") == key
            and _same_source(record, data))


def _finished(marker: Marker, out: Path) -> bool:
    """Whether the marker's last record of ``out`` says it passed verification (records
    of versions before ADR 163 do not say: such an output is made again)."""
    return marker.records.get(out.as_posix(), [{}])[-1].get("verified") is True


def _recorded_for(out_dir: Path, out: Path, rel: Path) -> bool:
    """Whether the marker's last record of ``out`` says the input ``rel`` wrote it (a
    file recorded for another photo is never replaced for this one, ADR 186)."""
    try:
        record = Marker(out_dir).records.get(out.as_posix(), [{}])[-1]
    except (NotOwnedError, OSError):
        return False
    return record.get("source") == rel.as_posix()


def _remove_own(out_dir: Path, out: Path, rel: Path, report: dict[str, Any], why: str,
                data: bytes | None = None, settings: str | None = None) -> None:
    """Remove ``out`` if the marker proves it is Winnow's unverified output of the input
    ``rel`` (of these source bytes and ``settings``, if given), unchanged and not on
    record as verified (ADR 005: nothing else is ever deleted); the report names it and
    why."""
    target = out_dir / out
    if not os.path.lexists(target):
        return
    try:
        marker = Marker(out_dir)
        if not marker.lists(out.as_posix(), target):
            return
        record = marker.records[out.as_posix()][-1]
        if record.get("source") != rel.as_posix() or record.get("verified") is True \
                or (data is not None and not _same_source(record, data)) \
                or (settings is not None and record.get("settings") != settings):
            return
        target.unlink()
    except (NotOwnedError, OSError):
        return
    report["removed"].append({"output": str(target), "why": why})


def _remove_spare(out_dir: Path, out: Path, rel: Path, report: dict[str, Any],
                  why: str) -> None:
    """Remove Winnow's own unverified copy of the input ``rel`` (of any earlier version
    of the photo: one touched up since is the same input), see :func:`_remove_own`."""
    _remove_own(out_dir, unverified_name(out), rel, report,
                f"an earlier unverified copy of {rel.as_posix()}, {why}")


def _stale_copies(out_dir: Path, names: dict[Path, Path], report: dict[str, Any]) -> None:
    """List under ``failed`` each unverified copy Winnow wrote earlier, unchanged, that
    no input of this run will ever replace or remove (its photo was renamed or deleted,
    or its output renamed): faces may show in it, so the run says so (ADR 186)."""
    try:
        marker = Marker(out_dir)
    except (NotOwnedError, OSError):
        return
    spare_of = {rel.as_posix(): unverified_name(out).as_posix() for rel, out in names.items()}
    for name, records in sorted(marker.records.items()):
        source = str(records[-1].get("source"))
        if records[-1].get("verified") is not False or spare_of.get(source) == name:
            continue
        try:
            if not marker.lists(name, out_dir / name):
                continue
        except OSError:
            continue
        report["failed"].append({
            "file": source, "output": str(out_dir / name), "earlier_run": True,
            "why": (f"an earlier run's unverified copy of {source} (it failed "
                    "verification: faces or plates may show) is still in the output "
                    "folder, and that photo is no longer in the input folder under this "
                    "name; Winnow leaves it: delete it before sharing the folder")})


def _written_meanwhile(out_dir: Path, target: Path, rel: Path, key: str,
                       data: bytes) -> bool:
    """Whether ``target``, which appeared after the outputs were checked (another run
    into the same folder), is Winnow's output of the photo ``rel`` with these bytes
    ``data`` and the same settings."""
    try:
        marker = Marker(out_dir)
        if target.is_symlink() or not target.is_file():
            return False
        size, sha = digest(target)
    except (NotOwnedError, OSError):
        return False
    # the record of the bytes now there (a run whose move failed also left a line)
    return any(r["size"] == size and r["sha256"] == sha and r.get("settings") == key
               and _same_source(r, data) and r.get("source") == rel.as_posix()
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
        elif _same_output(marker, out, rel, key, _read(in_dir / rel)):
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

    Outputs in the way, and an output folder Winnow may not write into, are refused
    before anything is written (see the module docstring). Returns the report:
    ``photos`` (file, output, regions, verification, ms), ``kept`` (verified outputs of
    an earlier run, unchanged and still valid), ``failed`` (files whose verification
    still found a face or a readable plate: file, why, and the ``x.UNVERIFIED.jpg``
    output with ``keep_failed``, else none; also earlier unverified copies no input
    owns any more, ``earlier_run``), ``removed`` (Winnow's own unverified outputs of
    earlier runs it removed), ``errors`` (files that could not be read, anonymized or
    written), ``skipped`` (files and folders that are not photos Winnow reads) and
    ``not_written`` (photos not reached because the disk filled up).
    """
    settings = settings or DetectSettings()
    in_dir, out_dir = Path(in_dir), Path(out_dir)
    if not in_dir.is_dir():
        raise ValueError(why_not_a_folder(in_dir))
    if os.path.realpath(out_dir) == os.path.realpath(in_dir):
        raise ValueError("the output folder must differ from the input folder "
                         "(originals are never overwritten)")
    if os.path.lexists(out_dir) and not out_dir.is_dir():
        raise KeptError(out_dir, why_not_a_folder(out_dir).removeprefix(f"{out_dir} "),
                        "choose a folder for the anonymized copies")
    _check_writable(out_dir)
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
        try:
            if rel in keep:
                report["kept"].append({"file": rel.as_posix(), "output": str(target)})
                _remove_spare(out_dir, names[rel], rel, report, "superseded by its "
                              "verified output")
            else:
                _one(in_dir, rel, target, out_dir, method, settings, key, report,
                     rel in replace, keep_failed)
        except WriteError as exc:
            report["errors"].append({"file": rel.as_posix(), "error": str(exc)})
            if exc.errno in WRITE_ERRNOS:  # a full disk: every further write fails
                report["not_written"] = [p.as_posix() for p in photos[i + 1:]]
                break
        except Cancelled:
            raise
        except Exception as exc:  # noqa: BLE001 - one photo's failure is that photo's
            report["errors"].append({"file": rel.as_posix(), "error": _unexpected(rel, exc)})
        if state is not None:
            state.advance()
    _stale_copies(out_dir, names, report)
    return report


def _check_writable(out_dir: Path) -> None:
    """Raise (``ValueError``) unless Winnow may create files in ``out_dir``, or create
    it: a read-only folder is found before any photo is anonymized."""
    existing = out_dir.absolute()
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"cannot write into {existing}: permission denied, or a "
                         "read-only folder; nothing was written (choose another folder)")


def _unexpected(rel: Path, exc: Exception) -> str:
    """The error of a photo that failed in a way no check foresaw (ADR 186): named, the
    rest of the folder goes on. A ``MemoryError`` is one photo too big to handle."""
    _log.info("anonymizing %s failed", rel.as_posix(), exc_info=exc)  # the log file
    what = "not enough memory" if isinstance(exc, MemoryError) else (
        f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    message = f"{rel.as_posix()}: could not be anonymized ({what})"
    return message if "nothing was written" in what else f"{message}; nothing was written"


def _linked_folder(out_dir: Path, target: Path) -> Path | None:
    """The first folder between ``out_dir`` and ``target`` that is a link (writing
    through it would put the file outside the output folder), or None."""
    for parent in reversed(target.relative_to(out_dir).parents):
        if parent != Path(".") and (out_dir / parent).is_symlink():
            return parent
    return None


def _one(in_dir: Path, rel: Path, target: Path, out_dir: Path, method: str,
         settings: DetectSettings, key: str, report: dict[str, Any],
         replace: bool = False, keep_failed: bool = False) -> None:
    started = time.perf_counter()
    linked = _linked_folder(out_dir, target)
    if linked is not None:
        report["errors"].append({"file": rel.as_posix(), "error": (
            f"{rel.as_posix()}: not written: {linked.as_posix()} in the output folder is a "
            "link to a folder elsewhere, and Winnow writes only inside the output folder")})
        return
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
    natural = target.relative_to(out_dir)
    spare = unverified_name(natural)
    if not result.ok:
        # an earlier version's output of this photo and settings, never verified: the
        # same failure, so it goes (only when the marker proves it is Winnow's)
        if replace:
            _remove_own(out_dir, natural, rel, report, "an earlier run's output of "
                        f"{rel.as_posix()} that did not pass verification",
                        data=data, settings=key)
        if not keep_failed:
            _remove_spare(out_dir, natural, rel, report,
                          "removed as this run did not pass --keep-failed")
            report["failed"].append({
                "file": rel.as_posix(), "why": result.why(), "output": None,
                "inside": result.inside, "outside": result.outside,
                "text_inside": result.text_inside,
                # an earlier output of other settings (--overwrite) stays as it was
                "earlier_output_left": str(target) if os.path.lexists(target) else None})
            return
        # replaced only if Winnow wrote it for this photo (marker), ADR 186
        target, replace = out_dir / spare, _recorded_for(out_dir, spare, rel)
    try:
        if not replace and os.path.lexists(target):  # appeared since the check
            raise FileExistsError(target)
        export_bytes(target, out, root=out_dir,
                     record={"source": rel.as_posix(), "settings": key,
                             **_source_proof(data), "verified": result.ok})
    except FileExistsError:  # another run into the same folder, or the user, meanwhile
        if result.ok and _written_meanwhile(out_dir, target, rel, key, data):
            report["kept"].append({"file": rel.as_posix(), "output": str(target)})
        else:
            report["errors"].append({"file": rel.as_posix(), "error": (
                f"{rel.as_posix()}: not written: {target.name} is in the output folder "
                "(another run, or someone else, put it there), and Winnow never replaces "
                "a file it cannot prove it wrote for this photo with these settings")})
        return
    if result.ok:
        _remove_spare(out_dir, natural, rel, report, "superseded by its verified output")
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
