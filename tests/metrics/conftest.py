"""Fixtures for the metrics tests: tiny random CLIP/DINO models, crafted projects, faces."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from metrics_helpers import add_sample, gradient_image, yellow_tint
from shared_data import need_testdata

from core.metrics.worker import ModelWorker

REPO = Path(__file__).resolve().parents[2]
LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.fixture(scope="session")
def worker() -> ModelWorker:
    """One model thread for the whole session (models stay loaded, as in the app)."""
    w = ModelWorker("test-models")
    yield w
    w.stop()


@pytest.fixture(scope="session")
def tiny_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A randomly initialised CLIP (32-px images) with a character tokenizer, saved to disk."""
    torch = pytest.importorskip("torch")
    tf = pytest.importorskip("transformers")
    d = tmp_path_factory.mktemp("tiny-clip")
    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1}
    for ch in LETTERS:
        vocab[ch] = len(vocab)
        vocab[ch + "</w>"] = len(vocab)
    (d / "vocab.json").write_text(json.dumps(vocab))
    (d / "merges.txt").write_text("#version: 0.2\n")
    tf.CLIPTokenizer(str(d / "vocab.json"), str(d / "merges.txt")).save_pretrained(d)
    cfg = tf.CLIPConfig(
        text_config=dict(vocab_size=len(vocab), hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=2, max_position_embeddings=16,
                         bos_token_id=0, eos_token_id=1, pad_token_id=1),
        vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                           num_attention_heads=2, image_size=32, patch_size=8),
        projection_dim=16)
    torch.manual_seed(0)
    tf.CLIPModel(cfg).save_pretrained(d)
    (d / "preprocessor_config.json").write_text(json.dumps({
        "crop_size": {"height": 32, "width": 32}, "do_center_crop": True,
        "do_convert_rgb": True, "do_normalize": True, "do_rescale": True, "do_resize": True,
        "image_mean": [0.48145466, 0.4578275, 0.40821073],
        "image_std": [0.26862954, 0.26130258, 0.27577711],
        "image_processor_type": "CLIPImageProcessor", "resample": 3,
        "rescale_factor": 1 / 255, "size": {"shortest_edge": 32}}))
    return d


@pytest.fixture(scope="session")
def tiny_dino(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A randomly initialised DINO-style ViT (patch 8, 32-px images), saved to disk."""
    torch = pytest.importorskip("torch")
    tf = pytest.importorskip("transformers")
    d = tmp_path_factory.mktemp("tiny-dino")
    cfg = tf.ViTConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2,
                       num_attention_heads=2, intermediate_size=64)
    torch.manual_seed(1)
    tf.ViTModel(cfg, add_pooling_layer=False).save_pretrained(d)
    return d


@pytest.fixture
def faces() -> Path:
    return need_testdata("faces")


@pytest.fixture
def small_project(project: Any) -> Callable[[int], Any]:
    """``build(n)``: n image-to-image samples × models tinted/neutral + one text-to-image."""
    def build(n: int = 6) -> Any:
        for k in range(n):
            base = gradient_image(seed=k)
            add_sample(project, f"s{k:02d}", f"make it 'SALE {k}'", [base],
                       {"tinted": yellow_tint(base), "same": base.copy()})
        add_sample(project, "t2i", "a red bicycle", [], {"tinted": gradient_image(seed=99)})
        return project
    return build
