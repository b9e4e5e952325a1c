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
import queue
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from core.metrics.base import Metric, MetricResult
from core.metrics.dlib_resnet import CHIP_PADDING, CHIP_SIZE
from core.metrics.imageio import PreparedCache, load_array
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
    ``pkg_resources``, which recent setuptools no longer ships); in a frozen bundle,
    its ``models/`` folder (only the CC0 models are bundled, never the 68-point one).
    """
    from core.bundle import bundled_model
    from core.extras import require

    bundled = bundled_model(RESNET_FILE)
    if bundled is not None:
        return str(bundled.parent)
    require("metrics", "Face identity")
    spec = importlib.util.find_spec("face_recognition_models")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("face identity needs the face-recognition-models package")
    return os.path.join(list(spec.submodule_search_locations)[0], "models")


class FaceFinder:
    """dlib's HOG detector + 5-point landmarks → aligned face chips (one per thread)."""

    def __init__(self) -> None:
        import dlib

        root = dlib_model_dir()
        self.detector = dlib.get_frontal_face_detector()
        self.shapes = dlib.shape_predictor(os.path.join(root, "shape_predictor_5_face_landmarks.dat"))

    def chips(self, img: np.ndarray, size: int, padding: float) -> np.ndarray:
        """``(n_faces, size, size, 3) uint8`` aligned chips of every face found in ``img``."""
        import dlib

        upsample = 1 if max(img.shape[:2]) < UPSAMPLE_BELOW else 0
        dets = self.detector(img, upsample)
        if not len(dets):
            return np.zeros((0, size, size, 3), np.uint8)
        shapes = dlib.full_object_detections()
        for d in dets:
            shapes.append(self.shapes(img, d))
        return np.stack([np.asarray(c) for c in
                         dlib.get_face_chips(img, shapes, size=size, padding=padding)])


def chip_geometry(onnx: bool) -> tuple[int, float]:
    """``(size, padding)`` of aligned chips: dlib's network (and its torch port) takes
    150 px with padding 0.25; ArcFace-style ONNX models take 112 px without padding."""
    return (112, 0.0) if onnx else (CHIP_SIZE, CHIP_PADDING)


_FINDERS: queue.SimpleQueue[FaceFinder] = queue.SimpleQueue()


@contextmanager
def borrowed_finder() -> Iterator[FaceFinder]:
    """A :class:`FaceFinder` for this thread's use, kept for later runs and threads.

    Loading the detector and the landmark model takes ~0.5 s, more than a batch of
    detections, so finders are pooled rather than made per run or per thread.
    """
    try:
        finder = _FINDERS.get_nowait()
    except queue.Empty:
        finder = FaceFinder()
    try:
        yield finder
    finally:
        _FINDERS.put(finder)


class FaceSetup:
    """Per-run state of the decode threads: chips cached by image.

    Detection and alignment (the costly, per-image part) run here, in parallel with the
    model thread; an input image shared by several models' outputs is detected once.
    """

    def __init__(self, onnx: bool) -> None:
        self.size, self.padding = chip_geometry(onnx)
        self._cache = PreparedCache()

    def clear(self) -> None:
        """Forget the cached chips (benchmarks: a plain loop keeps nothing between pairs)."""
        self._cache.clear()

    def faces(self, ref: Any) -> np.ndarray:
        """Aligned chips of every face in the image ``ref`` (cached by its key)."""
        def detect() -> np.ndarray:
            pixels = load_array(ref, MAX_SIDE)
            with borrowed_finder() as finder:
                return finder.chips(pixels, self.size, self.padding)

        chips: np.ndarray = self._cache.get(ref.key(), detect)
        return chips


def open_embedder(path: str) -> Any:
    """An onnxruntime session of the face embedder at ``path``, refused with a message
    naming the file when it is a folder, not ONNX, or not shaped like an embedder
    (a face *detector* there failed every item with a broadcast error)."""
    from core.metrics.models import ModelUnavailableError
    from core.onnx_runtime import onnxruntime

    ort = onnxruntime()

    what = f"face embedding model {path}"
    if os.path.isdir(path):
        raise ModelUnavailableError(f"{what} is a folder: choose the .onnx file itself")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{what} does not exist")
    try:
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime's own error types
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelUnavailableError(f"{what} is not an ONNX model onnxruntime can read "
                                    f"({first})") from exc
    shape_in = list(session.get_inputs()[0].shape or [])
    shape_out = list(session.get_outputs()[0].shape or [])
    channels = shape_in[1] if len(shape_in) == 4 else 3
    takes_crops = not shape_in or (len(shape_in) == 4 and not isinstance(channels, int)
                                   or channels == 3)
    if not takes_crops or len(shape_out) not in (0, 2):
        raise ModelUnavailableError(
            f"{what} is not a face embedder: it takes {_shape(shape_in)} and gives "
            f"{_shape(shape_out)}, where an ArcFace-style model takes (N, 3, 112, 112) "
            "face crops and gives one vector per face (N, D)")
    return session


def _shape(dims: list[Any]) -> str:
    return "(" + ", ".join(str(d) for d in dims) + ")"


class FaceEmbedder:
    """Embeds aligned chips with dlib's ResNet (its torch port | dlib's own) or an ONNX model.

    Lives on the model thread.  ``backend`` says which embedder runs: ``"torch"``
    (dlib's network ported to torch, same descriptors, ADR 068), ``"dlib"`` or ``"onnx"``.
    """

    def __init__(self, onnx_path: str | None = None, device: str = "cpu") -> None:
        import dlib

        root = dlib_model_dir()
        self.onnx = None
        self.net: Any = None
        self.device = device
        self.cache: OrderedDict[str, np.ndarray] = OrderedDict()
        if onnx_path:
            self.onnx = open_embedder(onnx_path)
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

    @property
    def chip_size(self) -> tuple[int, float]:
        """``(size, padding)`` of the chips this embedder takes."""
        return chip_geometry(self.onnx is not None)

    def embed_chips(self, chips: np.ndarray) -> np.ndarray:
        """``(n, d)`` L2-normalised embeddings of ``(n, s, s, 3) uint8`` aligned chips."""
        if chips.shape[0] == 0:
            return np.zeros((0, 128 if self.onnx is None else 0), np.float32)
        if self.net is not None:
            from core.metrics.dlib_resnet import embed_chips

            emb = embed_chips(self.net, chips, TORCH_CHUNK)
        elif self.onnx is None:
            vecs = self.resnet.compute_face_descriptor(list(chips))
            emb = np.asarray([np.asarray(v) for v in vecs], np.float32)
        else:
            x = (chips.astype(np.float32) - 127.5) / 127.5
            emb = np.asarray(self.onnx.run(None, {self.onnx_input: x.transpose(0, 3, 1, 2)})[0],
                             np.float32).reshape(len(chips), -1)
        unit: np.ndarray = emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)
        return unit

    def embed_keyed(self, images: list[tuple[str, np.ndarray]]) -> list[np.ndarray]:
        """Embeddings of ``(image key, chips)`` with all new faces in one pass.

        An input shared by several models' outputs is reused from a small LRU cache.
        """
        todo: dict[str, np.ndarray] = {}
        for key, chips in images:
            if key not in self.cache and key not in todo:
                todo[key] = chips
        if todo:
            counts = [len(c) for c in todo.values()]
            size = next(iter(todo.values())).shape[1:]
            emb = self.embed_chips(np.concatenate(list(todo.values())) if sum(counts)
                                   else np.zeros((0, *size), np.uint8))
            for key, part in zip(todo, np.split(emb, np.cumsum(counts)[:-1]), strict=True):
                self.cache[key] = part
        out = []
        for key, _ in images:
            self.cache.move_to_end(key)
            out.append(self.cache[key])
        while len(self.cache) > 256:
            self.cache.popitem(last=False)
        return out

    def embed(self, images: list[np.ndarray]) -> list[np.ndarray]:
        """``(n_faces, d)`` L2-normalised embeddings for each image (n_faces may be 0)."""
        size, padding = self.chip_size
        with borrowed_finder() as finder:
            chips = [finder.chips(img, size, padding) for img in images]
        counts = [len(c) for c in chips]
        if not sum(counts):
            return [self.embed_chips(c) for c in chips]
        emb = self.embed_chips(np.concatenate(chips))
        return list(np.split(emb, np.cumsum(counts)[:-1]))


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
    # float32 rounding can put an identical face a hair above 1
    value = float(np.clip(sims[i, j], -1.0, 1.0))
    return MetricResult.ok(value, input_faces=int(faces_in.shape[0]),
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
    process_min_items = 128  # H200: 31 → 58 prepared pairs/s, 1.7 s to start

    def params(self, settings: MetricSettings) -> dict[str, Any]:
        return {"embedder": settings.face_onnx or "dlib_face_recognition_resnet_model_v1",
                "detector": "dlib-hog"}

    def setup(self, settings: MetricSettings) -> FaceSetup:
        return FaceSetup(onnx=bool(settings.face_onnx))

    def prepare(self, item: Any, setup: FaceSetup) -> list[tuple[str, np.ndarray]]:
        return [(ref.key(), setup.faces(ref)) for ref in (*item.inputs, item.output)]

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
