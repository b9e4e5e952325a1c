"""Face identity similarity (ECHO §5).

Definition: faces are detected in every input image and in the output with dlib's
HOG detector (images downscaled to at most 1280 px on the longer side; upsampled
once when that side is under 800 px, to find small faces), aligned with dlib's
5-point landmarks and embedded with dlib's ResNet face-recognition model (128-d,
from the ``face-recognition-models`` package; CC0; run by its torch port when torch
is available, ADR 068) or, when configured, an
ArcFace-style ONNX model on 112×112 aligned crops.  The value is the highest cosine
similarity over all (input face, output face) pairs.  Not applicable when no input
image has a face; an output without a face scores 0 (the identity is gone), with
``details.output_faces = 0`` (ADR 064).
"""

from __future__ import annotations

import importlib.util
import logging
import os
from collections import OrderedDict
from typing import Any

import numpy as np

from core.metrics.base import Metric, MetricResult
from core.metrics.imageio import load_array
from core.metrics.settings import MetricSettings

MAX_SIDE = 1280
UPSAMPLE_BELOW = 800
#: faces per forward pass of the torch port (bounds memory on big group photos)
TORCH_CHUNK = 64
RESNET_FILE = "dlib_face_recognition_resnet_model_v1.dat"
DEFINITION = " ".join(__doc__.split("\n\n", 1)[1].split())
HAS_TORCH = importlib.util.find_spec("torch") is not None
log = logging.getLogger(__name__)


def dlib_model_dir() -> str:
    """Folder of the ``face-recognition-models`` data files.

    Found from the package spec without importing it (its ``__init__`` needs
    ``pkg_resources``, which recent setuptools no longer ships).
    """
    spec = importlib.util.find_spec("face_recognition_models")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("face identity needs the face-recognition-models package "
                           "(pip install face-recognition-models dlib-bin)")
    return os.path.join(list(spec.submodule_search_locations)[0], "models")


class FaceEmbedder:
    """dlib detector + landmarks + (dlib ResNet | its torch port | ONNX) embedder.

    Lives on the model thread.  ``backend`` says which embedder runs: ``"torch"``
    (dlib's network ported to torch, same descriptors, ADR 068), ``"dlib"`` or ``"onnx"``.
    """

    def __init__(self, onnx_path: str | None = None, device: str = "cpu") -> None:
        import dlib

        root = dlib_model_dir()
        self.detector = dlib.get_frontal_face_detector()
        self.shapes = dlib.shape_predictor(os.path.join(root, "shape_predictor_5_face_landmarks.dat"))
        self.onnx = None
        self.net: Any = None
        self.device = device
        self.cache: OrderedDict[str, np.ndarray] = OrderedDict()
        if onnx_path:
            import onnxruntime as ort

            if not os.path.isfile(onnx_path):
                raise FileNotFoundError(f"face embedding model {onnx_path} does not exist")
            self.onnx = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
            self.onnx_input = self.onnx.get_inputs()[0].name
            self.backend = "onnx"
            return
        path = os.path.join(root, RESNET_FILE)
        self.net = load_torch_port(path, device)
        if self.net is not None:
            self.backend = "torch"
        else:
            self.resnet = dlib.face_recognition_model_v1(path)
            self.backend = "dlib"

    def embed_keyed(self, images: list[tuple[str, np.ndarray]]) -> list[np.ndarray]:
        """:meth:`embed` for ``(image key, pixels)``: each image is detected and embedded once.

        An input shared by several models' outputs is reused from a small LRU cache.
        """
        todo: dict[str, np.ndarray] = {}
        for key, img in images:
            if key not in self.cache and key not in todo:
                todo[key] = img
        if todo:
            for key, emb in zip(todo, self.embed(list(todo.values())), strict=True):
                self.cache[key] = emb
        out = []
        for key, _ in images:
            self.cache.move_to_end(key)
            out.append(self.cache[key])
        while len(self.cache) > 256:
            self.cache.popitem(last=False)
        return out

    def embed(self, images: list[np.ndarray]) -> list[np.ndarray]:
        """``(n_faces, d)`` L2-normalised embeddings for each image (n_faces may be 0)."""
        import dlib

        found: list[tuple[int, Any]] = []
        for k, img in enumerate(images):
            upsample = 1 if max(img.shape[:2]) < UPSAMPLE_BELOW else 0
            dets = self.detector(img, upsample)
            if len(dets):
                shapes = dlib.full_object_detections()
                for d in dets:
                    shapes.append(self.shapes(img, d))
                found.append((k, shapes))
        out = [np.zeros((0, 128 if self.onnx is None else 0), np.float32) for _ in images]
        if not found:
            return out
        if self.net is not None:
            per_image = self._embed_torch([(images[k], shapes) for k, shapes in found])
        elif self.onnx is None:
            vecs = self.resnet.compute_face_descriptor([images[k] for k, _ in found],
                                                       [s for _, s in found])
            per_image = [np.asarray([np.asarray(v) for v in faces], np.float32) for faces in vecs]
        else:
            per_image = []
            for k, shapes in found:
                chips = dlib.get_face_chips(images[k], shapes, size=112, padding=0.0)
                x = (np.stack(chips).astype(np.float32) - 127.5) / 127.5
                y = self.onnx.run(None, {self.onnx_input: x.transpose(0, 3, 1, 2)})[0]
                per_image.append(np.asarray(y, np.float32).reshape(len(chips), -1))
        for (k, _), emb in zip(found, per_image, strict=True):
            norms = np.linalg.norm(emb, axis=1, keepdims=True)
            out[k] = emb / np.maximum(norms, 1e-12)
        return out

    def _embed_torch(self, found: list[tuple[np.ndarray, Any]]) -> list[np.ndarray]:
        """dlib's descriptors from the torch port: every face of the batch in one pass.

        The chips are dlib's own (``get_face_chips``, 150 px, padding 0.25), exactly what
        ``compute_face_descriptor`` feeds its network.
        """
        import dlib

        from core.metrics.dlib_resnet import CHIP_PADDING, CHIP_SIZE, embed_chips

        chips: list[np.ndarray] = []
        counts = []
        for img, shapes in found:
            faces = dlib.get_face_chips(img, shapes, size=CHIP_SIZE, padding=CHIP_PADDING)
            chips += [np.asarray(c) for c in faces]
            counts.append(len(faces))
        emb = embed_chips(self.net, np.stack(chips), TORCH_CHUNK)
        return np.split(emb, np.cumsum(counts)[:-1])


def load_torch_port(path: str, device: str) -> Any:
    """dlib's face ResNet in torch on ``device``, or None (then dlib's own runs).

    None when torch is not installed or the file does not parse as the expected
    network (logged: the metric's values stay the same either way).
    """
    if not HAS_TORCH:
        return None
    from core.metrics.dlib_resnet import DlibFormatError, build_net

    try:
        return build_net(path).to(device)
    except (DlibFormatError, ImportError) as exc:
        log.warning("face identity: dlib's own ResNet runs instead of the torch port: %s", exc)
        return None


def best_pair(inputs: list[np.ndarray], output: np.ndarray) -> MetricResult:
    """Highest cosine over (input face, output face) pairs; see the module docstring."""
    nonempty = [a for a in inputs if a.shape[0]]
    faces_in = np.concatenate(nonempty) if nonempty else np.zeros((0, 0), np.float32)
    if faces_in.shape[0] == 0:
        return MetricResult.na("no face found in the input image(s)", input_faces=0,
                               output_faces=int(output.shape[0]))
    if output.shape[0] == 0:
        return MetricResult.ok(0.0, input_faces=int(faces_in.shape[0]), output_faces=0)
    sims = faces_in @ output.T
    i, j = np.unravel_index(int(np.argmax(sims)), sims.shape)
    return MetricResult.ok(float(sims[i, j]), input_faces=int(faces_in.shape[0]),
                           output_faces=int(output.shape[0]), best_pair=[int(i), int(j)])


class FaceIdentity(Metric):
    """See the module docstring."""

    name = "face_identity"
    title = "Face identity similarity"
    version = 1
    definition = DEFINITION
    model_based = True
    #: the torch port of dlib's ResNet runs on the run's device (when torch is installed)
    uses_torch = HAS_TORCH
    batch_size = 8

    def params(self, settings: MetricSettings) -> dict[str, Any]:
        return {"embedder": settings.face_onnx or "dlib_face_recognition_resnet_model_v1",
                "detector": "dlib-hog"}

    def prepare(self, item: Any, setup: Any) -> list[tuple[str, np.ndarray]]:
        return [(ref.key(), load_array(ref, MAX_SIDE)) for ref in (*item.inputs, item.output)]

    def load(self, settings: MetricSettings, device: str) -> FaceEmbedder:
        return FaceEmbedder(settings.face_onnx, device)

    def compute(self, model: FaceEmbedder, prepared: list[Any], device: str) -> list[MetricResult]:
        emb = model.embed_keyed([img for images in prepared for img in images])
        results, k = [], 0
        for images in prepared:
            n = len(images)
            results.append(best_pair(emb[k:k + n - 1], emb[k + n - 1]))
            k += n
        return results
