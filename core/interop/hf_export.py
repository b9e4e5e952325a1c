"""Export a benchmark, or the released photos, as a Hugging Face dataset folder.

``DIR/data/<split>-00000-of-0000N.parquet`` shards with the images embedded as
``datasets.Image`` features, ``DIR/README.md`` (the dataset card) and Winnow's ownership
marker (ADR 005).  ``datasets.load_dataset(DIR)`` reads it offline.  The folder is an
:class:`~core.export_folder.ExportFolder`: built hidden beside ``DIR`` and renamed into
place, so a cancelled or failed export leaves nothing that looks complete, and
``overwrite`` replaces only an earlier export of Winnow's.  Columns and choices: ADR 101.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from core.curate.detail import ImageUnavailable, check_exportable, image_bytes, load_sample
from core.curate.export import ExportReport, export_ids, exported_image, normalise_splits
from core.export_folder import ExportFolder
from core.interop.dataset_card import Card, hub_licence, render
from core.interop.deps import require_pyarrow
from core.interop.features import arrow_schema, seq, struct
from core.interop.shards import SHARD_ROWS, ShardWriter
from core.interop.snapshot import read_snapshot
from core.jobs import JobState
from core.selection import SampleFilter
from core.store.project import Project

#: HF split names cannot hold hyphens; the ``split`` column keeps Winnow's names.
SPLIT_NAMES = {"text-to-image": "text_to_image", "image-to-image": "image_to_image"}
_BOX = seq("int32")
#: one sample of an export: (id, HF split, row, image bytes) or (id, "", None, reason)
_Row = tuple[str, str, dict[str, Any], int] | tuple[str, str, None, str]
BENCHMARK_COLUMNS: list[tuple[str, Any, str]] = [
    ("id", "string", "sample id in the project"),
    ("prompt", "string", "the curated prompt"),
    ("original_prompt", "string", "the prompt as first extracted (kept forever)"),
    ("prompt_modified", "bool", "prompt differs from original_prompt"),
    ("quality", "string", "Benchmark, Analysis or Trash (ECHO), or null"),
    ("split", "string", "text-to-image or image-to-image"),
    ("input_images", seq("image"), "the true input images (screenshot boxes applied as crops)"),
    ("output_images", seq("image"), "the true output images (screenshot boxes applied as crops)"),
    ("is_screenshot", "bool", "the images were cut out of a screenshot"),
    ("input_bboxs", seq(_BOX), "per input image: [x, y, w, h] of its crop in the screenshot, "
                               "null for a whole image"),
    ("output_bboxs", seq(_BOX), "per output image: as input_bboxs"),
    ("screenshots", seq("image"), "the uncropped screenshots the boxes refer to"),
    ("input_bbox_screenshot", seq("int32"), "per input image: index into screenshots of the "
                                            "image its box crops, null for a whole image"),
    ("output_bbox_screenshot", seq("int32"), "per output image: as input_bbox_screenshot"),
    ("tags", seq("string"), "curator tags"),
    ("notes", "string", "curator notes"),
    ("community_feedback", seq(struct(("post_id", "string"), ("text", "string"))),
     "replies that judged the result (ECHO)"),
    ("post_id", "string", "the source post, when the project keeps it"),
    ("text", "string", "the source post's text"),
    ("author", "string", "the source post's author"),
    ("timestamp", "string", "the source post's time (ISO-8601)"),
    ("url", "string", "the source post's address"),
    ("keyword", "string", "the search keyword that found the post"),
    ("engagement", "string", "the post's engagement counts as a JSON object"),
]
PHOTO_COLUMNS: list[tuple[str, Any, str]] = [
    ("id", "int64", "photo id in the project"),
    ("image", "image", "the released photo: anonymized, without metadata"),
    ("file_name", "string", "the released file's name: photo-<number>-<category>.<ext>"),
    ("caption", "string", "caption"),
    ("category", "string", "Text, Clock, Vehicle, Architecture, Art, Animal or Nature (TECCI)"),
    ("credit", "string", "the photographer's credit line"),
    ("license", "string", "the photo's licence"),
    ("width", "int32", "pixels"),
    ("height", "int32", "pixels"),
    ("released_at", "string", "when it was released (ISO-8601)"),
]


def export_benchmark_hf(project: Project, out_dir: str | Path, *,
                        qualities: tuple[str, ...] = ("Benchmark",),
                        splits: tuple[str, ...] = (), selection: SampleFilter | None = None,
                        licence: str = "unknown", state: JobState | None = None,
                        shard_rows: int = SHARD_ROWS, overwrite: bool = False) -> ExportReport:
    """Write the benchmark as a Hugging Face dataset folder (see the module docstring).

    Samples and their order are those of the JSON Lines export (``export_ids``); a
    sample whose images cannot be read is left out and named in ``skipped``.
    """
    require_pyarrow("The Hugging Face dataset export")
    state = state or JobState(title="Export Hugging Face dataset")
    splits = normalise_splits(splits)
    with read_snapshot(project):  # the ids and every row from one state (ADR 187)
        ids = export_ids(project, qualities, splits, selection)
        return _write_dataset(out_dir, "hf-benchmark", BENCHMARK_COLUMNS,
                              _benchmark_card(project, qualities, licence), len(ids),
                              _benchmark_rows(project, ids), state, shard_rows,
                              count_images=_count_images,
                              empty="no sample matches the selection", overwrite=overwrite)


def _benchmark_card(project: Project, qualities: tuple[str, ...], licence: str) -> Card:
    """The dataset card of a benchmark export (its splits are filled in when written)."""
    return Card(title=f"{project.path.stem} benchmark",
                summary=f"Samples of the {project.path.stem} benchmark curated with Winnow "
                        f"(quality: {', '.join(qualities) or 'any'}).",
                columns=BENCHMARK_COLUMNS, splits={}, licence=hub_licence(licence),
                task_categories=["text-to-image", "image-to-image"],
                tags=["winnow", "benchmark", "image-generation"],
                licence_note="Posts and images come from their authors; check their terms "
                             "before publishing.")


def _benchmark_rows(project: Project, ids: list[str]) -> Iterator[_Row]:
    """``(id, HF split, row, image bytes)`` per sample, or ``(id, "", None, reason)``."""
    for sid in ids:
        try:
            split, row, nbytes = _benchmark_row(project, sid)
        except ImageUnavailable as exc:
            yield sid, "", None, str(exc)
        else:
            yield sid, split, row, nbytes


def export_photos_hf(project: Project, out_dir: str | Path, *,
                     state: JobState | None = None, shard_rows: int = SHARD_ROWS,
                     overwrite: bool = False) -> ExportReport:
    """Write the released photos (status released) as a Hugging Face dataset folder, each
    named ``photo-<number>-<category>`` as released (ADR 164), never by its original."""
    from types import SimpleNamespace

    from core.imaging.release import output_format, release_stem

    require_pyarrow("The Hugging Face dataset export")
    state = state or JobState(title="Export released photos")
    photos = project.conn.execute(
        "SELECT id, file_name, caption, category, credit, licence, released_sha256, "
        "released_path, released_at FROM photos WHERE status = 'released' ORDER BY id"
    ).fetchall()
    licences = sorted({row[5] for row in photos})
    card = Card(title=f"{project.path.stem} photos",
                summary=f"Contributed photos of {project.path.stem}, anonymized and released "
                        "with Winnow (faces and licence plates hidden, metadata removed).",
                columns=PHOTO_COLUMNS, splits={},
                licence=hub_licence(licences[0]) if len(licences) == 1 else "other",
                licence_note="Each row's `license` column gives the photo's own licence; "
                             "credit the photographer as in `credit`.",
                tags=["winnow", "photos", "anonymized"])

    def rows() -> Iterator[tuple[str, str, dict[str, Any] | None, Any]]:
        for pid, name, caption, category, credit, lic, sha, path, at in photos:
            # never the original name, which can name the person (ADR 164); also for a
            # photo released before the names changed
            label = release_stem(SimpleNamespace(id=pid, category=category)) + (
                Path(path).suffix if path else "." + output_format(name))
            try:
                data, width, height = _released(project, sha, label)
            except ImageUnavailable as exc:
                yield label, "", None, str(exc)
                continue
            yield label, "train", {
                "id": pid, "image": {"bytes": data, "path": label}, "file_name": label,
                "caption": caption, "category": category, "credit": credit, "license": lic,
                "width": width, "height": height, "released_at": at}, len(data)

    return _write_dataset(out_dir, "hf-photos", PHOTO_COLUMNS, card, len(photos), rows(),
                          state, shard_rows, count_images=lambda row: 1, item="photo",
                          empty="no photo has been released yet", overwrite=overwrite)


def _write_dataset(out_dir: str | Path, kind: str, columns: list[tuple[str, Any, str]],
                   card: Card, total: int, rows: Iterator[Any], state: JobState,
                   shard_rows: int, count_images: Callable[[dict[str, Any]], int],
                   empty: str, item: str = "sample", overwrite: bool = False) -> ExportReport:
    out = Path(out_dir)
    report = ExportReport(out=str(out))
    with ExportFolder(out, kind, overwrite=overwrite) as folder:
        folder.mkdir("data")
        shards = ShardWriter(folder.tmp, arrow_schema([(n, k) for n, k, _ in columns]),
                             shard_rows=shard_rows, target=out)
        writer: ShardWriter | None = shards  # None once finished: nothing left to abort
        try:
            state.set_total(max(1, total))
            state.set_status(f"Exporting {total} {item}(s)")
            for k, (name, split, row, extra) in enumerate(rows):
                state.check()
                if row is None:
                    report.skipped.append({item: name, "reason": extra})
                else:
                    shards.add(split, row, extra)
                    report.exported += 1
                    report.images += count_images(row)
                state.set_progress(k + 1)
            state.check()
            if not report.exported:
                why = "; ".join(f"{s[item]}: {s['reason']}" for s in report.skipped[:3])
                raise ValueError(f"nothing to export to {out}: no {item} could be written"
                                 + f" ({why or empty})")
            state.set_status("Writing the dataset card")
            card.splits = shards.finish()
            writer = None
        finally:
            if writer is not None:
                writer.abort()
        for split in card.splits.values():
            for rel in split.files:
                folder.adopt(rel)
        folder.write_text("README.md", render(card))
        folder.publish({"rows": {s.name: s.num_examples for s in card.splits.values()}})
    return report


def _count_images(row: dict[str, Any]) -> int:
    return len(row["input_images"]) + len(row["output_images"])


def _benchmark_row(project: Project, sid: str) -> tuple[str, dict[str, Any], int]:
    """(HF split, row, image bytes) of one sample; ImageUnavailable when an image is not."""
    d = load_sample(project, sid)
    check_exportable(d)
    images: dict[str, list[dict[str, Any]]] = {"input": [], "output": []}
    boxes: dict[str, list[list[int] | None]] = {"input": [], "output": []}
    shot_of: dict[str, list[int | None]] = {"input": [], "output": []}
    shots: list[str] = []
    shot_data: list[dict[str, Any]] = []
    nbytes = 0
    for role, ref, sha, bx, by, bw, bh, err in project.conn.execute(
            "SELECT role, ref, sha256, bbox_x, bbox_y, bbox_w, bbox_h, error FROM sample_images "
            "WHERE sample_id = ? AND role IN ('input', 'output') ORDER BY role, position, id",
            (sid,)).fetchall():
        if not sha:
            raise ImageUnavailable(f"{role} image {ref or '?'} was never fetched"
                                   + (f" ({err})" if err else ""))
        box = None if bx is None else (int(bx), int(by), int(bw), int(bh))
        data, ext = exported_image(project, sha, box, ref or sha[:12])
        k = len(images[role])
        images[role].append({"bytes": data, "path": f"{role}_{k}.{ext}"})
        boxes[role].append(None if box is None else list(box))
        nbytes += len(data)
        if box is None:
            shot_of[role].append(None)
            continue
        if sha not in shots:
            whole, whole_ext = exported_image(project, sha, None, ref or sha[:12])
            shot_data.append({"bytes": whole, "path": f"screenshot_{len(shots)}.{whole_ext}"})
            shots.append(sha)
            nbytes += len(whole)
        shot_of[role].append(shots.index(sha))
    split = d.split or ("image-to-image" if images["input"] else "text-to-image")
    post = d.post
    row = {
        "id": d.id, "prompt": d.prompt, "original_prompt": d.original_prompt,
        "prompt_modified": d.prompt_modified, "quality": d.quality, "split": split,
        "input_images": images["input"], "output_images": images["output"],
        "is_screenshot": d.is_screenshot,
        "input_bboxs": boxes["input"], "output_bboxs": boxes["output"],
        "screenshots": shot_data,
        "input_bbox_screenshot": shot_of["input"], "output_bbox_screenshot": shot_of["output"],
        "tags": d.tags, "notes": d.notes,
        "community_feedback": [{"post_id": p, "text": t} for p, t in d.feedback],
        "post_id": d.post_id,
        "text": post.text if post else None, "author": post.author if post else None,
        "timestamp": post.timestamp if post else None, "url": post.url if post else None,
        "keyword": post.keyword if post else None,
        "engagement": json.dumps(post.engagement, ensure_ascii=False)
        if post and post.engagement else None,
    }
    return SPLIT_NAMES[split], row, nbytes


def _released(project: Project, sha: str | None, name: str) -> tuple[bytes, int, int]:
    from core.imaging import decode

    if not sha:
        raise ImageUnavailable(f"{name}: the released file is not in the project")
    try:
        data = image_bytes(project, sha)
    except ImageUnavailable as exc:
        raise ImageUnavailable(f"{name}: {exc}") from exc
    img = None
    try:
        with decode.open_image(data, name, max_pixels=decode.PHOTO_MAX_PIXELS) as img:
            width, height = img.size
            img.verify()
    except (decode.DecodeError, OSError, SyntaxError, ValueError) as exc:
        reason = decode.decode_failure(exc, None, img, data).reason
        raise ImageUnavailable(f"{name}: the released file cannot be decoded ({reason})"
                               ) from exc
    return data, width, height
