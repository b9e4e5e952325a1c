"""Face identity with the real dlib detector and ResNet embedder on real photos."""

from __future__ import annotations

from pathlib import Path

import pytest
from metrics_helpers import pair, save, write_projection_onnx
from PIL import Image, ImageEnhance

from core.metrics.face_identity import best_pair
from core.metrics.registry import get
from core.metrics.runner import evaluate
from core.metrics.settings import MetricSettings

pytest.importorskip("dlib")

ONE_FACE = "Tom_Cruise_avp_2014_4.jpg"
OTHERS = "2008_001009.jpg"  # two different people
NO_FACE = "dogs.jpg"


def test_same_face_is_one_other_faces_lower(faces: Path, tmp_path: Path, worker) -> None:
    tom = faces / ONE_FACE
    brighter = save(ImageEnhance.Brightness(Image.open(tom)).enhance(1.15)
                    .resize((500, 708)), tmp_path / "tom_edit.png")
    metric = get("face_identity")
    itself, edited, other = evaluate(
        metric, [pair(tom, tom), pair(tom, brighter), pair(tom, faces / OTHERS)],
        MetricSettings(), worker=worker)
    assert itself.status == "ok" and itself.value == pytest.approx(1.0, abs=1e-5)
    assert itself.value <= 1.0  # a cosine, never above 1 after float32 rounding
    assert itself.details["input_faces"] == 1 and itself.details["output_faces"] == 1
    assert edited.value > 0.95  # same person after a mild edit
    assert other.details["output_faces"] == 2
    assert other.value < edited.value - 0.05  # different people: clearly lower
    assert other.value < 0.9


def test_no_input_face_is_not_applicable_and_lost_face_scores_zero(faces: Path,
                                                                   worker) -> None:
    metric = get("face_identity")
    no_input, lost = evaluate(metric, [pair(faces / NO_FACE, faces / ONE_FACE),
                                       pair(faces / ONE_FACE, faces / NO_FACE)],
                              MetricSettings(), worker=worker)
    assert no_input.status == "not_applicable" and "no face" in no_input.details["reason"]
    assert lost.status == "ok" and lost.value == 0.0 and lost.details["output_faces"] == 0


def test_highest_cosine_over_pairs() -> None:
    import numpy as np

    a = np.array([[1.0, 0.0], [0.0, 1.0]])
    b = np.array([[0.6, 0.8]])
    res = best_pair([a[:1], a[1:]], b)
    assert res.value == pytest.approx(0.8) and res.details["best_pair"] == [1, 0]


def test_optional_onnx_embedder(faces: Path, tmp_path: Path, worker) -> None:
    model = write_projection_onnx(tmp_path / "tiny-arcface.onnx")
    settings = MetricSettings(face_onnx=str(model))
    metric = get("face_identity")
    assert metric.params(settings)["embedder"] == str(model)
    itself, other = evaluate(metric, [pair(faces / ONE_FACE, faces / ONE_FACE),
                                      pair(faces / ONE_FACE, faces / OTHERS)],
                             settings, worker=worker)
    assert itself.value == pytest.approx(1.0, abs=1e-5)
    assert other.status == "ok" and other.value < 0.999
    with pytest.raises(FileNotFoundError, match="nope.onnx does not exist"):
        evaluate(metric, [pair(faces / ONE_FACE, faces / ONE_FACE)],
                 MetricSettings(face_onnx=str(tmp_path / "nope.onnx")), worker=worker)


def test_a_file_that_is_not_a_face_embedder_is_refused_naming_it(tmp_path: Path) -> None:
    """A folder, a file that is not ONNX, or a face *detector* (every item failed with
    an onnxruntime broadcast error) is refused before the run, naming the file."""
    pytest.importorskip("onnxruntime")
    from core.metrics.face_identity import open_embedder
    from core.metrics.models import ModelUnavailableError

    with pytest.raises(ModelUnavailableError, match=f"{tmp_path} is a folder"):
        open_embedder(str(tmp_path))
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(ModelUnavailableError, match="junk.onnx is not an ONNX model"):
        open_embedder(str(junk))
    detector = Path(__file__).resolve().parents[2] / "resources" / "models" / "centerface.onnx"
    with pytest.raises(ModelUnavailableError, match=r"centerface.onnx is not a face embedder"):
        open_embedder(str(detector))
    model = write_projection_onnx(tmp_path / "tiny-arcface.onnx")
    assert open_embedder(str(model)).get_outputs()[0].shape == ["n", 32]
