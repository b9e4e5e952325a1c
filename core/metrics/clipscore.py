"""CLIPScore (IDEA-Bench Table 8, after Hessel et al. 2021).

Definition: ``100 · max(cos(E_img(output), E_txt(prompt)), 0)`` where ``E_img`` and
``E_txt`` are the projected CLIP image and text embeddings (transformers
``CLIPModel.get_image_features`` / ``get_text_features``).  The image is resized so
its shorter side is the model's crop size (bicubic) and centre-cropped, then
normalised with the model's mean/std (its ``preprocessor_config.json``, else the
OpenAI values).  The prompt is tokenised with the model's tokenizer and truncated to
its context length (77 tokens for OpenAI CLIP; ``details.truncated`` says so).
Default model ``openai/clip-vit-base-patch32``, the one Hessel et al. used (ADR 062).
IDEA-Bench prints the raw cosine (0.34); ``details.cosine`` keeps it.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.metrics import models
from core.metrics.base import Metric, MetricResult, PairItem
from core.metrics.imageio import open_rgb, resize_short_center_crop
from core.metrics.settings import MetricSettings

OPENAI_MEAN = (0.48145466, 0.4578275, 0.40821073)
OPENAI_STD = (0.26862954, 0.26130258, 0.27577711)
DEFINITION = " ".join(__doc__.split("\n\n", 1)[1].split())


@dataclass(frozen=True)
class ClipPrep:
    """Preprocessing constants read from the model's files (no torch needed)."""

    short: int
    crop: int
    mean: tuple[float, ...]
    std: tuple[float, ...]


def clip_prep(spec: str) -> ClipPrep:
    """Resize/crop/normalisation of ``spec`` (defaults: OpenAI CLIP at 224)."""
    pre = models.read_model_json(spec, "preprocessor_config.json") or {}
    cfg = models.read_model_json(spec, "config.json") or {}
    image_size = int((cfg.get("vision_config") or {}).get("image_size", 224))
    size = pre.get("size", image_size)
    short = int(size.get("shortest_edge", image_size) if isinstance(size, dict) else size)
    crop = pre.get("crop_size", image_size)
    crop = int(crop.get("height", image_size) if isinstance(crop, dict) else crop)
    return ClipPrep(short, crop, tuple(pre.get("image_mean", OPENAI_MEAN)),
                    tuple(pre.get("image_std", OPENAI_STD)))


def preprocess(im: Any, prep: ClipPrep) -> np.ndarray:
    """Pillow image → ``(3, crop, crop) uint8``, resized and cropped (normalised on the
    model's device, :meth:`ClipBundle.embed_images`)."""
    return resize_short_center_crop(im, prep.short, prep.crop)


class ClipBundle:
    """A loaded CLIP model and tokenizer on a device."""

    def __init__(self, spec: str, device: str) -> None:
        self.model = models.load_pretrained("CLIPModel", spec, "CLIP").to(device)
        self.tokenizer = models.load_pretrained("AutoTokenizer", spec, "CLIP tokenizer")
        self.max_length = int(self.model.config.text_config.max_position_embeddings)
        self.device = device
        self.prep = clip_prep(spec)
        self.cache: OrderedDict[str, tuple[Any, bool]] = OrderedDict()
        self.cache_size = 256

    def embed_texts(self, texts: list[str]) -> tuple[Any, list[bool]]:
        """L2-normalised text embeddings and which texts were truncated."""
        import torch

        full = self.tokenizer(texts, truncation=False)["input_ids"]
        truncated = [len(ids) > self.max_length for ids in full]
        tok = self.tokenizer(texts, padding=True, truncation=True, max_length=self.max_length,
                             return_tensors="pt").to(self.device)
        emb = models.features(self.model.get_text_features(
            input_ids=tok["input_ids"], attention_mask=tok["attention_mask"]))
        return torch.nn.functional.normalize(emb.float(), dim=-1), truncated

    def embed_texts_cached(self, texts: list[str]) -> tuple[Any, list[bool]]:
        """:meth:`embed_texts` with each distinct text encoded once.

        A prompt shared by several models' outputs (samples × models) is encoded once
        per batch and kept in a small LRU cache for the next batches.
        """
        import torch

        todo = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if todo:
            emb, truncated = self.embed_texts(todo)
            for k, text in enumerate(todo):
                self.cache[text] = (emb[k], truncated[k])
        rows = []
        for text in texts:
            self.cache.move_to_end(text)
            rows.append(self.cache[text])
        while len(self.cache) > self.cache_size:
            self.cache.popitem(last=False)
        return torch.stack([e for e, _ in rows]), [t for _, t in rows]

    def embed_images(self, pixels: list[np.ndarray]) -> Any:
        """L2-normalised image embeddings of :func:`preprocess`'s arrays."""
        import torch

        x = models.normalized(pixels, self.device, self.prep.mean, self.prep.std,
                              self.model.dtype)
        emb = models.features(self.model.get_image_features(pixel_values=x))
        return torch.nn.functional.normalize(emb.float(), dim=-1)


class ClipScore(Metric):
    """See the module docstring."""

    name = "clipscore"
    title = "CLIPScore"
    version = 1
    definition = DEFINITION
    uses_prompt = True
    uses_inputs = False
    model_based = True
    uses_torch = True
    batch_size = 32
    gpu_batch_size = 64  # an H200: 647 → 767 pairs/s against 32 (ADR 209)
    process_min_items = 1024  # H200: 610 → 1,070 prepared pairs/s, 0.8 s to start

    def applicable(self, item: PairItem) -> str | None:
        if item.output is None:
            return "no output image"
        if not (item.text or item.prompt).strip():
            return "the sample has no prompt"
        return None

    def params(self, settings: MetricSettings) -> dict[str, Any]:
        return {"model": settings.clip_model}

    def setup(self, settings: MetricSettings) -> ClipPrep:
        return clip_prep(settings.clip_model)

    def prepare(self, item: PairItem, setup: ClipPrep) -> tuple[str, np.ndarray]:
        assert item.output is not None
        image = open_rgb(item.output, draft=2 * setup.short)
        return (item.text or item.prompt), preprocess(image, setup)

    def load(self, settings: MetricSettings, device: str) -> ClipBundle:
        return ClipBundle(settings.clip_model, device)

    def compute(self, model: ClipBundle, prepared: list[Any], device: str) -> list[MetricResult]:
        texts = [t for t, _ in prepared]
        img = model.embed_images([p for _, p in prepared])
        txt, truncated = model.embed_texts_cached(texts)
        cos = (img * txt).sum(dim=-1).cpu().numpy()
        return [MetricResult.ok(100.0 * max(float(c), 0.0), cosine=float(c), truncated=t)
                for c, t in zip(cos, truncated, strict=True)]
