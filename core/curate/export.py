"""Export the curated benchmark: ``DIR/samples.jsonl`` plus ``DIR/images/``.

One JSON object per line with ECHO's Table D.1 field names (raw post fields and
post-processed sample fields), ``prompt`` being the curated prompt and
``original_prompt`` the extracted one.  Image paths are relative to ``DIR``; screenshot
boxes are applied as crops.  Everything is read in one read transaction, so the export
shows one state of the project while others commit (ADR 187).  The folder is built in a
temporary sibling and renamed into place (:class:`core.export_files.ExportFolder`), so
``DIR`` is either the complete old export or the complete new one; ``overwrite``
replaces only a folder Winnow wrote (its marker lists everything in it).  A sample whose images cannot be read or decoded is
left out and named in the report; a file that cannot be *written* (a full disk) stops
the export with :class:`core.files.WriteError` and nothing is published.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.curate.detail import ImageUnavailable, check_exportable, image_bytes, load_sample
from core.export_folder import ExportFolder
from core.interop.snapshot import read_snapshot
from core.jobs import JobState
from core.selection import SampleFilter
from core.store.project import Project

SPLIT_ALIASES = {"t2i": "text-to-image", "i2i": "image-to-image",
                 "text-to-image": "text-to-image", "image-to-image": "image-to-image"}


@dataclass
class ExportReport:
    """What an export wrote and what it left out (and why)."""

    out: str = ""
    exported: int = 0
    images: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Machine-readable report (the CLI prints it)."""
        return {"out": self.out, "exported": self.exported, "images": self.images,
                "skipped": self.skipped}


def normalise_splits(splits: list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """Accept ``t2i``/``i2i`` and the full split names; ValueError for anything else."""
    out = []
    for s in splits or ():
        if s not in SPLIT_ALIASES:
            raise ValueError(f"unknown split {s!r}; use text-to-image (t2i) or "
                             "image-to-image (i2i)")
        out.append(SPLIT_ALIASES[s])
    return tuple(dict.fromkeys(out))


def export_ids(project: Project, qualities: tuple[str, ...], splits: tuple[str, ...],
               selection: SampleFilter | None = None) -> list[str]:
    """Sample ids an export with these options writes, in id order."""
    where, params = (selection or SampleFilter(quality=qualities)).where()
    clauses = [where]
    if selection is not None and qualities:
        clauses.append(f"s.quality IN ({','.join('?' * len(qualities))})")
        params = [*params, *qualities]
    if splits:
        clauses.append(f"s.split IN ({','.join('?' * len(splits))})")
        params = [*params, *splits]
    sql = f"SELECT s.id FROM samples s WHERE {' AND '.join(clauses)} ORDER BY s.id"
    return [r[0] for r in project.conn.execute(sql, params)]


def export_benchmark(project: Project, out_dir: str | Path, *,
                     qualities: tuple[str, ...] = ("Benchmark",),
                     splits: tuple[str, ...] = (), selection: SampleFilter | None = None,
                     overwrite: bool = False, state: JobState | None = None) -> ExportReport:
    """Write the benchmark to ``out_dir`` atomically; see the module docstring."""
    state = state or JobState(title="Export benchmark")
    splits = normalise_splits(splits)
    with read_snapshot(project):  # the ids and every sample from one state (ADR 187)
        ids = export_ids(project, qualities, splits, selection)
        return _write_benchmark(project, Path(out_dir), ids, overwrite, state)


def _write_benchmark(project: Project, out: Path, ids: list[str], overwrite: bool,
                     state: JobState) -> ExportReport:
    """Write the samples ``ids`` into the export folder ``out``."""
    report = ExportReport(out=str(out))
    with ExportFolder(out, "benchmark export", overwrite=overwrite) as folder:
        folder.mkdir("images")
        state.set_total(max(1, len(ids)))
        state.set_status(f"Exporting {len(ids)} sample(s)")
        used: set[str] = set()
        with folder.open("samples.jsonl", "w", encoding="utf-8") as fh:
            for k, sid in enumerate(ids):
                state.check()
                try:
                    line, images = _export_one(project, sid, used)
                except ImageUnavailable as exc:
                    report.skipped.append({"sample": sid, "reason": str(exc)})
                else:
                    for rel, data in images:
                        _write_image(folder, rel, data)
                    fh.write(json.dumps(line, ensure_ascii=False) + "\n")
                    report.exported += 1
                    report.images += len(images)
                state.set_progress(k + 1)
        folder.publish(report.to_json())
    return report


def _write_image(folder: ExportFolder, rel: str, data: bytes) -> None:
    folder.write_bytes(rel, data)


def _safe(sample_id: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", sample_id).strip("._") or "sample"
    return name[:120]


def _folder_name(sid: str, used: set[str]) -> str:
    """A folder name for sample ``sid``, distinct from ``used`` even where case is not."""
    name = _safe(sid)
    if name.casefold() in used:  # two ids that sanitise alike (or differ only in case)
        name = f"{name}-{hashlib.sha1(sid.encode('utf-8')).hexdigest()[:10]}"
    used.add(name.casefold())
    return name


def _export_one(project: Project, sid: str, used: set[str]
                ) -> tuple[dict[str, Any], list[tuple[str, bytes]]]:
    """The sample's JSON line and its image files ``(relative path, bytes)``, all decoded
    before anything is written (ImageUnavailable leaves nothing behind)."""
    d = load_sample(project, sid)
    check_exportable(d)
    rows = project.conn.execute(
        "SELECT role, position, ref, sha256, bbox_x, bbox_y, bbox_w, bbox_h, error "
        "FROM sample_images WHERE sample_id = ? AND role IN ('input', 'output') "
        "ORDER BY role, position, id", (sid,)).fetchall()
    paths: dict[str, list[str]] = {"input": [], "output": []}
    boxes: dict[str, list[Any]] = {"input": [], "output": []}
    images: list[tuple[str, bytes]] = []
    folder: str | None = None
    for role, _pos, ref, sha, bx, by, bw, bh, err in rows:
        if not sha:
            raise ImageUnavailable(f"{role} image {ref or '?'} was never fetched"
                                   + (f" ({err})" if err else ""))
        k = len(paths[role])
        box = None if bx is None else (int(bx), int(by), int(bw), int(bh))
        data, ext = exported_image(project, sha, box, ref or sha[:12])
        folder = folder or _folder_name(sid, used)
        rel = f"images/{folder}/{role}_{k}.{ext}"
        images.append((rel, data))
        paths[role].append(rel)
        boxes[role].append(None if box is None else list(box))
    post = d.post
    line: dict[str, Any] = {
        "id": d.id,
        "post_id": d.post_id,
        "prompt": d.prompt,
        "original_prompt": d.original_prompt,
        "prompt_modified": d.prompt_modified,
        "quality": d.quality,
        "split": d.split,
        "review_status": d.review_status,
        "community_feedback": [{"post_id": p, "text": t} for p, t in d.feedback],
        "input_images": paths["input"],
        "output_images": paths["output"],
        "is_screenshot": d.is_screenshot,
        "input_bboxs": boxes["input"],
        "output_bboxs": boxes["output"],
        "tags": d.tags,
        "notes": d.notes,
        "text": post.text if post else None,
        "timestamp": post.timestamp if post else None,
        "keyword": post.keyword if post else None,
        "url": post.url if post else None,
        "author": post.author if post else None,
        "engagement": post.engagement if post else None,
        "image_urls": [{"url": u, "alt": a or ""} for u, a in project.conn.execute(
            "SELECT url, alt FROM post_images WHERE post_id = ? ORDER BY position",
            (d.post_id,))] if post else [],
        "replies_above": [_brief(p) for p in d.ancestors],
        "replies_below": [{**_brief(p), "depth": depth, "parent_id": p.parent_id}
                          for depth, p in d.replies],
        "derived_from": d.derived_from,
    }
    return line, images


def _brief(p: Any) -> dict[str, Any]:
    return {"post_id": p.id, "author": p.author, "timestamp": p.timestamp, "text": p.text}


def exported_image(project: Project, sha: str, box: tuple[int, int, int, int] | None,
                   name: str) -> tuple[bytes, str]:
    """(bytes, extension) an export writes for a stored image: the file byte for byte, or
    its crop by ``box`` as PNG.  The box is in the stored pixels (as Curate keeps it); the
    crop is turned upright by the file's EXIF orientation, since the PNG carries none, so
    it shows what the curator and the rating file show.  A mode PNG cannot hold (CMYK) is
    converted to sRGB.  :class:`ImageUnavailable` names ``name`` when it cannot be read or
    decoded (a write error is not a decode error: it propagates)."""
    from core.imaging import decode

    try:
        data = image_bytes(project, sha)
    except ImageUnavailable as exc:
        raise ImageUnavailable(f"{name}: {exc}") from exc
    img = None
    try:
        with decode.open_image(data, name, max_pixels=decode.PHOTO_MAX_PIXELS) as img:
            if box is None:
                img.verify()
                return data, (img.format or "png").lower().replace("jpeg", "jpg")
            crop = crop_box(img, box, name)
            transpose = decode.orientation_transpose(
                decode.read_header(data, name, max_pixels=decode.PHOTO_MAX_PIXELS).orientation)
            if transpose is not None:
                crop = crop.transpose(transpose)
            if crop.mode not in _PNG_MODES:
                crop.info["icc_profile"] = img.info.get("icc_profile")
                crop = decode.to_srgb(crop)
            buffer = io.BytesIO()
            crop.save(buffer, "PNG")
            return buffer.getvalue(), "png"
    except (decode.DecodeError, OSError, SyntaxError, ValueError) as exc:
        reason = decode.decode_failure(exc, None, img, data).reason
        raise ImageUnavailable(f"image {name} cannot be decoded ({reason})") from exc


#: the modes Pillow writes as PNG unchanged
_PNG_MODES = frozenset({"1", "L", "LA", "P", "RGB", "RGBA", "I", "I;16"})


def crop_box(img: Any, box: tuple[int, int, int, int], name: str = "image") -> Any:
    """The crop of PIL image ``img`` by ``(x, y, w, h)`` (clipped to the image)."""
    x, y, w, h = box
    left, top = max(0, x), max(0, y)
    right, bottom = min(img.width, x + w), min(img.height, y + h)
    if right <= left or bottom <= top:
        raise ImageUnavailable(f"box {list(box)} lies outside {name} "
                               f"({img.width}×{img.height})")
    img.load()
    return img.crop((left, top, right, bottom))
