"""Configuration of a metrics run: models, device, batching, judge endpoints.

Models are given as a local folder or a Hugging Face id (looked up in the local
cache only, never downloaded).  API keys live here only in memory: they come from
the environment (``WINNOW_JUDGE_API_KEY``) or the app's user settings and are never
written to a project file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

DEFAULT_CLIP = "openai/clip-vit-base-patch32"
DEFAULT_DINO = "facebook/dino-vitb8"
#: the ``model_type`` in config.json of the models CLIPScore and structure distance load
CLIP_MODEL_TYPE = "clip"
DINO_MODEL_TYPE = "vit"
KEY_ENV = "WINNOW_JUDGE_API_KEY"
#: Limits, as the metrics settings dialog has them.
DINO_RESOLUTIONS = (32, 1024)
MAX_BATCH = 512
MAX_REPEATS = 20
MAX_TIMEOUT_S = 3600.0
#: default decode threads on the CPU and (at most) on a GPU; see MetricSettings.decode_workers
CPU_DECODE_THREADS = 2
GPU_DECODE_THREADS = 8
#: worker processes preparing images on a GPU run (at most; ADR 209)
GPU_DECODE_PROCESSES = 16


@dataclass(frozen=True)
class JudgeEndpoint:
    """One VLM judge at an OpenAI-compatible chat-completions endpoint."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 120.0
    max_retries: int = 3
    backoff: float = 1.0
    concurrency: int = 4
    max_tokens: int = 1024
    temperature: float | None = None

    def __post_init__(self) -> None:
        if not 0 < self.timeout <= MAX_TIMEOUT_S:  # NaN too
            raise ValueError(f"the judge timeout must be from 0 to {MAX_TIMEOUT_S:g} seconds "
                             f"(exclusive of 0), not {self.timeout:g}")

    @property
    def name(self) -> str:
        """How results label this judge (the model name; no key, no URL secrets)."""
        return self.model

    @property
    def shown_url(self) -> str:
        """The endpoint as messages and records show it (no password or key, ADR 198)."""
        from core.http_pools import shown_url

        return shown_url(self.base_url).rstrip("/")

    def identity(self) -> dict[str, object]:
        """What identifies the judge in a metric's parameters (never the key, nor a
        password or key written into the URL)."""
        return {"base_url": self.shown_url, "model": self.model,
                "temperature": self.temperature, "max_tokens": self.max_tokens}


@dataclass(frozen=True)
class MetricSettings:
    """Everything a run needs besides the selection."""

    clip_model: str = DEFAULT_CLIP
    dino_model: str = DEFAULT_DINO
    dino_resolution: int = 224
    #: optional ArcFace-style ONNX embedder (local path); None = dlib ResNet
    face_onnx: str | None = None
    device: str = "auto"  # auto | cpu | cuda
    #: torch threads on CPU (None = cores - 1, at least 1)
    cpu_threads: int | None = None
    batch_size: int | None = None  # None = each metric's default
    #: threads decoding and preparing images ahead of the model (None = decode_workers)
    decode_threads: int | None = None
    #: prepare images in worker processes (None = on a GPU, for runs of at least the
    #: metric's ``process_min_items``; ADR 209)
    decode_processes: bool | None = None
    judges: tuple[JudgeEndpoint, ...] = field(default_factory=tuple)
    #: TECCI: independent judge runs per item, averaged
    judge_repeats: int = 5

    def __post_init__(self) -> None:
        """Refuse values the settings dialog cannot set: a DINO resolution of 100,000
        asked for a 10-gigapixel tensor, NaN or 0 broke the run deep inside it."""
        lo, hi = DINO_RESOLUTIONS
        if not lo <= self.dino_resolution <= hi:
            raise ValueError(f"the DINO resolution must be {lo}–{hi} pixels, not "
                             f"{self.dino_resolution:,}")
        if self.batch_size is not None and not 1 <= self.batch_size <= MAX_BATCH:
            raise ValueError(f"the batch size must be 1–{MAX_BATCH}, not {self.batch_size:,}")
        if not 1 <= self.judge_repeats <= MAX_REPEATS:
            raise ValueError(f"judge repeats must be 1–{MAX_REPEATS}, not "
                             f"{self.judge_repeats:,}")

    def decode_workers(self, device: str) -> int:
        """Decode threads for a run on ``device``: ``decode_threads`` when set; else 2 on
        the CPU (torch's threads take the other cores) and, on a GPU, cores − 1 up to
        :data:`GPU_DECODE_THREADS` (ADR 196: with 2, an H200 idled 85–90 % of a run)."""
        if self.decode_threads:
            return max(1, self.decode_threads)
        if device == "cpu":
            return CPU_DECODE_THREADS
        return max(CPU_DECODE_THREADS, min(GPU_DECODE_THREADS, (os.cpu_count() or 2) - 1))

    def batch_for(self, default: int, gpu_default: int | None, device: str) -> int:
        """Items per model call: ``batch_size`` when set, else the metric's own for the
        device (``gpu_default`` on a GPU where the metric has one)."""
        if self.batch_size:
            return self.batch_size
        return (gpu_default or default) if device != "cpu" else default

    def uses_processes(self, device: str, min_items: int | None, items: int) -> bool:
        """Whether a run of ``items`` items prepares them in worker processes: never for a
        metric without ``min_items`` (its ``process_min_items``); else as
        ``decode_processes`` says when set, and by default on a GPU for runs of at least
        ``min_items`` (ADR 209)."""
        if min_items is None or self.decode_processes is False:
            return False
        return bool(self.decode_processes) or (device != "cpu" and items >= min_items)

    def decode_process_count(self) -> int:
        """Worker processes of such a run: ``decode_threads`` when set, else cores − 1 up
        to :data:`GPU_DECODE_PROCESSES` (the model thread and the UI keep a core)."""
        if self.decode_threads:
            return max(1, self.decode_threads)
        return max(1, min(GPU_DECODE_PROCESSES, (os.cpu_count() or 2) - 1))

    def with_key_from_env(self) -> MetricSettings:
        """Fill missing judge keys from ``WINNOW_JUDGE_API_KEY``."""
        key = os.environ.get(KEY_ENV)
        if not key:
            return self
        judges = tuple(j if j.api_key else replace(j, api_key=key) for j in self.judges)
        return replace(self, judges=judges)


def judges_from_text(base_url: str, models: str, api_key: str | None = None,
                     **kwargs: Any) -> tuple[JudgeEndpoint, ...]:
    """Judges sharing one endpoint: ``models`` is a comma-separated list of model names."""
    names = [m.strip() for m in models.split(",") if m.strip()]
    if names and not base_url.strip():
        raise ValueError("a judge model was given but no endpoint URL")
    return tuple(JudgeEndpoint(base_url.strip(), name, api_key, **kwargs)
                 for name in names)
