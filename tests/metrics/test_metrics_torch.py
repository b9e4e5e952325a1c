"""CLIPScore and DINO structure distance on tiny random models loaded through the real code."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from metrics_helpers import gradient_image, pair, save, yellow_tint
from PIL import Image

from core.metrics.models import ModelUnavailableError, load_pretrained
from core.metrics.registry import get
from core.metrics.runner import evaluate
from core.metrics.settings import MetricSettings

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

PROMPTS = ["a red bicycle", "sunset over the sea", "x", "zebra 42 on a street",
           "the quick brown fox jumps over the lazy dog again and again"]


def _hand_clipscore(model_dir: Path, image: Image.Image, prompt: str) -> tuple[float, float]:
    """The definition, computed independently: HF processor + model, 100·max(cos, 0)."""
    model = transformers.CLIPModel.from_pretrained(model_dir, local_files_only=True).eval()
    tok = transformers.AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    proc = transformers.CLIPImageProcessor.from_pretrained(model_dir, local_files_only=True)
    pixels = proc(images=image, return_tensors="pt")["pixel_values"]
    ids = tok([prompt], truncation=True, max_length=16, return_tensors="pt")
    with torch.no_grad():
        v = model.vision_model(pixel_values=pixels).pooler_output
        img = model.visual_projection(v)[0]
        t = model.text_model(**ids).pooler_output
        txt = model.text_projection(t)[0]
    cos = float(torch.dot(img, txt) / (img.norm() * txt.norm()))
    return 100.0 * max(cos, 0.0), cos


def test_clipscore_matches_definition(tiny_clip: Path, tmp_path: Path, worker) -> None:
    im = gradient_image(80, 56, seed=3)
    path = save(im, tmp_path / "out.png")
    settings = MetricSettings(clip_model=str(tiny_clip), device="cpu")
    items = [pair(path, path, prompt=p) for p in PROMPTS]
    results = evaluate(get("clipscore"), items, settings, worker=worker)
    clipped = 0
    for prompt, res in zip(PROMPTS, results, strict=True):
        expected, cos = _hand_clipscore(tiny_clip, im, prompt)
        assert res.status == "ok"
        assert res.details["cosine"] == pytest.approx(cos, abs=2e-4)
        assert res.value == pytest.approx(expected, abs=2e-2)
        clipped += cos < 0
        if cos < 0:
            assert res.value == 0.0
    assert results[-1].details["truncated"] is True  # longer than 16 positions
    assert results[0].details["truncated"] is False


def test_clipscore_batch_equals_single(tiny_clip: Path, tmp_path: Path, worker) -> None:
    paths = [save(gradient_image(seed=k), tmp_path / f"{k}.png") for k in range(5)]
    settings = MetricSettings(clip_model=str(tiny_clip), device="cpu")
    items = [pair(p, p, prompt=PROMPTS[k]) for k, p in enumerate(paths)]
    batched = evaluate(get("clipscore"), items, settings, worker=worker)
    single = [evaluate(get("clipscore"), [it], MetricSettings(
        clip_model=str(tiny_clip), device="cpu", batch_size=1), worker=worker)[0]
        for it in items]
    for a, b in zip(batched, single, strict=True):
        assert a.details["cosine"] == pytest.approx(b.details["cosine"], abs=1e-5)


def _hand_structure(model_dir: Path, a: Image.Image, b: Image.Image, r: int) -> float:
    """Tumanyan keys by hand: last layer's layernorm → key projection, cosine self-sim."""
    model = transformers.ViTModel.from_pretrained(model_dir, local_files_only=True,
                                                  add_pooling_layer=False).eval()
    mean, std = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])

    def sim(im: Image.Image) -> torch.Tensor:
        x = np.asarray(im.convert("RGB").resize((r, r), Image.Resampling.BICUBIC)) / 255.0
        x = torch.tensor(((x - mean) / std).transpose(2, 0, 1)[None], dtype=torch.float32)
        with torch.no_grad():
            hs = model(pixel_values=x, output_hidden_states=True,
                       interpolate_pos_encoding=r != 32).hidden_states
            if hasattr(model, "layers"):  # transformers 5
                layer = model.layers[-1]
                key = layer.attention.k_proj
            else:  # transformers 4
                layer = model.encoder.layer[-1]
                key = layer.attention.attention.key
            keys = key(layer.layernorm_before(hs[-2]))[0]
        k = keys / keys.norm(dim=-1, keepdim=True)
        return k @ k.T

    return float((sim(a) - sim(b)).norm())


@pytest.mark.parametrize("resolution", [32, 48])
def test_structure_distance_matches_definition(tiny_dino: Path, tmp_path: Path, worker,
                                               resolution: int) -> None:
    a_im = gradient_image(seed=1)
    b_im = gradient_image(seed=2).transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    a, b = save(a_im, tmp_path / "a.png"), save(b_im, tmp_path / "b.png")
    copy = save(a_im, tmp_path / "copy.png")
    tint = save(yellow_tint(a_im, 0.1), tmp_path / "tint.png")
    settings = MetricSettings(dino_model=str(tiny_dino), dino_resolution=resolution,
                              device="cpu")
    same, diff, tinted = evaluate(get("structure_distance"),
                                  [pair(a, copy), pair(a, b), pair(a, tint)], settings,
                                  worker=worker)
    assert same.value == 0.0 and same.details["mse"] == 0.0
    tokens = (resolution // 8) ** 2 + 1
    assert diff.details["tokens"] == tokens
    assert diff.value == pytest.approx(_hand_structure(tiny_dino, a_im, b_im, resolution),
                                       rel=1e-4)
    assert diff.details["mse"] == pytest.approx(diff.value ** 2 / tokens ** 2, rel=1e-4)
    assert 0 < tinted.value < diff.value  # a tint keeps structure better than a new image


def test_models_live_on_the_worker_thread_and_are_reused(tiny_dino: Path, tmp_path: Path,
                                                         worker) -> None:
    a = save(gradient_image(seed=5), tmp_path / "a.png")
    settings = MetricSettings(dino_model=str(tiny_dino), dino_resolution=40, device="cpu")
    evaluate(get("structure_distance"), [pair(a, a)], settings, worker=worker)
    loads = worker.loads
    evaluate(get("structure_distance"), [pair(a, a)], settings, worker=worker)
    assert worker.loads == loads
    assert worker.call(threading.current_thread).name == "test-models"
    # inference mode is per thread: the model thread ran without autograd
    assert not torch.is_inference_mode_enabled()


def test_missing_model_never_downloads(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    with pytest.raises(ModelUnavailableError, match="never downloads"):
        load_pretrained("ViTModel", "facebook/dino-vitb8", "DINO")
    bad = tmp_path / "not-a-model"
    bad.mkdir()
    with pytest.raises(ModelUnavailableError, match="cannot be loaded"):
        load_pretrained("ViTModel", str(bad), "DINO")


def test_a_model_of_another_type_is_refused_naming_the_folder(tiny_clip: Path,
                                                             tiny_dino: Path) -> None:
    """A DINO folder given as CLIP (or the reverse) loaded with random weights in place
    of the missing ones and scored silently; now it is refused, naming the folder."""
    with pytest.raises(ModelUnavailableError,
                       match=f"DINO model folder {tiny_clip}.*'clip' model, not a 'vit'"):
        load_pretrained("ViTModel", str(tiny_clip), "DINO", add_pooling_layer=False)
    with pytest.raises(ModelUnavailableError,
                       match=f"CLIP model folder {tiny_dino}.*'vit' model, not a 'clip'"):
        load_pretrained("CLIPModel", str(tiny_dino), "CLIP")


def test_a_checkpoint_missing_weights_is_refused(tiny_dino: Path, tmp_path: Path) -> None:
    from safetensors.torch import load_file, save_file

    folder = tmp_path / "half-dino"
    folder.mkdir()
    (folder / "config.json").write_bytes((tiny_dino / "config.json").read_bytes())
    weights = load_file(tiny_dino / "model.safetensors")
    dropped = sorted(weights)[0]
    del weights[dropped]
    save_file(weights, folder / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(ModelUnavailableError, match=r"DINO model folder .*half-dino.*1 weight"):
        load_pretrained("ViTModel", str(folder), "DINO", add_pooling_layer=False)


def test_a_damaged_weights_file_names_the_folder(tiny_clip: Path, tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "damaged-clip"
    shutil.copytree(tiny_clip, folder)
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    with pytest.raises(ModelUnavailableError, match="CLIP model folder .*damaged-clip.* cannot"):
        load_pretrained("CLIPModel", str(folder), "CLIP")


def test_clipscore_encodes_each_prompt_once(tiny_clip: Path, tmp_path: Path, worker,
                                            monkeypatch) -> None:
    """Samples × models: outputs sharing a prompt reuse one text embedding, same values."""
    from core.metrics.clipscore import ClipBundle

    seen: list[list[str]] = []
    original = ClipBundle.embed_texts

    def spy(self, texts):  # type: ignore[no-untyped-def]
        seen.append(list(texts))
        return original(self, texts)

    paths = [save(gradient_image(seed=k), tmp_path / f"{k}.png") for k in range(6)]
    items = [pair(p, p, prompt=PROMPTS[k % 2]) for k, p in enumerate(paths)]
    settings = MetricSettings(clip_model=str(tiny_clip), device="cpu")
    worker.clear_caches()
    monkeypatch.setattr(ClipBundle, "embed_texts", spy)
    shared = evaluate(get("clipscore"), items, settings, worker=worker)
    assert sorted(t for call in seen for t in call) == sorted(PROMPTS[:2])
    monkeypatch.setattr(ClipBundle, "embed_texts", original)
    for item, res in zip(items, shared, strict=True):
        worker.clear_caches()
        alone = evaluate(get("clipscore"), [item], settings, worker=worker)[0]
        assert res.details["cosine"] == pytest.approx(alone.details["cosine"], abs=1e-5)
        assert res.details["truncated"] == alone.details["truncated"]


def test_a_gpu_asked_for_on_a_machine_without_one_says_what_to_choose(monkeypatch) -> None:
    """It said '--device cuda was requested … built for CUDA None' in the GUI too."""
    from core.metrics.models import select_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.version, "cuda", None)
    with pytest.raises(ValueError, match=r"CUDA GPU \(cuda\) but torch sees no CUDA GPU "
                       r"\(torch .*, a CPU-only build\): choose CPU or Automatic"):
        select_device("cuda")
    assert select_device("auto") == "cpu"


@pytest.mark.parametrize("metric", ["clipscore", "structure_distance"])
def test_a_checkpoint_of_nan_weights_fails_its_items(tiny_clip: Path, tiny_dino: Path,
                                                     tmp_path: Path, worker,
                                                     metric: str) -> None:
    """A checkpoint that holds every weight, of the right type, but NaN (a run that
    diverged, an fp16 overflow) loaded, and every item was stored as 'ok' with the value
    NaN (ADR 208): now each item is an error saying why."""
    import shutil

    import torch
    from safetensors.torch import load_file, save_file

    folder = tmp_path / "nan-model"
    shutil.copytree(tiny_clip if metric == "clipscore" else tiny_dino, folder)
    weights = load_file(folder / "model.safetensors")
    for name, tensor in weights.items():
        if tensor.is_floating_point():
            weights[name] = torch.full_like(tensor, float("nan"))
    save_file(weights, folder / "model.safetensors", metadata={"format": "pt"})
    out = save(gradient_image(seed=1), tmp_path / "out.png")
    given = save(gradient_image(seed=2), tmp_path / "in.png")
    model = {"clip_model" if metric == "clipscore" else "dino_model": str(folder)}
    results = evaluate(get(metric), [pair(given, out, prompt="a cat")],
                       MetricSettings(device="cpu", **model), worker=worker)
    assert results[0].status == "error"
    assert "not a number" in str(results[0].error)
    assert "Metrics → Settings" in str(results[0].error)


def test_weights_that_do_not_fit_the_config_say_so(tiny_clip: Path, tmp_path: Path) -> None:
    """A config.json edited (or another model's weights) so that a weight's shape differs:
    transformers' error said only 'You set `ignore_mismatched_sizes` to `False` … look at
    the above report!', a report on the log the user never sees (ADR 208)."""
    import json
    import shutil

    folder = tmp_path / "resized-clip"
    shutil.copytree(tiny_clip, folder)
    config = json.loads((folder / "config.json").read_text())
    config["projection_dim"] = 24
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelUnavailableError) as info:
        load_pretrained("CLIPModel", str(folder), "CLIP")
    message = str(info.value)
    assert "resized-clip" in message and "above report" not in message
    assert "do not fit its config.json" in message


def test_loading_a_model_prints_no_progress_bar(tiny_dino: Path, capfd) -> None:
    """transformers' "Loading weights: 100%…" bar cluttered every CLI run's stderr."""
    from core.metrics import models

    models.load_pretrained("ViTModel", str(tiny_dino), "DINO", add_pooling_layer=False)
    assert "Loading weights" not in capfd.readouterr().err
