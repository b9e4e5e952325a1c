"""The torch port of dlib's face ResNet against dlib itself, on real photos (ADR 068)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from shared_data import need_module, need_testdata  # noqa: E402

need_module("dlib", "metrics")
need_module("torch", "metrics")

import dlib  # noqa: E402

from core.metrics import face_identity  # noqa: E402
from core.metrics.dlib_resnet import (  # noqa: E402
    DlibFormatError,
    build_net,
    embed_chips,
    read_layers,
    structure,
)
from core.metrics.face_identity import RESNET_FILE, FaceEmbedder, FaceFinder, dlib_model_dir  # noqa: E402

#: 16 faces in 4 photos: one portrait and groups (small, turned, partly hidden faces)
PHOTOS = ("Tom_Cruise_avp_2014_4.jpg", "2008_001009.jpg", "2008_002079.jpg", "2007_007763.jpg")


@pytest.fixture(scope="module")
def model_path() -> str:
    return os.path.join(dlib_model_dir(), RESNET_FILE)


@pytest.fixture(scope="module")
def net(model_path: str):
    return build_net(model_path)


@pytest.fixture(scope="module")
def detected() -> list[tuple[np.ndarray, object]]:
    """(RGB pixels, dlib 5-point shapes) per photo, found as face_identity finds them."""
    faces = need_testdata("faces")
    emb = FaceFinder()
    out = []
    for name in PHOTOS:
        img = np.asarray(Image.open(faces / name).convert("RGB"))
        dets = emb.detector(img, 1 if max(img.shape[:2]) < face_identity.UPSAMPLE_BELOW else 0)
        shapes = dlib.full_object_detections()
        for d in dets:
            shapes.append(emb.shapes(img, d))
        out.append((img, shapes))
    return out


@pytest.fixture(scope="module")
def reference(model_path: str, detected) -> np.ndarray:
    """dlib's own descriptors (``compute_face_descriptor``, num_jitters=0), all faces."""
    rec = dlib.face_recognition_model_v1(model_path)
    vecs = rec.compute_face_descriptor([img for img, _ in detected], [s for _, s in detected])
    return np.asarray([np.asarray(v) for faces in vecs for v in faces])


@pytest.fixture(scope="module")
def chips(detected) -> np.ndarray:
    return np.stack([np.asarray(c) for img, shapes in detected
                     for c in dlib.get_face_chips(img, shapes, size=150, padding=0.25)])


def test_parses_the_whole_network(model_path: str) -> None:
    layers = read_layers(model_path)
    kinds = [layer.kind for layer in layers]
    assert kinds.count("con") == 29 and kinds.count("affine") == 29
    assert kinds.count("add_prev") == 14 and kinds[-2:] == ["avg_pool", "fc"]
    spec = structure(layers, model_path)
    assert [down for down, _ in spec.blocks].count(True) == 4 and len(spec.blocks) == 14
    assert np.allclose(spec.mean, [122.782, 117.001, 104.298], atol=1e-3)
    assert spec.head[1].attrs["weight"].shape == (128, 256)
    stem_conv = spec.stem[0].attrs
    assert stem_conv["weight"].shape == (32, 3, 7, 7) and stem_conv["stride"] == (2, 2)


def test_torch_descriptors_equal_dlibs(net, chips: np.ndarray, reference: np.ndarray) -> None:
    assert len(chips) == len(reference) == 16
    out = embed_chips(net, chips)
    assert out.shape == (16, 128) and out.dtype == np.float32
    cos = (out * reference).sum(1) / np.linalg.norm(out, axis=1) / np.linalg.norm(reference, axis=1)
    assert cos.min() >= 0.9999
    assert np.abs(out - reference).max() < 1e-5  # measured ≈ 4e-7 (ADR 068)
    # and it is a face embedding, not a constant: different people are far apart
    assert np.linalg.norm(reference[0] - reference[1]) > 0.3


def test_batched_equals_unbatched(net, chips: np.ndarray) -> None:
    chips = chips[:7]
    whole = embed_chips(net, chips)
    single = np.concatenate([embed_chips(net, chips[i:i + 1]) for i in range(len(chips))])
    chunked = embed_chips(net, chips, chunk=3)
    assert np.abs(whole - single).max() < 1e-5
    assert np.abs(whole - chunked).max() < 1e-5
    assert embed_chips(net, chips[:0]).shape == (0, 128)


def test_rejects_wrong_input(net) -> None:
    with pytest.raises(ValueError, match=r"\(n, 150, 150, 3\) uint8"):
        net(np.zeros((1, 112, 112, 3), np.uint8))
    with pytest.raises(ValueError, match="uint8"):
        net(np.zeros((1, 150, 150, 3), np.float32))


def test_face_identity_embeds_with_the_port(detected, reference: np.ndarray,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    ported = FaceEmbedder()
    assert ported.backend == "torch"
    detected = detected[:2]  # the portrait and a pair: 3 faces
    images = [img for img, _ in detected]
    got = np.concatenate(ported.embed(images))
    want = reference[:3] / np.linalg.norm(reference[:3], axis=1, keepdims=True)
    assert np.abs(got - want).max() < 1e-5
    monkeypatch.setattr(face_identity, "load_torch_port", lambda path, device: None)
    own = FaceEmbedder()
    assert own.backend == "dlib"
    per_image = own.embed(images)
    assert [len(e) for e in per_image] == [len(s) for _, s in detected]
    assert np.abs(np.concatenate(per_image) - got).max() < 1e-5


def test_unparseable_file_falls_back_to_dlib(model_path: str, tmp_path: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    bad = tmp_path / "resnet.dat"
    bad.write_bytes(Path(model_path).read_bytes()[:100_000])
    with caplog.at_level(logging.WARNING):
        assert face_identity.load_torch_port(str(bad), "cpu") is None
    assert "resnet.dat" in caplog.text and "dlib's own ResNet" in caplog.text


def _damaged(data: bytes, how: str) -> bytes:
    if how == "truncated":
        return data[:len(data) // 2]
    if how == "trailing":
        return data + b"\x00"
    if how == "unknown layer":
        return data.replace(b"con_4", b"con_9", 1)
    if how == "garbage":
        return bytes(range(256)) * 4
    return b""


@pytest.mark.parametrize(("how", "message"), [
    ("truncated", "unexpected end of file"),
    ("trailing", "1 unexpected trailing bytes"),
    ("unknown layer", "unsupported layer type 'con_9'"),
    ("garbage", "not a dlib face-recognition ResNet file"),
    ("empty", "unexpected end of file"),
])
def test_damaged_files_give_a_clear_error(model_path: str, tmp_path: Path, how: str,
                                          message: str) -> None:
    bad = tmp_path / f"{how.replace(' ', '_')}.dat"
    bad.write_bytes(_damaged(Path(model_path).read_bytes(), how))
    with pytest.raises(DlibFormatError, match=message) as err:
        build_net(bad)
    assert str(bad) in str(err.value)


def test_other_dlib_files_are_refused(tmp_path: Path) -> None:
    other = os.path.join(dlib_model_dir(), "shape_predictor_5_face_landmarks.dat")
    with pytest.raises(DlibFormatError, match="shape_predictor_5_face_landmarks.dat"):
        read_layers(other)
    with pytest.raises(DlibFormatError, match="cannot read"):
        read_layers(tmp_path / "missing.dat")


def test_structure_mismatch_names_the_layer(model_path: str) -> None:
    layers = read_layers(model_path)
    del layers[7]  # an affine inside the first residual block
    with pytest.raises(DlibFormatError, match=r"layer 5 \(mark\).*residual block"):
        structure(layers, model_path)
