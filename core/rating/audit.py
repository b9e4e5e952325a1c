"""Audit a rater file the way a curious rater would attack it (``winnow session audit``).

Without the project it checks what anyone holding the file can see: every image's
format, segments, metadata, trailing bytes and encoder settings (one for the whole
file), the sizes of the options of each task, leftovers in the SQLite file (free pages),
the tokens, and whether a ranking shows a prompt twice or another task shows the same
images under the same criterion (tells for gold).  With the
project (``--project``) it also verifies the MACs, looks for model names, sample ids and
the session's keys in the file's bytes, and asks whether anything the file shows of an
option image (container, size, byte length, place) predicts its model or marks it as
a gold copy better than chance.

*Findings* are leaks or damage (the command exits non-zero); *notes* are facts worth
knowing that leak nothing beyond the pixels a rater sees anyway (for example that byte
lengths follow the models because the models' pictures differ in detail).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from core.imaging.release import metadata_found
from core.imaging.segments import TRAILING, SegmentError, image_kind, jpeg_segments
from core.rating import integrity
from core.rating.returned import open_readonly, parse_json, read_returned
from core.rating.session_file import SessionFileError

_TOKEN = re.compile(r"[ot][0-9a-f]{12}")
#: JPEG segments the session encoder writes (ADR 057)
_ALLOWED = {"SOI", "APP0", "DQT", "SOF0", "DHT", "SOS", "EOI"}


@dataclass
class Audit:
    """What an audit found in one rater file."""

    path: str
    format_version: int
    images: int = 0
    tasks: int = 0
    findings: list[dict[str, str]] = field(default_factory=list)
    notes: list[dict[str, str]] = field(default_factory=list)

    def finding(self, check: str, message: str) -> None:
        self.findings.append({"check": check, "message": message})

    def note(self, check: str, message: str) -> None:
        self.notes.append({"check": check, "message": message})

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class _Image:
    kind: str | None
    size: tuple[int, int] | None
    length: int
    encoder: str   # hash of everything but the pixel data and the dimensions
    problems: tuple[str, ...]


def audit_file(path: str | Path, project: Any | None = None) -> Audit:
    """Audit the rater file at ``path`` (and against ``project`` when given)."""
    path = Path(path)
    found = read_returned(path)
    result = Audit(str(path), found.version, tasks=len(found.task_rows))
    with open_readonly(path) as conn:
        try:
            blobs = {str(sha): bytes(data) if isinstance(data, bytes) else b""
                     for sha, data in conn.execute("SELECT sha256, data FROM images")}
            exts = Counter(str(r[0]) for r in conn.execute("SELECT ext FROM images"))
            free = conn.execute("PRAGMA freelist_count").fetchone()[0]
            order = [str(r[0]) for r in conn.execute("SELECT sha256 FROM images "
                                                     "ORDER BY rowid")]
        except sqlite3.DatabaseError as exc:  # text that is not UTF-8, a damaged page
            raise SessionFileError(f"{path.name}: its tables were changed or damaged "
                                   f"({exc}); nothing read") from None
        meta_keys = set(found.meta)
    result.images = len(blobs)
    images = {sha: _inspect(data) for sha, data in blobs.items()}
    _check_file(result, found, free, meta_keys, exts)
    _check_images(result, blobs, images)
    _check_tasks(result, found, images, order)
    if project is not None:
        _check_with_project(result, project, found, path.read_bytes(), images)
    return result


def _inspect(data: bytes) -> _Image:
    kind = image_kind(data)
    problems = list(metadata_found(data)) if kind else ["not a JPEG or PNG"]
    size, parts = None, []
    if kind == "jpeg":
        try:
            for seg in jpeg_segments(data):
                if seg.kind == TRAILING:
                    continue
                if seg.kind not in _ALLOWED:
                    problems.append(f"{seg.kind} segment")
                if seg.kind.startswith("SOF") and len(seg.payload) >= 5:
                    size = (int.from_bytes(seg.payload[3:5], "big"),
                            int.from_bytes(seg.payload[1:3], "big"))
                    parts.append(seg.kind.encode() + seg.payload[:1] + seg.payload[5:])
                elif seg.kind != "SOS":
                    parts.append(seg.kind.encode() + seg.payload)
                else:
                    parts.append(b"SOS" + seg.payload)
        except SegmentError:
            pass  # metadata_found reported the damage
    elif kind == "png" and len(data) >= 24:
        size = (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big"))
        parts.append(b"PNG")
    encoder = hashlib.sha256(b"|".join(parts)).hexdigest()[:12]
    return _Image(kind, size, len(data), encoder, tuple(dict.fromkeys(problems)))


def _check_file(result: Audit, found: Any, free: int, meta_keys: set[str],
                exts: Counter[str]) -> None:
    if found.problems:
        result.finding("answers", "; ".join(found.problems))
    if not found.chained:
        result.finding("integrity", "no MACs: made by an earlier version of Winnow, edits "
                       "to it cannot be detected")
    if free:
        result.finding("sqlite", f"{free} free page(s) may still hold deleted data")
    known = {"format", "format_version", "session_uid", "session_name", "file_uid", "slot",
             "protocol", "settings", "created_at", "winnow_version", "tasks_mac"}
    if meta_keys - known:
        result.finding("metadata", "unexpected meta keys: "
                       + ", ".join(sorted(meta_keys - known))[:200])
    if len(exts) > 1:
        result.finding("format", "images are stored with several extensions: "
                       + ", ".join(f"{e} ({n})" for e, n in exts.most_common()))


def _check_images(result: Audit, blobs: dict[str, bytes], images: dict[str, _Image]) -> None:
    wrong = [sha for sha, data in blobs.items() if hashlib.sha256(data).hexdigest() != sha]
    if wrong:  # also what a merge refuses the file for
        result.finding("images", f"{len(wrong)} image(s) do not match their digest "
                       f"({', '.join(s[:12] for s in wrong[:5])})")
    kinds = Counter(i.kind or "unknown" for i in images.values())
    if len(kinds) > 1 or set(kinds) - {"jpeg"}:
        result.finding("format", "image formats: " + ", ".join(
            f"{k} ({n})" for k, n in kinds.most_common()) + " (Winnow writes JPEG only)")
    problems = Counter(p for i in images.values() for p in i.problems)
    for problem, n in problems.most_common():
        result.finding("metadata", f"{n} image(s) carry {problem}")
    encoders = Counter(i.encoder for i in images.values())
    if len(encoders) > 1:
        result.finding("encoder", f"{len(encoders)} different encoder settings (tables, "
                       "subsampling or progression) among the images; Winnow uses one")


def _check_tasks(result: Audit, found: Any, images: dict[str, _Image],
                 order: list[str]) -> None:
    used: list[str] = []
    uneven, bad_tokens = [], 0
    for task_id, _pos, _prompt, _crit, inputs, _options in found.task_rows:
        opts = found.options.get(str(task_id), ())
        sizes = {images[sha].size for _tok, sha in opts if sha in images}
        if len(sizes) > 1:
            uneven.append(str(task_id))
        bad_tokens += sum(not _TOKEN.fullmatch(t) for t in [str(task_id),
                                                            *(tok for tok, _ in opts)])
        shown = parse_json(inputs)
        used += [str(s) for s in shown] if isinstance(shown, list) else []
        used += [sha for _tok, sha in opts]
    if uneven:
        result.finding("size", f"{len(uneven)} task(s) show options of different sizes "
                       f"(e.g. {uneven[0]})")
    if bad_tokens:
        result.finding("tokens", f"{bad_tokens} task or option token(s) are not random ids")
    missing = sorted(set(used) - set(images))
    if missing:
        result.finding("images", f"{len(missing)} image(s) the tasks show are missing")
    unused = sorted(set(images) - set(used))
    if unused:
        result.finding("images", f"{len(unused)} image(s) are stored but shown in no task")
    first_use = list(dict.fromkeys(used))
    if [s for s in order if s in set(first_use)] != [s for s in first_use if s in set(order)]:
        result.note("ordering", "images are not stored in the order the tasks first show them")
    alike = Counter((str(crit), frozenset(sha for _tok, sha in found.options.get(str(tid), ())))
                    for tid, _pos, _prompt, crit, _inputs, _options in found.task_rows)
    repeats = sum(n for n in alike.values() if n > 1)
    if found.meta.get("protocol") != "ranking" and repeats:
        result.finding("gold", f"{repeats} task(s) show the same images under the same "
                       "criterion as another task (a rater is shown each unit once, so "
                       "repeats point at gold)")
    if found.meta.get("protocol") == "ranking":
        prompts = Counter(str(r[2]) for r in found.task_rows)
        repeated = sum(1 for n in prompts.values() if n > 1)
        if repeated:
            result.finding("gold", f"{repeated} prompt(s) appear in more than one ranking task "
                           "(a ranking shows each sample once, so repeats point at gold)")


# -- with the project -------------------------------------------------------------------------
def _check_with_project(result: Audit, project: Any, found: Any, raw: bytes,
                        images: dict[str, _Image]) -> None:
    conn = project.conn
    row = conn.execute("SELECT id FROM rating_sessions WHERE uid = ?",
                       (found.meta.get("session_uid"),)).fetchone()
    if row is None:
        result.finding("project", "the file's session is not in this project")
        return
    sid = int(row[0])
    secret = integrity.stored_secret(conn, sid)
    file_uid = str(found.meta.get("file_uid"))
    if secret is not None and found.chained:
        problems = integrity.verify(secret, file_uid, found.document(),
                                    found.meta.get("tasks_mac"), found.entries(), found.chain)
        for p in problems:
            result.finding("integrity", p)
        for key in (secret, integrity.tasks_key(secret, file_uid), integrity.plan_key(secret)):
            if key in raw or key.hex().encode() in raw:
                result.finding("integrity", "a key the rater must not have is in the file")
    names = [r[0] for r in conn.execute("SELECT DISTINCT model FROM rating_blinding WHERE "
                                        "session_id = ?", (sid,))]
    for name in names:
        if len(name) >= 4 and any(n in raw for n in (name.encode(), name.encode("utf-16-le"))):
            result.finding("names", f"the model name {name!r} appears in the file")
    text = ("\n".join(str(v) for r in found.task_rows for v in r)  # BLOBs (sqlite3): as text
            + json.dumps(found.meta, default=lambda v: bytes(v).decode("utf-8", "replace")))
    samples = [r[0] for r in conn.execute("SELECT DISTINCT sample_id FROM rating_tasks WHERE "
                                          "session_id = ?", (sid,))]
    leaked = [s for s in samples if len(s) >= 3 and re.search(
        rf"(?<![0-9A-Za-z]){re.escape(s)}(?![0-9A-Za-z])", text)]
    if leaked:
        result.finding("names", f"{len(leaked)} sample id(s) appear in the tasks or metadata")
    _correlations(result, conn, sid, found, images)


def _correlations(result: Audit, conn: Any, sid: int, found: Any,
                  images: dict[str, _Image]) -> None:
    blind = {tok: (model, bool(deg)) for tok, model, deg in conn.execute(
        "SELECT token, model, degraded FROM rating_blinding WHERE session_id = ?", (sid,))}
    rows: list[tuple[str, bool, _Image, float, int]] = []
    shows = Counter(sha for opts in found.options.values() for _tok, sha in opts)
    seen: list[tuple[int, int]] = []  # (tasks showing this image, fewest of its neighbours)
    for task_id, *_ in found.task_rows:
        opts = [(tok, sha, images[sha]) for tok, sha in found.options.get(str(task_id), ())
                if sha in images and tok in blind]
        if not opts:
            continue
        median = float(np.median([i.length for _t, _s, i in opts]))
        for k, (tok, sha, img) in enumerate(opts):
            model, degraded = blind[tok]
            rows.append((model, degraded, img, img.length / median, k))
            others = [shows[o] for _t, o, _i in opts if o != sha]
            seen.append((shows[sha], min(others, default=0)))
    if len(rows) < 8:
        return
    if _separable(np.array(seen, dtype=float), [r[1] for r in rows]):
        result.note("gold", "gold copies are shown in one task each, beside outputs that "
                    "recur in other tasks: counting image digests finds gold tasks and "
                    "their answer, as measuring blur does (auto gold is meant to be seen, "
                    "ADR 057; marked gold is not)")
    container = np.array([[_code(r[2].kind), *(r[2].size or (0, 0)), _code(r[2].encoder)]
                          for r in rows], dtype=float)
    length = np.array([[math.log(max(1, r[2].length)), r[3]] for r in rows])
    place = np.array([[r[4]] for r in rows], dtype=float)
    regular = [r for r in rows if not r[1]]
    models = [r[0] for r in regular]
    mask = np.array([not r[1] for r in rows])
    gold = [r[1] for r in rows]
    for label, x in (("container (format, size, encoder)", container), ("place", place)):
        if _separable(x[mask], models):
            result.finding("models", f"the {label} of an option predicts its model")
        if _separable(x, gold):
            result.finding("gold", f"the {label} of an option marks gold copies")
    if _separable(length[mask], models):
        result.note("models", "byte lengths follow the models (their pictures differ in "
                    "detail, which a rater sees as well)")
    if _separable(length, gold):
        result.finding("gold", "byte lengths mark gold copies")


def _code(value: Any) -> float:
    return float(int(hashlib.sha256(repr(value).encode()).hexdigest()[:6], 16))


def _separable(x: np.ndarray, labels: list[Any]) -> bool:
    """Whether leave-one-out 1-nearest-neighbour on ``x`` beats chance clearly (balanced
    accuracy over 3 standard errors above 1/k)."""
    counts = Counter(labels)
    if len(counts) < 2 or min(counts.values()) < 3:
        return False
    y = np.array([sorted(counts).index(v) for v in labels])
    z = (x - x.mean(0)) / (x.std(0) + 1e-9)
    d = ((z[:, None, :] - z[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    ties = d == d.min(1, keepdims=True)
    pred = np.array([np.bincount(y[t], minlength=len(counts)).argmax() for t in ties])
    recall = np.mean([np.mean(pred[y == c] == c) for c in range(len(counts))])
    k, n = len(counts), min(counts.values())
    return bool(recall > 1 / k + 3 * math.sqrt((1 / k) * (1 - 1 / k) / n))


def format_audit(result: Audit) -> str:
    """The audit as text for the terminal."""
    lines = [f"{Path(result.path).name}: format {result.format_version}, {result.tasks} "
             f"task(s), {result.images} image(s)"]
    lines += [f"  FINDING [{f['check']}] {f['message']}" for f in result.findings]
    lines += [f"  note [{n['check']}] {n['message']}" for n in result.notes]
    lines.append(f"  {len(result.findings)} finding(s)" if result.findings else
                 "  no findings: nothing in the file tells models or gold apart"
                 + (" beyond what the notes say a rater sees anyway" if result.notes else ""))
    return "\n".join(lines)

