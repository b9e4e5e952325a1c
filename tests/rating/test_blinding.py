"""Blinding that survives a curious rater (issue #12 items 1–2, ADR 057).

Outputs carry their maker everywhere a generator writes it (hostile_outputs.py).  No byte
of any marker may reach a session file, every image must come out of Winnow's one
encoder, and a classifier that sees only what the file shows of an image (format, size,
byte length, quantisation tables, encoder flags) must do no better than chance at
telling the models apart, or gold copies from regular outputs.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from hostile_outputs import LONG_SIDE, MODELS, markers, named_icc
from hostile_outputs import output as hostile_output
from PIL import Image
from rating_helpers import build_project, make_session

from core.rating import images as session_images
from core.rating.session_file import RatingSession

SAMPLES = tuple(f"s{k:03d}" for k in range(12))
GENERIC = [b"Exif\x00\x00", b"ICC_PROFILE", b"http://ns.adobe.com", b"adobe:ns:meta",
           b"made-with", b"seed=42", b"iCCP", b"tEXt", b"zTXt", b"iTXt", b"eXIf",
           b"desc:", b"Photoshop"]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("hostile") / "h.winnow"
    project = build_project(path, n_samples=len(SAMPLES), output=hostile_output)
    yield project
    project.close()


@pytest.fixture(autouse=True)
def canvas_side(monkeypatch):  # type: ignore[no-untyped-def]
    """The outputs' pictures are 512 pixels wide: show them at that resolution."""
    monkeypatch.setattr(session_images, "LONG_SIDE", LONG_SIDE)


def _file_images(path: Path) -> tuple[dict[str, bytes], list[tuple[str, list[list[str]]]]]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    blobs = {sha: bytes(data) for sha, data in conn.execute("SELECT sha256, data FROM images")}
    exts = {r[0] for r in conn.execute("SELECT ext FROM images")}
    tasks = [(tid, json.loads(opts)) for tid, opts in conn.execute(
        "SELECT task_id, options FROM tasks ORDER BY position")]
    conn.close()
    assert exts == {"jpg"}
    return blobs, tasks


def _outside_scans(path: Path, blobs: dict[str, bytes]) -> bytes:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    dump = "\n".join(line for line in conn.iterdump() if "INTO \"images\"" not in line)
    conn.close()
    heads = b"".join(data[:data.find(b"\xff\xda")] for data in blobs.values())
    return dump.encode() + heads


def _features(data: bytes) -> dict[str, object]:
    """What a rater's script sees of one image without looking at its pixels."""
    with Image.open(io.BytesIO(data)) as img:
        q = getattr(img, "quantization", None) or {}
        return {"format": img.format, "size": img.size, "mode": img.mode,
                "bytes": len(data), "info": tuple(sorted(img.info)),
                "qtables": hashlib.sha256(repr(sorted(q.items())).encode()).hexdigest(),
                "progressive": bool(img.info.get("progressive")),
                "tail": data[-2:] == b"\xff\xd9"}


@pytest.mark.parametrize("protocol", ["ranking", "likert", "side_by_side", "checklist"])
def test_no_marker_reaches_any_session_file(hostile, tmp_path: Path, protocol) -> None:  # type: ignore[no-untyped-def]
    files = make_session(hostile, tmp_path / "out", protocol, name=f"leak-{protocol}",
                         sample_ids=SAMPLES[:6],
                         models=MODELS, gold_rate=0.2, tasks_per_rater=8)
    # the outputs really carry them
    for k in range(2):
        for m in MODELS:
            data = hostile_output(k, m)[0]
            assert any(needle in data for needle in markers(m)), m
    s = RatingSession.open(files[0])  # and a rater at work adds nothing that leaks
    s.set_rater("Ada")
    s.close()
    needles = [n for m in MODELS for n in markers(m)] + GENERIC + [
        named_icc(m)[128:192] for m in MODELS]
    qtables = set()
    for path in files:
        raw = path.read_bytes()
        blobs, tasks = _file_images(path)
        for needle in needles:
            # four bytes turn up by chance in megabytes of JPEG scan data: those must stay
            # out of everything else (the tables, and every image's headers)
            haystack = raw if len(needle) >= 8 else _outside_scans(path, blobs)
            assert needle not in haystack, f"{needle!r} leaked into {path.name}"
        for sha, data in blobs.items():
            assert hashlib.sha256(data).hexdigest() == sha
            f = _features(data)
            assert f["format"] == "JPEG" and f["mode"] == "RGB" and f["tail"], f
            assert not f["progressive"]
            assert set(f["info"]) <= {"jfif", "jfif_version", "jfif_unit", "jfif_density",
                                      "dpi"}, f["info"]
            qtables.add(f["qtables"])
        for _tid, options in tasks:
            sizes = {_features(blobs[sha])["size"] for _tok, sha in options}
            assert len(sizes) == 1, f"options of one task differ in size: {sizes}"
    assert len(qtables) == 1  # one encoder setting for inputs, outputs and gold copies


# -- classifiers on file-visible features ------------------------------------------------------
def _vector(f: dict[str, object], relative: float) -> list[float]:
    w, h = f["size"]  # type: ignore[misc]
    cat = hashlib.sha256(repr((f["format"], f["qtables"], f["info"], f["mode"],
                               f["progressive"])).encode()).digest()
    return [math.log(f["bytes"]), w, h, relative, cat[0], cat[1]]  # type: ignore[arg-type]


def _one_nn(x: np.ndarray, y: np.ndarray) -> float:
    """Leave-one-out accuracy of 1-nearest-neighbour on standardised features."""
    z = (x - x.mean(0)) / (x.std(0) + 1e-9)
    d = ((z[:, None, :] - z[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    return float((y[d.argmin(1)] == y).mean())


def _stump(x: np.ndarray, y: np.ndarray) -> float:
    """Leave-one-out balanced accuracy of the best single-feature threshold (binary y)."""
    hits = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        best, rule = -1.0, (0, 0.0, True)
        for j in range(x.shape[1]):
            for t in np.unique(x[keep, j]):
                for above in (True, False):
                    pred = (x[keep, j] >= t) == above
                    acc = _balanced(pred, y[keep])
                    if acc > best:
                        best, rule = acc, (j, t, above)
        j, t, above = rule
        hits.append((x[i, j] >= t) == above)
    return _balanced(np.array(hits), y)


def _balanced(pred: np.ndarray, y: np.ndarray) -> float:
    y = y.astype(bool)
    return float(((pred & y).sum() / max(1, y.sum()) + (~pred & ~y).sum() / max(1, (~y).sum()))
                 / 2)


def _chance_bound(p: float, n: int) -> float:
    return p + 3 * math.sqrt(p * (1 - p) / n)


def _options(project, files: list[Path]) -> list[tuple[bytes, str, bool, float]]:  # type: ignore[no-untyped-def]
    """(image bytes, model, degraded, length / task median) for every distinct option."""
    blind = {tok: (model, bool(deg)) for tok, model, deg in project.conn.execute(
        "SELECT token, model, degraded FROM rating_blinding")}
    seen: dict[str, tuple[bytes, str, bool, float]] = {}
    for path in files:
        blobs, tasks = _file_images(path)
        for _tid, options in tasks:
            median = float(np.median([len(blobs[sha]) for _tok, sha in options]))
            for tok, sha in options:
                model, degraded = blind[tok]
                seen.setdefault(f"{sha}:{tok if degraded else ''}",
                                (blobs[sha], model, degraded, len(blobs[sha]) / median))
    return list(seen.values())


def test_a_classifier_on_file_features_cannot_tell_models_apart(hostile, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    files = make_session(hostile, tmp_path / "out", "ranking", name="models",
                         sample_ids=SAMPLES, models=MODELS)
    items = [o for o in _options(hostile, files) if not o[2]]
    assert len(items) == len(SAMPLES) * len(MODELS)
    y = np.array([MODELS.index(o[1]) for o in items])
    x = np.array([_vector(_features(o[0]), o[3]) for o in items], dtype=float)
    accuracy = _one_nn(x, y)
    assert accuracy <= _chance_bound(0.25, len(y)), accuracy
    # the same classifier on the files the models wrote tells them apart at once
    raw = []
    for k in range(len(SAMPLES)):
        for m in MODELS:
            data = hostile_output(k, m)[0]
            with Image.open(io.BytesIO(data)) as img:
                f = {"format": img.format, "size": img.size, "mode": img.mode,
                     "bytes": len(data), "info": tuple(sorted(img.info)),
                     "qtables": repr(getattr(img, "quantization", None)),
                     "progressive": bool(img.info.get("progressive"))}
            raw.append(_vector(f, 1.0))
    assert _one_nn(np.array(raw, dtype=float), np.repeat([np.arange(4)], len(SAMPLES),
                                                         0).ravel()) > 0.9


def test_a_classifier_on_file_features_cannot_find_gold(hostile, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    files = make_session(hostile, tmp_path / "out", "side_by_side", name="gold",
                         sample_ids=SAMPLES, models=MODELS, gold_rate=0.4,
                         tasks_per_rater=20)
    items = _options(hostile, files)
    y = np.array([o[2] for o in items])
    assert 8 <= y.sum() < len(y) - 8
    x = np.array([_vector(_features(o[0]), o[3]) for o in items], dtype=float)
    bound = 0.5 + 3 * math.sqrt(0.25 / y.sum())
    assert _stump(x[:, [0, 3]], y) <= bound
    assert _balanced(_nn_pred(x, y), y) <= bound
    # without the grain that matches their length, gold copies are found at once
    plain = []
    for blob, _model, degraded, _rel in items:
        if degraded:
            rgb = np.asarray(Image.open(io.BytesIO(blob)).convert("RGB"))
            blob = session_images.encode(session_images.degrade(rgb))
        plain.append([math.log(len(blob))])
    assert _stump(np.array(plain), y) > 0.9


def _nn_pred(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    z = (x - x.mean(0)) / (x.std(0) + 1e-9)
    d = ((z[:, None, :] - z[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    return y[d.argmin(1)].astype(bool)
