"""Structure distance (ECHO §5, after Tumanyan et al. 2022/2023).

Definition: input and output are each resized to a fixed ``R × R`` (default 224,
aspect not kept, bicubic) and normalised with ImageNet mean/std.  A DINO ViT
(default ``facebook/dino-vitb8``) runs on both; the keys of the last layer's
self-attention (all heads concatenated, CLS token included) give ``K`` of shape
``(T, D)``.  The self-similarity ``S = cos(K_i, K_j)`` is a ``T × T`` matrix; the
value is the Frobenius norm ``‖S_in − S_out‖_F`` and ``details.mse`` the mean of the
squared differences (Tumanyan's structure loss).  Identical images give exactly 0.
When ``R`` differs from the model's own image size, position embeddings are
interpolated (ADR 063).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.metrics import models
from core.metrics.base import ImageRef, Metric, MetricResult, PairItem
from core.metrics.imageio import PreparedCache, open_rgb, resize_exact
from core.metrics.settings import MetricSettings

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
DEFINITION = " ".join(__doc__.split("\n\n", 1)[1].split())


@dataclass(frozen=True)
class DinoPrep:
    """Per-run preprocessing: resolution, normalisation, and the images already prepared
    (an input shared by several models' outputs is decoded once)."""

    resolution: int
    mean: tuple[float, ...]
    std: tuple[float, ...]
    prepared: PreparedCache = field(default_factory=PreparedCache, compare=False, repr=False)

    def clear(self) -> None:
        """Forget the prepared images (benchmarks)."""
        self.prepared.clear()


def dino_normalisation(spec: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Mean and std of ``spec``'s ``preprocessor_config.json`` (else ImageNet's)."""
    pre = models.read_model_json(spec, "preprocessor_config.json") or {}
    return (tuple(pre.get("image_mean", IMAGENET_MEAN)),
            tuple(pre.get("image_std", IMAGENET_STD)))


def last_key_linear(model: Any) -> Any:
    """The key projection of the last transformer layer (transformers 4 or 5 naming)."""
    layers = model.layers if hasattr(model, "layers") else model.encoder.layer  # v5 / v4
    layer = layers[-1]
    for name, module in layer.named_modules():
        leaf = name.rsplit(".", 1)[-1]
        if leaf in ("k_proj", "key"):
            return module
    raise ValueError("this ViT has no recognisable key projection in its last layer")


def self_similarity(keys: Any) -> Any:
    """``(B, T, D)`` keys → ``(B, T, T)`` cosine self-similarity (float32)."""
    import torch

    k = torch.nn.functional.normalize(keys.float(), dim=-1)
    return k @ k.transpose(1, 2)


class _KeysCaptured(Exception):  # noqa: N818 - a control-flow signal, not an error
    """Raised by the key hook to end the forward pass once the keys exist."""


class DinoBundle:
    """A DINO ViT with a hook that captures the last layer's keys.

    The forward pass stops at the last layer's key projection: the rest of that layer
    (queries, values, attention, MLP) and the final norm do not contribute to the
    metric, so skipping them gives the same keys for about one layer less arithmetic.
    """

    def __init__(self, spec: str, device: str, resolution: int) -> None:
        self.model = models.load_pretrained("ViTModel", spec, "DINO",
                                            add_pooling_layer=False).to(device)
        self.device = device
        self.mean, self.std = dino_normalisation(spec)
        self.interpolate = resolution != int(self.model.config.image_size)
        self._keys: Any = None
        self.cache: OrderedDict[str, Any] = OrderedDict()
        self.cache_size = 32
        last_key_linear(self.model).register_forward_hook(self._capture)

    def _capture(self, module: Any, args: Any, output: Any) -> None:
        self._keys = output
        raise _KeysCaptured

    def similarities(self, pixels: list[np.ndarray]) -> Any:
        """Self-similarity matrices of prepared ``(3, r, r) uint8`` images."""
        x = models.normalized(pixels, self.device, self.mean, self.std, self.model.dtype)
        try:
            self.model(pixel_values=x, interpolate_pos_encoding=self.interpolate)
        except _KeysCaptured:
            pass
        keys, self._keys = self._keys, None
        if keys is None:
            raise RuntimeError("the DINO model never reached its last layer's key projection")
        return self_similarity(keys)

    def similarities_keyed(self, images: list[tuple[str, np.ndarray]]) -> list[Any]:
        """Like :meth:`similarities` for ``(image key, pixels)``; each key runs once.

        An input image shared by several models' outputs is computed once per batch
        and kept in a small LRU cache for the next batches.
        """
        todo: dict[str, np.ndarray] = {}
        for key, arr in images:
            if key not in self.cache and key not in todo:
                todo[key] = arr
        if todo:
            sims = self.similarities(list(todo.values()))
            for k, key in enumerate(todo):
                self.cache[key] = sims[k]
        out = []
        for key, _ in images:
            self.cache.move_to_end(key)
            out.append(self.cache[key])
        while len(self.cache) > self.cache_size:
            self.cache.popitem(last=False)
        return out


class StructureDistance(Metric):
    """See the module docstring."""

    name = "structure_distance"
    title = "Structure distance (DINO)"
    version = 1
    definition = DEFINITION
    higher_is_better = False
    model_based = True
    uses_torch = True
    batch_size = 8
    gpu_batch_size = 32  # an H200: 268 → 355 pairs/s against 8 (ADR 209)
    process_min_items = 384  # H200: 260 → 606 prepared pairs/s, 0.8 s to start

    def params(self, settings: MetricSettings) -> dict[str, Any]:
        return {"model": settings.dino_model, "resolution": settings.dino_resolution}

    def setup(self, settings: MetricSettings) -> DinoPrep:
        return DinoPrep(settings.dino_resolution, *dino_normalisation(settings.dino_model))

    def prepare(self, item: PairItem, setup: DinoPrep) -> list[tuple[str, np.ndarray]]:
        assert item.output is not None
        r = setup.resolution

        def make(ref: ImageRef) -> np.ndarray:  # normalised on the model's device
            return resize_exact(open_rgb(ref, draft=2 * r), (r, r))

        source = item.inputs[0]  # shared by the models' outputs of a sample: kept
        return [(source.key(), setup.prepared.get(source.key(), lambda: make(source))),
                (item.output.key(), make(item.output))]

    def load(self, settings: MetricSettings, device: str) -> DinoBundle:
        return DinoBundle(settings.dino_model, device, settings.dino_resolution)

    def compute(self, model: DinoBundle, prepared: list[Any], device: str) -> list[MetricResult]:
        sims = model.similarities_keyed([img for pair in prepared for img in pair])
        results = []
        for k, ((_, a), (_, b)) in enumerate(prepared):
            s_in, s_out = sims[2 * k], sims[2 * k + 1]
            if np.array_equal(a, b):  # identical pixels: exactly 0, whatever the keys
                s_out = s_in
            diff = s_in - s_out
            fro = float(diff.pow(2).sum().sqrt())
            mse = float(diff.pow(2).mean())
            results.append(MetricResult.ok(fro, frobenius=fro, mse=mse,
                                           tokens=int(s_in.shape[-1])))
        return results
