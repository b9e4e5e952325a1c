"""Helpers shared by the metrics tests (crafted images, projects built by hand)."""

from __future__ import annotations

import hashlib
import io
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from core.metrics.base import ImageRef, PairItem


def gradient_image(w: int = 96, h: int = 64, seed: int = 0) -> Image.Image:
    """A deterministic colourful test image with some structure."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    arr = np.stack([x * 255 // w, y * 255 // h, (x + y) * 255 // (w + h)], -1).astype(np.uint8)
    im = Image.fromarray(arr)
    d = ImageDraw.Draw(im)
    for _ in range(4):
        x0, y0 = int(rng.integers(0, w - 20)), int(rng.integers(0, h - 20))
        d.ellipse((x0, y0, x0 + 18, y0 + 18), fill=tuple(int(v) for v in rng.integers(0, 255, 3)))
    return im


def yellow_tint(im: Image.Image, strength: float = 0.25) -> Image.Image:
    """Blend towards yellow (the ECHO complaint)."""
    arr = np.asarray(im, dtype=np.float32)
    yellow = np.array([255, 220, 0], np.float32)
    return Image.fromarray((arr * (1 - strength) + yellow * strength).astype(np.uint8))


def save(im: Image.Image, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    im.save(path)
    return path


def ref_for(path: Path) -> ImageRef:
    return ImageRef(hashlib.sha256(path.read_bytes()).hexdigest(), path)


def pair(a: Path, b: Path, prompt: str = "", text: str | None = None) -> PairItem:
    return PairItem("pair", "pair", prompt, (ref_for(a),), ref_for(b), text)


def _png(im: Image.Image) -> bytes:
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    return buf.getvalue()


def add_image(project: Any, im: Image.Image | bytes) -> str:
    data = im if isinstance(im, bytes) else _png(im)
    sha, _ = project.assets.put(data, "png")
    try:
        w, h = Image.open(io.BytesIO(data)).size
    except Exception:  # deliberately broken test data
        w, h = 0, 0
    with project.transaction() as conn:
        conn.execute("INSERT OR IGNORE INTO images (sha256, ext, mime, width, height, bytes, "
                     "created_at) VALUES (?, 'png', 'image/png', ?, ?, ?, ?)",
                     (sha, w, h, len(data), datetime.now(UTC).isoformat()))
    return sha


def add_sample(project: Any, sid: str, prompt: str, inputs: list[Image.Image | bytes],
               outputs: dict[str, Image.Image | bytes], own: Image.Image | None = None,
               bbox: tuple[int, int, int, int] | None = None) -> None:
    """Insert a sample with input images, per-model outputs and optionally its own output."""
    now = datetime.now(UTC).isoformat()
    shas_in = [add_image(project, im) for im in inputs]
    sha_own = add_image(project, own) if own is not None else None
    shas_out = {m: add_image(project, im) for m, im in outputs.items()}
    with project.transaction() as conn:
        conn.execute("INSERT INTO samples (id, prompt, original_prompt, split, created_at, "
                     "modified_at) VALUES (?, ?, ?, ?, ?, ?)",
                     (sid, prompt, prompt, "image-to-image" if inputs else "text-to-image",
                      now, now))
        for pos, sha in enumerate(shas_in):
            box = bbox if bbox else (None,) * 4
            conn.execute("INSERT INTO sample_images (sample_id, role, position, sha256, bbox_x, "
                         "bbox_y, bbox_w, bbox_h) VALUES (?, 'input', ?, ?, ?, ?, ?, ?)",
                         (sid, pos, sha, *box))
        if sha_own:
            conn.execute("INSERT INTO sample_images (sample_id, role, position, sha256) "
                         "VALUES (?, 'output', 99, ?)", (sid, sha_own))
        for model, sha in shas_out.items():
            conn.execute("INSERT OR REPLACE INTO model_outputs (sample_id, model, sha256, "
                         "imported_at) VALUES (?, ?, ?, ?)", (sid, model, sha, now))


def cli_project(tmp_path: Path) -> Path:
    """A closed project of 3 samples with two outputs each ("tinted", "same")."""
    from core.store import Project

    path = tmp_path / "cli.winnow"
    with Project.create(path) as p:
        for k in range(3):
            base = gradient_image(seed=k)
            add_sample(p, f"s{k}", f"edit 'TEXT {k}'", [base],
                       {"tinted": yellow_tint(base), "same": base.copy()})
    return path


def set_output(project: Any, sid: str, model: str, im: Image.Image) -> None:
    """Replace a model's output for a sample (as a re-import would)."""
    sha = add_image(project, im)
    with project.transaction() as conn:
        conn.execute("UPDATE model_outputs SET sha256 = ? WHERE sample_id = ? AND model = ?",
                     (sha, sid, model))


def add_session(project, name: str, tasks: list[tuple[str, str]], gold: str = "") -> None:
    """A rating session (rating schema m006) with (sample, model) tasks, one gold task."""
    import json

    design = json.dumps({"name": name, "protocol": "likert",
                         "sample_ids": sorted({s for s, _ in tasks}),
                         "models": sorted({m for _, m in tasks})})
    with project.transaction() as conn:
        cur = conn.execute(
            "INSERT INTO rating_sessions (uid, name, protocol, design, seed, created_at, "
            "created_by) VALUES (?, ?, 'likert', ?, 1, 'now', 't')",
            (name + "-uid", name, design))
        sid = cur.lastrowid
        for k, (sample, model) in enumerate(tasks + ([(gold, "same")] if gold else [])):
            is_gold = gold and k == len(tasks)
            conn.execute(
                "INSERT INTO rating_tasks (session_id, task_id, slot, position, sample_id, unit, "
                "prompt, inputs, gold) VALUES (?, ?, 'A', ?, ?, ?, '', '[]', ?)",
                (sid, f"t{k}", k, sample, sample, "1" if is_gold else None))
            conn.execute(
                "INSERT INTO rating_blinding (session_id, token, task_id, position, model, "
                "sha256, source_sha256) VALUES (?, ?, ?, 0, ?, 'x', 'x')",
                (sid, f"tok{k}", f"t{k}", model))


# -- a tiny ONNX model written in protobuf wire format (no ``onnx`` package needed) -------
def _varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _field(num: int, payload: bytes | int | str) -> bytes:
    if isinstance(payload, int):
        return _varint(num << 3) + _varint(payload)
    data = payload.encode() if isinstance(payload, str) else payload
    return _varint(num << 3 | 2) + _varint(len(data)) + data


def _value_info(name: str, dims: list[int | str]) -> bytes:
    shape = b"".join(_field(1, _field(2, d) if isinstance(d, str) else _field(1, d))
                     for d in dims)
    tensor_type = _field(1, 1) + _field(2, shape)  # elem_type FLOAT, shape
    return _field(1, name) + _field(2, _field(1, tensor_type))


def write_projection_onnx(path: Path, out_dim: int = 32, seed: int = 0) -> Path:
    """An ArcFace-shaped ONNX model: ``data (N, 3, 112, 112)`` → random projection ``(N, d)``."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((3 * 112 * 112, out_dim)).astype("<f4")
    weight = (b"".join(_field(1, d) for d in w.shape) + _field(2, 1) + _field(8, "W")
              + _field(9, w.tobytes()))
    flatten = _field(1, "data") + _field(2, "flat") + _field(3, "flatten") + _field(4, "Flatten")
    matmul = (_field(1, "flat") + _field(1, "W") + _field(2, "emb") + _field(3, "proj")
              + _field(4, "MatMul"))
    graph = (_field(1, flatten) + _field(1, matmul) + _field(2, "tiny-face")
             + _field(5, weight) + _field(11, _value_info("data", ["n", 3, 112, 112]))
             + _field(12, _value_info("emb", ["n", out_dim])))
    model = _field(1, 7) + _field(8, _field(2, 13)) + _field(7, graph)
    path.write_bytes(model)
    return path


def crash_on_model(items: list[Any]) -> list[Any]:
    """A worker-process task (ADR 209) that dies like a crashing decoder on an item of
    the model named "crash", else prepares as Winnow does."""
    import os

    from core.metrics.prepare_pool import _prepare_chunk

    if any(item.model == "crash" for item in items):
        os._exit(3)
    return _prepare_chunk(items)
