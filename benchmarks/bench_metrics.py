"""Pairs per second of each model-based metric: Winnow's runner vs one pair at a time.

Both modes use the same model objects (built from config with random weights: speed
does not depend on the weights) and the same images (JPEGs of realistic size written
to a temporary folder), in the same process:

* **one-at-a-time**: the straightforward loop: decode the pair with Pillow on the
  calling thread (full decode, no draft mode), preprocess, run the model on a batch of
  one, next pair;
* **runner**: :func:`core.metrics.runner.iter_results`: decode threads prepare
  batches ahead (JPEG draft decoding) while the model thread scores whole batches.

Run on CPU (default, small model configs) or on a GPU with the real-size configs::

    .venv/bin/python benchmarks/bench_metrics.py --pairs 48 --repeats 3
    .venv/bin/python benchmarks/bench_metrics.py --device cuda --real-size --pairs 256

Prints medians and p95 over repeats, the speed-up ratio, and on CUDA the mean GPU
utilisation during the runner's pass.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.metrics import models as model_utils  # noqa: E402
from core.metrics.base import ImageRef, PairItem  # noqa: E402
from core.metrics.registry import get  # noqa: E402
from core.metrics.runner import iter_results  # noqa: E402
from core.metrics.settings import MetricSettings  # noqa: E402
from core.metrics.worker import ModelWorker  # noqa: E402

FACES = Path(__file__).resolve().parents[2] / "shared" / "testdata" / "faces"

# (CLIP vision, CLIP text, DINO) configs: "small" for CPU runs, "real" = the default models
CONFIGS = {
    "small": {
        "clip_vision": dict(hidden_size=384, intermediate_size=1536, num_hidden_layers=6,
                            num_attention_heads=6, image_size=224, patch_size=32),
        "clip_text": dict(hidden_size=256, intermediate_size=1024, num_hidden_layers=4,
                          num_attention_heads=4),
        "projection_dim": 256,
        "dino": dict(hidden_size=384, intermediate_size=1536, num_hidden_layers=6,
                     num_attention_heads=6, image_size=224, patch_size=16),
    },
    "real": {  # openai/clip-vit-base-patch32 and facebook/dino-vitb8
        "clip_vision": dict(hidden_size=768, intermediate_size=3072, num_hidden_layers=12,
                            num_attention_heads=12, image_size=224, patch_size=32),
        "clip_text": dict(hidden_size=512, intermediate_size=2048, num_hidden_layers=12,
                          num_attention_heads=8),
        "projection_dim": 512,
        "dino": dict(hidden_size=768, intermediate_size=3072, num_hidden_layers=12,
                     num_attention_heads=12, image_size=224, patch_size=8),
    },
}


def build_models(root: Path, size: str) -> tuple[Path, Path]:
    """Save a random CLIP (char tokenizer) and DINO ViT built from config under ``root``."""
    import torch
    import transformers as tf

    cfg = CONFIGS[size]
    clip = root / f"clip-{size}"
    clip.mkdir()
    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1}
    for ch in "abcdefghijklmnopqrstuvwxyz0123456789":
        vocab[ch] = len(vocab)
        vocab[ch + "</w>"] = len(vocab)
    (clip / "vocab.json").write_text(json.dumps(vocab))
    (clip / "merges.txt").write_text("#version: 0.2\n")
    tf.CLIPTokenizer(str(clip / "vocab.json"), str(clip / "merges.txt")).save_pretrained(clip)
    torch.manual_seed(0)
    text = dict(cfg["clip_text"], vocab_size=49408, max_position_embeddings=77,
                bos_token_id=0, eos_token_id=1, pad_token_id=1)
    tf.CLIPModel(tf.CLIPConfig(text_config=text, vision_config=cfg["clip_vision"],
                               projection_dim=cfg["projection_dim"])).save_pretrained(clip)
    dino = root / f"dino-{size}"
    tf.ViTModel(tf.ViTConfig(**cfg["dino"]), add_pooling_layer=False).save_pretrained(dino)
    return clip, dino


def photo(seed: int, size: tuple[int, int]) -> Image.Image:
    """A photo-like image (smooth colour field + texture + shapes): realistic JPEG cost."""
    rng = np.random.default_rng(seed)
    w, h = size
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    base = np.stack([128 + 100 * np.sin(x / (50 + 10 * c) + seed + c) * np.cos(y / 70)
                     for c in range(3)], -1)
    base += rng.normal(0, 12, base.shape)
    im = Image.fromarray(np.clip(base, 0, 255).astype(np.uint8))
    d = ImageDraw.Draw(im)
    for _ in range(12):
        x0, y0 = int(rng.integers(0, w - 100)), int(rng.integers(0, h - 100))
        d.rectangle((x0, y0, x0 + int(rng.integers(30, 200)), y0 + int(rng.integers(30, 200))),
                    fill=tuple(int(v) for v in rng.integers(0, 255, 3)))
    return im


def photo_file(root: Path, seed: int, size: tuple[int, int]) -> Path:
    """:func:`photo` saved as a JPEG under ``root/photos``, made once per seed and size."""
    path = root / "photos" / f"{seed}_{size[0]}x{size[1]}.jpg"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        photo(seed, size).save(path, quality=92)
    return path


def make_pairs(root: Path, metric: str, n: int, per_input: int = 1,
               faces_dir: Path = FACES) -> list[PairItem]:
    """n input/output pairs as JPEG files: photos, real faces, or rendered text.

    ``per_input`` outputs share each input image, as when one sample is scored for
    several models (the workload of a real run: samples × models).
    """
    folder = root / f"{metric}-{per_input}"
    folder.mkdir()
    faces = sorted(faces_dir.glob("20*.jpg")) if faces_dir.is_dir() else []
    try:
        font = ImageFont.truetype("DejaVuSans-Bold.ttf", 64)
    except OSError:
        font = ImageFont.load_default(size=64)
    if metric != "face_identity" or not faces:  # make the photos on every core first
        wanted = [(s, (1024, 768)) for s in range((n + per_input - 1) // per_input)]
        if metric != "text_ocr_cer":
            wanted += [(10_000 + k, (1024, 1024)) for k in range(n)]
        # spawned, not forked: this process holds CUDA and the model thread
        with ProcessPoolExecutor(mp_context=multiprocessing.get_context("spawn")) as pool:
            list(pool.map(photo_file, [root] * len(wanted), *zip(*wanted, strict=True)))
    items = []
    for k in range(n):
        s = k // per_input  # sample index: its input is shared by per_input outputs
        pa, pb = folder / f"{s}_in.jpg", folder / f"{k}_out.jpg"
        if metric == "face_identity" and faces:
            if k % per_input == 0:
                Image.open(faces[s % len(faces)]).convert("RGB").save(pa, quality=92)
            Image.open(faces[(k + 1) % len(faces)]).convert("RGB").save(pb, quality=92)
        elif metric == "text_ocr_cer":
            pa = photo_file(root, s, (1024, 768))
            b = Image.new("RGB", (1024, 512), (245, 240, 230))
            ImageDraw.Draw(b).text((60, 200), f"GRAND OPENING {k}", fill=(30, 30, 30),
                                   font=font)
            b.save(pb, quality=92)
        else:  # the same photo files for every metric (keys differ: no cache is shared)
            pa = photo_file(root, s, (1024, 768))
            pb = photo_file(root, 10_000 + k, (1024, 1024))
        items.append(PairItem(f"s{s}", f"m{k % per_input}",
                              f'a banner that says "GRAND OPENING {k}"',
                              (ImageRef(f"{folder.name}-{s}a", pa),),
                              ImageRef(f"{folder.name}-{k}b", pb)))
    return items


def dlib_embedder(settings, device):  # type: ignore[no-untyped-def]
    """Face identity's embedder with dlib's own ResNet (``dlib-bin``) instead of the port."""
    from core.metrics import face_identity

    port = face_identity.load_torch_port
    face_identity.load_torch_port = lambda path, dev: None
    try:
        return face_identity.FaceEmbedder(settings.face_onnx, device)
    finally:
        face_identity.load_torch_port = port


def one_at_a_time(metric, items, settings, device, worker,  # type: ignore[no-untyped-def]
                  threads: int, model=None) -> float:
    """The straightforward loop on the calling thread; returns seconds."""
    import torch

    from core.metrics import imageio

    torch.set_num_threads(threads)
    model = model or worker.call(worker.model, metric, settings, device)
    setup = metric.setup(settings)
    imageio.USE_DRAFT = False  # decode in full, as a simple script would
    t0 = time.perf_counter()
    try:
        with torch.inference_mode():
            for item in items:
                worker.clear_caches()  # a plain loop keeps no features between pairs
                getattr(setup, "clear", lambda: None)()
                getattr(getattr(model, "cache", None), "clear", lambda: None)()
                prepared = metric.prepare(item, setup)
                metric.compute(model, [prepared], device)
                if device != "cpu":
                    torch.cuda.synchronize()
    finally:
        imageio.USE_DRAFT = True
    return time.perf_counter() - t0


def runner(metric, items, settings, device, worker,  # type: ignore[no-untyped-def]
           threads: int) -> float:
    """Winnow's pipeline (decode threads + batches on the model thread); returns seconds."""
    import torch

    worker.call(torch.set_num_threads, threads)
    worker.clear_caches()  # no feature reuse from an earlier repeat
    t0 = time.perf_counter()
    n = sum(len(batch) for batch in iter_results(metric, items, settings, device, worker))
    if device != "cpu":
        import torch

        torch.cuda.synchronize()
    assert n == len(items)
    return time.perf_counter() - t0


def stage_times(metric, items, settings, device, worker,  # type: ignore[no-untyped-def]
                size: int) -> dict[str, float]:
    """Seconds per pair of each stage alone: prepare (full / draft decode), model at batch
    1 and at batch ``size`` (features not reused).  They bound what batching and overlap
    can buy: at best the loop's ``prepare_full + model_b1`` becomes ``max(prepare_draft /
    decode threads, model_bN)`` per pair."""
    from core.metrics import imageio

    setup = metric.setup(settings)

    def prepare_all(draft: bool) -> tuple[float, list]:  # type: ignore[type-arg]
        imageio.USE_DRAFT = draft
        try:
            t0 = time.perf_counter()
            out = [metric.prepare(item, setup) for item in items]
            return (time.perf_counter() - t0) / len(items), out
        finally:
            imageio.USE_DRAFT = True

    getattr(setup, "clear", lambda: None)()
    full, _ = prepare_all(False)
    getattr(setup, "clear", lambda: None)()
    draft, prepared = prepare_all(True)

    def model_time(batch: int) -> float:
        t0 = time.perf_counter()
        for k in range(0, len(prepared), batch):
            worker.clear_caches()
            getattr(setup, "clear", lambda: None)()
            worker.call(worker.compute, metric, settings, device, prepared[k:k + batch])
        if device != "cpu":
            import torch

            torch.cuda.synchronize()
        return (time.perf_counter() - t0) / len(prepared)

    return {"prepare_full": full, "prepare_draft": draft, "model_b1": model_time(1),
            "model_bN": model_time(size)}


class GpuSampler:
    """Samples GPU utilisation (torch.cuda.utilization via NVML) every 50 ms."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import torch

        while not self._stop.wait(0.05):
            try:
                self.samples.append(float(torch.cuda.utilization()))
            except Exception:  # NVML missing: no utilisation figure
                return

    def __enter__(self) -> GpuSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def sweep(metric, items, settings, device, worker,  # type: ignore[no-untyped-def]
          combos: str, repeats: int) -> list[dict[str, float]]:
    """Runner only, at each ``decode:batch[:where]`` of ``combos`` (0 = the app's default;
    ``where`` t = decode threads, p = worker processes, absent = as the app decides):
    median pairs/s and mean GPU utilisation, printed and returned."""
    from dataclasses import replace

    rows = []
    for combo in combos.split(","):
        decode, batch, *where = combo.split(":")
        procs = {"t": False, "p": True}.get(where[0]) if where else None
        tuned = replace(settings, decode_threads=int(decode) or None,
                        batch_size=int(batch) or None, decode_processes=procs)
        in_procs = tuned.uses_processes(device, metric.process_min_items, len(items))
        workers = tuned.decode_process_count() if in_procs else tuned.decode_workers(device)
        runner(metric, items[:64], tuned, device, worker, tuned.cpu_threads or 1)  # warm
        times, util = [], []
        for _ in range(repeats):
            with GpuSampler() as sampler:
                times.append(runner(metric, items, tuned, device, worker,
                                    tuned.cpu_threads or 1))
            util += sampler.samples
        row = {"decode_workers": workers, "in_processes": in_procs,
               "batch_size": tuned.batch_for(metric.batch_size, metric.gpu_batch_size, device),
               "runner_pairs_s": len(items) / statistics.median(times),
               "runner_s_median": statistics.median(times),
               "gpu_util_mean_pct": float(np.mean(util)) if util else float("nan")}
        print(f"  sweep {metric.name:20s} {'processes' if in_procs else 'threads':9s} "
              f"{workers:2d} batch {row['batch_size']:3d}: "
              f"{row['runner_pairs_s']:8.1f} pairs/s (median {row['runner_s_median']:.2f} s), "
              f"GPU util {row['gpu_util_mean_pct']:.0f}%", flush=True)
        rows.append(row)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--real-size", action="store_true", help="real-size model configs")
    ap.add_argument("--pairs", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--runner-threads", type=int, default=model_utils.default_cpu_threads(),
                    help="torch CPU threads of the runner's model thread (the app's "
                    "default: cores - 1, leaving a core to decoding and the UI)")
    ap.add_argument("--threads", type=int, default=None,
                    help="torch CPU threads of the one-at-a-time loop (default: the same "
                    "as the runner, so the ratio isolates batching and overlap; torch's "
                    "own default would be all cores)")
    ap.add_argument("--decode-threads", type=int, default=None,
                    help="decode threads of the runner (default: the app's for the device)")
    ap.add_argument("--batch-size", type=int, default=None,
                    help="model batch size (default: each metric's own)")
    ap.add_argument("--sweep", default="",
                    help="runner only, at each decode:batch[:t|p] (e.g. 2:0,8:0:t,0:0:p; 0 = the "
                    "app's default; t threads, p worker processes) instead of the "
                    "comparison with the plain loop")
    ap.add_argument("--faces", type=Path, default=FACES,
                    help="folder of face photos for face identity (default: the testdata)")
    ap.add_argument("--per-input", type=int, default=1,
                    help="outputs sharing each input (4 = samples × 4 models)")
    ap.add_argument("--face-baseline", choices=("same", "dlib"), default="same",
                    help="embedder of face identity's one-at-a-time loop: the same as the "
                    "runner (torch port of dlib's ResNet) or dlib's own (dlib-bin) — what "
                    "a plain script using dlib's API would run")
    ap.add_argument("--metrics", default="clipscore,structure_distance,face_identity,"
                    "text_ocr_cer,colour_shift")
    args = ap.parse_args()
    if args.threads is None:
        args.threads = args.runner_threads
    import torch

    device = model_utils.select_device(args.device)
    size = "real" if args.real_size else "small"
    print(f"device {device} ({torch.cuda.get_device_name() if device != 'cpu' else 'CPU'}), "
          f"{os.cpu_count()} cores, torch threads: one-at-a-time {args.threads}, runner "
          f"{args.runner_threads}, decode threads "
          f"{MetricSettings(decode_threads=args.decode_threads).decode_workers(device)}, "
          f"model configs '{size}', {args.pairs} pairs "
          f"({args.per_input} per input image), "
          f"{args.repeats} repeats, torch {torch.__version__}")
    worker = ModelWorker("bench-models")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        clip, dino = build_models(root, size)
        settings = MetricSettings(clip_model=str(clip), dino_model=str(dino), device=device,
                                  cpu_threads=args.runner_threads,
                                  decode_threads=args.decode_threads,
                                  batch_size=args.batch_size)
        for name in [m.strip() for m in args.metrics.split(",") if m.strip()]:
            metric = get(name)
            items = make_pairs(root, name, args.pairs, args.per_input, args.faces)
            list(iter_results(metric, items[:4], settings, device, worker))  # load + warm up
            if args.sweep:
                results[name] = sweep(metric, items, settings, device, worker, args.sweep,
                                      args.repeats)
                continue
            base_model = (dlib_embedder(settings, device) if name == "face_identity"
                          and args.face_baseline == "dlib" else None)
            one_at_a_time(metric, items[:2], settings, device, worker, args.threads,
                          base_model)
            base, fast, util = [], [], []
            for _ in range(args.repeats):
                base.append(one_at_a_time(metric, items, settings, device, worker,
                                          args.threads, base_model))
                if device != "cpu":
                    with GpuSampler() as sampler:
                        fast.append(runner(metric, items, settings, device, worker,
                                           args.runner_threads))
                    util += sampler.samples
                else:
                    fast.append(runner(metric, items, settings, device, worker,
                                       args.runner_threads))
            n = len(items)
            batch = settings.batch_for(metric.batch_size, metric.gpu_batch_size, device)
            stages = stage_times(metric, items, settings, device, worker, batch)
            row = {
                "one_at_a_time_pairs_s": n / statistics.median(base),
                "runner_pairs_s": n / statistics.median(fast),
                "one_at_a_time_s_median": statistics.median(base),
                "one_at_a_time_s_p95": float(np.percentile(base, 95)),
                "runner_s_median": statistics.median(fast),
                "runner_s_p95": float(np.percentile(fast, 95)),
                "batch_size": batch,
                "stage_ms_per_pair": {k: round(v * 1e3, 1) for k, v in stages.items()},
            }
            workers = (settings.decode_process_count() if settings.uses_processes(
                device, metric.process_min_items, n) else settings.decode_workers(device))
            best = max(stages["prepare_draft"] / workers,
                       stages["model_bN"])
            # the bound compares like with like: meaningless against another embedder
            row["bound"] = (None if base_model is not None
                            else (stages["prepare_full"] + stages["model_b1"]) / best)
            row["speedup"] = row["runner_pairs_s"] / row["one_at_a_time_pairs_s"]
            if util:
                row["gpu_util_mean_pct"] = float(np.mean(util))
            results[name] = row
            print(f"{name:20s} one-at-a-time {row['one_at_a_time_pairs_s']:7.2f} pairs/s "
                  f"(median {row['one_at_a_time_s_median']:.2f} s, p95 "
                  f"{row['one_at_a_time_s_p95']:.2f} s) | runner {row['runner_pairs_s']:7.2f} "
                  f"pairs/s (median {row['runner_s_median']:.2f} s, p95 "
                  f"{row['runner_s_p95']:.2f} s, batch {row['batch_size']}) | x"
                  f"{row['speedup']:.2f} ("
                  + (f"stages alone bound it at x{row['bound']:.2f}: " if row["bound"]
                     else "loop on dlib's own ResNet; runner stages: ")
                  + ", ".join(f"{k} {v} ms" for k, v in row["stage_ms_per_pair"].items())
                  + ")"
                  + (f" | GPU util {row['gpu_util_mean_pct']:.0f}%" if util else ""),
                  flush=True)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
