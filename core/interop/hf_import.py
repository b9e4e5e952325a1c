"""Import a Hugging Face–style dataset as samples, so a published benchmark can be
re-curated (ADR 102).

Rows are read a few at a time (:mod:`core.interop.hf_read`) and turned into sample
objects of the JSON Lines format (ADR 001): their images are written to a hidden
working folder beside the project and the chunk is handed to the project's own importer
(:func:`core.ingest.importer.import_jsonl`), so the usual record validation, decode
checks, asset store, upserts, curator-edit protection and audit rows apply unchanged.
A chunk holds at most ``CHUNK_ROWS`` rows or ``CHUNK_BYTES`` of images, so memory and
scratch space stay bounded.  A bad row is reported with its split and row number (as
``datasets`` numbers it, from 0) and every valid row is imported.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from core.files import WriteError
from core.ingest.records import RecordError, loads, type_name
from core.interop import hf_read
from core.interop.deps import require_pyarrow
from core.interop.hf_chunk import Chunk, HfImportReport, work_folder
from core.interop.hf_ids import GeneratedIds, identity
from core.jobs import JobState
from core.store.project import Project

CHUNK_ROWS = 256
CHUNK_BYTES = 32 * 2**20
#: canonical field -> column names tried in order (``columns=`` overrides)
ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id", "sample_id"),
    "prompt": ("prompt", "instruction", "edit_instruction", "caption", "text"),
    "input_images": ("input_images", "input_image", "source_images", "source_image",
                     "original_image", "reference_image"),
    "output_images": ("output_images", "output_image", "edited_image", "target_image",
                      "images", "image"),
}
PLAIN = ("original_prompt", "quality", "split", "tags", "notes", "is_screenshot",
         "community_feedback", "post_id", "text", "author", "timestamp", "url", "keyword",
         "engagement", "input_bboxs", "output_bboxs", "screenshots", "input_bbox_screenshot",
         "output_bbox_screenshot")
_SPLITS = {"text_to_image": "text-to-image", "image_to_image": "image-to-image",
           "t2i": "text-to-image", "i2i": "image-to-image"}


class RowError(ValueError):
    """A row cannot become a sample; the message names the column."""


@dataclass
class _Columns:
    """Which column feeds which field, for one data file."""

    names: dict[str, str]          # field -> column
    images: dict[str, str]         # column -> "one" | "list"


def check_hf_source(source: str | Path, columns: dict[str, str] | None = None) -> None:
    """Raise the error :func:`import_hf` would raise before importing a row (no dataset
    files, none readable): call it before creating a project for the import."""
    _plans(Path(source), columns, HfImportReport(source=str(source)))


def _plans(source: Path, columns: dict[str, str] | None, report: HfImportReport
           ) -> list[tuple[Any, _Columns | None, int]]:
    """``(data file, columns, rows)`` for every readable file; the others go in ``report``;
    ValueError when no file can be imported.  A file met again (listed twice, or a link
    to a sibling) has no columns: its rows are read once but still numbered, as
    ``datasets`` numbers them (ADR 200)."""
    require_pyarrow("Importing a Hugging Face dataset")
    plans: list[tuple[Any, _Columns | None, int]] = []
    read: dict[Path, tuple[str, int]] = {}  # file -> how it was first named, its rows
    for data in hf_read.discover(source):  # a file that cannot be read is reported
        real = hf_read.real(data.path)
        if real in read:
            first, rows = read[real]
            again = "listed twice" if first == data.rel else f"the same file as {first}"
            report.notes.append({"split": data.split, "row": None, "file": data.rel,
                                 "note": f"{again}; its rows are read once"})
            plans.append((data, None, rows))
            continue
        read[real] = (data.rel, 0)
        try:
            hf_read.check_inside(data, source)
            plans.append((data, _columns(data, columns or {}), hf_read.num_rows(data)))
            read[real] = (data.rel, plans[-1][2])
        except ValueError as exc:
            report.row_error({"split": data.split, "row": None, "file": data.rel}, str(exc))
    if not any(cols for _, cols, _ in plans):  # each file named once (ADR 195)
        raise ValueError(f"{source}: nothing can be imported: " + ("; ".join(
            e["error"] if e["error"].startswith(f"{e['file']}:") else
            f"{e['file']}: {e['error']}" for e in report.errors[:3])
            or "it lists no data files"))
    return plans


def import_hf(project: Project, source: str | Path, *, columns: dict[str, str] | None = None,
              state: JobState | None = None, chunk_rows: int = CHUNK_ROWS,
              chunk_bytes: int = CHUNK_BYTES) -> HfImportReport:
    """Import the dataset at ``source`` (folder or file) into ``project``."""
    source = Path(source)
    state = state or JobState(title=f"Import {source.name}")
    report = HfImportReport(source=str(source))
    plans = _plans(source, columns, report)
    state.set_total(max(1, sum(n for _, cols, n in plans if cols)))
    name = dataset_name(source)
    ids = GeneratedIds(project, name, identity(source, plans))
    work = work_folder(project)
    chunk = Chunk(project, work, name, report, state)
    where: dict[str, Any] = {}
    try:
        row_base: dict[str, int] = {}
        for data, cols, n_rows in plans:
            start, count = row_base.get(data.split, 0), 0
            if cols is None:  # read already: its rows keep their numbers
                row_base[data.split] = start + n_rows
                continue
            try:
                for row in hf_read.iter_rows(data):
                    state.check()
                    row_no = start + count
                    where = {"split": data.split, "row": row_no, "file": data.rel}
                    count += 1
                    report.rows += 1
                    try:
                        if isinstance(row, hf_read.BadRow):
                            raise RowError(row.error)
                        obj, images = _sample(row, cols, data, ids, row_no, source)
                    except RowError as exc:
                        report.row_error(where, str(exc))
                    else:
                        chunk.offer(where, obj, images)  # one id, one row
                    if chunk.full(chunk_rows, chunk_bytes):
                        chunk.flush()
                    state.set_progress(report.rows)
            except hf_read.ReadError as exc:  # damaged part way: what was read stays in
                report.row_error({"split": data.split, "row": start + count, "file": data.rel},
                                 str(exc))
            row_base[data.split] = start + max(count, n_rows)
        chunk.finish()
    except WriteError as exc:  # a full disk under the scratch folder the user never sees
        raise _stopped(project, exc, where, report) from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report


def _stopped(project: Project, exc: WriteError, where: dict[str, Any],
             report: HfImportReport) -> WriteError:
    """A write error of the import's scratch folder, named as the user knows it: the
    project and the row reached, and that the rows imported before are kept (ADR 208)."""
    cause = OSError(exc.errno, exc.strerror or str(exc))
    row = f" at {where['file']} ({where['split']} row {where['row']})" if where else ""
    kept = (f"{report.imported} row(s) imported before are kept" if report.imported
            else "nothing was imported")
    return WriteError(project.path, cause, f"the import stopped{row}; {kept}: free some "
                      "space and import again")


def dataset_name(source: Path) -> str:
    """A safe one-component name for the dataset at ``source`` (the working folder of its
    images and the first choice of prefix of ids it makes, ADR 200): from the resolved path, so ``..`` or ``.``
    name the folder they mean (ADR 187), never a path step."""
    try:
        real = source.resolve()
    except (OSError, RuntimeError):  # a symlink loop: the name as given is still a name
        real = source
    raw = real.stem if real.is_file() else real.name
    return re.sub(r"[^A-Za-z0-9._-]+", "_", raw).strip(".") or "dataset"


def _columns(data: hf_read.DataFile, overrides: dict[str, str]) -> _Columns:
    """Which column feeds which field; ``overrides`` name them (``""``: the field is read
    from no column, ADR 200)."""
    schema = hf_read.schema(data)
    present = {f.name: f.type for f in schema}
    names: dict[str, str] = {}
    for key, column in overrides.items():
        if key not in ALIASES and key not in PLAIN:
            raise ValueError(f"unknown field {key!r} in a column mapping (fields: "
                             f"{', '.join([*ALIASES, *PLAIN])})")
        if column and column not in present:
            raise ValueError(f"{data.rel}: no column {column!r} (columns: "
                             f"{', '.join(present)})")
        names[key] = column
    for key, candidates in ALIASES.items():
        used = set(names.values())
        found = [c for c in candidates if c in present and c not in used]
        if key.endswith("_images"):  # an image column before a text one of a listed name
            found.sort(key=lambda c: hf_read.image_kind(present[c]) is None)
        if key not in names and found:
            names[key] = found[0]
    for key in PLAIN:
        if key not in names and key in present and key not in names.values():
            names[key] = key
    names = {key: column for key, column in names.items() if column}
    if "prompt" not in names:
        taken = [f"column {c!r} is read as {k} (--column {k}={c})" for k, c in names.items()
                 if c in ALIASES["prompt"]]  # the user gave it to another field
        raise ValueError(f"{data.rel}: no prompt column (looked for "
                         f"{', '.join(ALIASES['prompt'])}; columns: {', '.join(present)}"
                         f"{''.join(f'; {t}' for t in taken)}); "
                         "name one with --column prompt=NAME")
    images: dict[str, str] = {}
    for key in ("input_images", "output_images", "screenshots"):
        image_column = names.get(key)
        if image_column is None:
            continue
        kind = hf_read.image_kind(present[image_column])
        if kind is None:
            raise ValueError(
                f"{data.rel}: column {image_column!r} is read as {key} but holds no images "
                f"(its type is {present[image_column]}; an image column holds Image "
                f"cells, struct<bytes, path>): name the right one with --column "
                f"{key}=COLUMN, or read {key} from no column with --column {key}=")
        images[image_column] = kind
    return _Columns(names, images)


def _text(row: dict[str, Any], column: str | None, label: str) -> str | None:
    if column is None:
        return None
    value = row.get(column)
    if value is None:
        return None
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, str):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise RowError(f"'{column}' ({label}) is {value}, not a value that can be imported")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise RowError(f"'{column}' ({label}) must be text, got {type(value).__name__}")


def _image_list(row: dict[str, Any], column: str | None, cols: _Columns,
                source: Path) -> list[bytes]:
    if column is None or row.get(column) is None:
        return []
    cells = row[column] if cols.images[column] == "list" else [row[column]]
    out = []
    for k, cell in enumerate(cells):
        where = f"'{column}[{k}]'" if cols.images[column] == "list" else f"'{column}'"
        if not cell:
            raise RowError(f"{where} holds no image")
        if cell.get("bytes"):
            out.append(cell["bytes"])
            continue
        out.append(_external(cell.get("path"), where, source))
    return out


def _external(path: str | None, where: str, source: Path) -> bytes:
    """An image stored as a path only: read it if it lies inside the dataset folder."""
    root = (source if source.is_dir() else source.parent).resolve()
    if not path:
        raise RowError(f"{where} holds no image")
    try:
        target = (root / path).resolve()
        inside = root in target.parents and target.is_file()
    except (OSError, ValueError, RuntimeError):  # a NUL byte, a name too long, a symlink
        # loop (RuntimeError from Path.resolve): no file of ours either
        inside = False
    if not inside:
        shown = repr(path) if len(path) <= 120 else f"{path[:100]!r}… ({len(path):,} characters)"
        raise RowError(f"{where} is not embedded and {shown} is not a file inside "
                       f"{root.name}")
    from core.ingest.fetch import FetchSettings
    from core.ingest.images import ImageError, inspect_local_image

    try:
        inspect_local_image(target, max_bytes=FetchSettings().max_bytes, name=path)
        return target.read_bytes()
    except ImageError as exc:
        raise RowError(f"{where}: {exc}") from exc
    except OSError as exc:  # removed or unreadable since it was checked
        raise RowError(f"{where}: {path}: cannot read ({exc.strerror or exc})") from exc


def _boxes(row: dict[str, Any], cols: _Columns, role: str, n: int, per_image: bool
           ) -> list[Any]:
    """ADR 001 boxes; ``per_image`` (Winnow's layout, or any null entry) means entry k
    belongs to image k and null marks a whole image."""
    column = cols.names.get(f"{role}_bboxs")
    value = row.get(column) if column else None
    if not value:
        return []
    if not isinstance(value, list):
        raise RowError(f"'{column}' must be a list of [x, y, w, h] boxes")
    if per_image or any(b is None for b in value):
        if len(value) != n:
            raise RowError(f"'{column}' has {len(value)} entries for {n} images")
        return [{"image": k, "box": b} for k, b in enumerate(value) if b is not None]
    return value


def _sample(row: dict[str, Any], cols: _Columns, data: hf_read.DataFile, ids: GeneratedIds,
            index: int, source: Path) -> tuple[dict[str, Any], dict[str, list[bytes]]]:
    """The ADR 001 sample object of a row, and the image bytes its references name."""
    n = cols.names
    sid = _text(row, n.get("id"), "id") or ids.make(data.split, index)
    prompt = _text(row, n["prompt"], "prompt")
    if prompt is None:
        raise RowError(f"'{n['prompt']}' (the prompt) is empty")
    obj: dict[str, Any] = {"id": sid, "prompt": prompt}
    original = _text(row, n.get("original_prompt"), "original prompt")
    if original is not None:
        obj["original_prompt"] = original
    for key in ("quality", "notes"):
        value = _text(row, n.get(key), key)
        if value is not None:
            obj[key] = value
    split = _text(row, n.get("split"), "split") or _SPLITS.get(data.split)
    if split is not None:
        obj["split"] = _SPLITS.get(split, split)
    for key in ("tags", "community_feedback"):
        if n.get(key) and row.get(n[key]) is not None:
            obj[key] = row[n[key]]
    if n.get("is_screenshot") and row.get(n["is_screenshot"]) is not None:
        obj["is_screenshot"] = row[n["is_screenshot"]]
    images = {role: _image_list(row, n.get(role), cols, source)
              for role in ("input_images", "output_images", "screenshots")}
    shots = images.pop("screenshots")
    refs: dict[str, list[bytes]] = {}
    for role in ("input", "output"):
        own = images[f"{role}_images"]
        winnow_layout = f"{role}_bbox_screenshot" in n  # images are already crops
        boxes = _boxes(row, cols, role, len(own), winnow_layout)
        sources = list(own)
        if winnow_layout:
            picks = row.get(n[f"{role}_bbox_screenshot"])
            picks = [] if picks is None else picks
            if not isinstance(picks, list):
                raise RowError(f"'{n[f'{role}_bbox_screenshot']}' must be a list of "
                               "screenshot numbers")
            boxes = _onto_screenshots(boxes, picks, shots, sources, role)
        refs[f"{role}_images"] = sources
        if sources:
            obj[f"{role}_images"] = sources
        if boxes:
            obj[f"{role}_bboxs"] = boxes
    post = {key: _text(row, n.get(key), key) for key in
            ("post_id", "author", "timestamp", "url", "keyword")}
    post_text = None if n["prompt"] == n.get("text") else _text(row, n.get("text"), "text")
    if any(post.values()) or post_text:
        record: dict[str, Any] = {"text": post_text or ""}
        record.update({("id" if k == "post_id" else k): v for k, v in post.items() if v})
        engagement = _text(row, n.get("engagement"), "engagement")
        if engagement:
            record["engagement"] = _engagement(engagement, n["engagement"])
        obj["post"] = record
    for key in ("tags", "community_feedback", "is_screenshot", "input_bboxs", "output_bboxs"):
        if key in obj:  # passed on as read: bytes or a date would end the import in dumps
            _check_json(obj[key], n.get(key) or key)
    return obj, refs


def _engagement(text: str, column: str) -> dict[str, Any]:
    """The post's engagement counts: a JSON object, read as strictly as a JSON Lines
    line (NaN and Infinity are not JSON: the importer refused them without the column)."""
    try:
        value = loads(text)
    except json.JSONDecodeError as exc:
        raise RowError(f"'{column}' is not a JSON object ({exc.msg})") from exc
    except RecordError as exc:
        raise RowError(f"'{column}' (engagement): {exc}") from exc
    except RecursionError as exc:
        raise RowError(f"'{column}' is nested too deeply") from exc
    if not isinstance(value, dict):
        raise RowError(f"'{column}' must be a JSON object of counts such as "
                       f'{{"likes": 12}}, got {type_name(value)}')
    return value


def _check_json(value: Any, column: str) -> None:
    """RowError when ``value`` holds something JSON cannot (bytes, dates, decimals, NaN
    or an infinity)."""
    kinds: list[str] = []

    def refuse(item: Any) -> Any:
        kinds.append(type(item).__name__)
        raise TypeError(kinds[-1])

    try:
        json.dumps(value, default=refuse, allow_nan=False)
    except ValueError as exc:  # allow_nan=False: NaN, Infinity
        raise RowError(f"'{column}' holds a number that is NaN or infinite; only finite "
                       "numbers can be imported") from exc
    except (TypeError, RecursionError) as exc:
        raise RowError(f"'{column}' holds {kinds[0] if kinds else 'unusual'} values; only "
                       "text, numbers, true/false, lists and objects can be imported") from exc


def _onto_screenshots(boxes: list[Any], picks: list[Any], shots: list[bytes],
                      sources: list[bytes], role: str) -> list[Any]:
    """Point each cropped image back at its screenshot (so the box crops the screenshot,
    not the crop); a box without its screenshot only documents where a crop came from."""
    kept = []
    for b in boxes:
        k = b["image"] if isinstance(b, dict) else None
        if not isinstance(k, int) or not 0 <= k < len(picks):
            continue
        pick = picks[k]
        if pick is None:
            continue
        if not isinstance(pick, int) or not 0 <= pick < len(shots):
            raise RowError(f"'{role}_bbox_screenshot[{k}]' does not name one of the "
                           f"{len(shots)} screenshot(s)")
        sources[k] = shots[pick]
        kept.append(b)
    return kept
