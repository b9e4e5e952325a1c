"""What a metric is: the unit it scores, its result, and the interface every metric implements.

A metric scores one :class:`PairItem` (a sample's input image(s) and prompt against
one output image of one model).  Work is split so that the expensive parts overlap:

* :meth:`Metric.prepare` runs on decode threads (read, crop, resize: numpy only);
* :meth:`Metric.load` and :meth:`Metric.compute` run on the one model thread that
  owns torch models and the device (see :mod:`core.metrics.worker`).

Judge metrics (:class:`JudgeMetric`) talk to an HTTP endpoint instead; see
:mod:`core.metrics.judges`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from core.metrics.settings import MetricSettings

#: pseudo-model name for the sample's own output image (e.g. the one in the post)
SAMPLE_MODEL = "@sample"


@dataclass(frozen=True)
class ImageRef:
    """One image as a metric sees it: a stored file, optionally cropped to a box."""

    sha256: str
    path: Path | None
    bbox: tuple[int, int, int, int] | None = None  # x, y, w, h in source pixels

    def key(self) -> str:
        """Identity of the pixels the metric will see (hash + crop)."""
        return self.sha256 if self.bbox is None else f"{self.sha256}@{','.join(map(str, self.bbox))}"


@dataclass(frozen=True)
class PairItem:
    """The unit a metric scores: (sample, model) with inputs, output and prompt."""

    sample_id: str
    model: str
    prompt: str
    inputs: tuple[ImageRef, ...]
    output: ImageRef | None
    #: text the image should contain, when given explicitly (CLI ``--text``)
    text: str | None = None

    @property
    def label(self) -> str:
        return f"{self.sample_id} / {self.model}"


@dataclass
class MetricResult:
    """Outcome of one metric on one item."""

    status: str  # "ok" | "not_applicable" | "error"
    value: float | None = None
    details: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @classmethod
    def ok(cls, value: float | None, **details: Any) -> MetricResult:
        return cls("ok", None if value is None else float(value), details)

    @classmethod
    def na(cls, reason: str, **details: Any) -> MetricResult:
        return cls("not_applicable", None, {"reason": reason, **details})

    @classmethod
    def fail(cls, error: str, **details: Any) -> MetricResult:
        return cls("error", None, details, error)

    def to_json(self) -> dict[str, Any]:
        """The CLI's ``metrics pair --json`` body (without the metric name)."""
        out: dict[str, Any] = {"value": self.value, "status": self.status,
                               "details": self.details}
        if self.error:
            out["error"] = self.error
        return out


class Metric:
    """Base class of every metric; subclasses set the class attributes and override methods."""

    name: ClassVar[str]
    title: ClassVar[str]
    version: ClassVar[int] = 1
    #: one paragraph: exactly what the value is (shown in tooltips and the docs)
    definition: ClassVar[str] = ""
    higher_is_better: ClassVar[bool] = True
    #: the value depends on the prompt / explicit target text
    uses_prompt: ClassVar[bool] = False
    #: the value depends on the input images
    uses_inputs: ClassVar[bool] = True
    #: runs on the model thread (torch/dlib/onnx); False for pure numpy metrics
    model_based: ClassVar[bool] = False
    #: the model thread needs torch (inference mode, device)
    uses_torch: ClassVar[bool] = False
    batch_size: ClassVar[int] = 16
    #: the batch on a GPU, where it differs (None = ``batch_size``)
    gpu_batch_size: ClassVar[int | None] = None
    #: on a GPU, runs of at least this many items prepare them in worker processes (its
    #: setup must pickle); None = always on threads.  Below it, a pool's start (~0.8 s
    #: on 16 cores) costs more than the processes buy (ADR 209)
    process_min_items: ClassVar[int | None] = None
    is_judge: ClassVar[bool] = False

    def applicable(self, item: PairItem) -> str | None:
        """Why ``item`` cannot be scored (None = it can), decided without decoding."""
        if item.output is None:
            return "no output image"
        if self.uses_inputs and not item.inputs:
            return "no input image (text-to-image sample)"
        return None

    def params(self, settings: MetricSettings) -> dict[str, Any]:
        """Configuration that changes the value (model id, resolution, ...)."""
        return {}

    def setup(self, settings: MetricSettings) -> Any:
        """Light, model-free preparation shared by all items (e.g. preprocessing constants)."""
        return None

    def prepare(self, item: PairItem, setup: Any) -> Any:
        """Decode and resize ``item`` (runs on decode threads; numpy only)."""
        raise NotImplementedError

    def load(self, settings: MetricSettings, device: str) -> Any:
        """Load the model (on the model thread; cached by the worker)."""
        return None

    def compute(self, model: Any, prepared: list[Any], device: str) -> list[MetricResult]:
        """Score a batch of prepared items (on the model thread)."""
        raise NotImplementedError


def params_hash(metric: Metric, params: dict[str, Any]) -> str:
    """Short stable hash of a metric's configuration."""
    blob = json.dumps({"metric": metric.name, "params": params}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def inputs_hash(metric: Metric, item: PairItem) -> str:
    """Hash of everything of ``item`` that the metric's value depends on."""
    parts: dict[str, Any] = {"output": item.output.key() if item.output else None}
    if metric.uses_inputs:
        parts["inputs"] = [ref.key() for ref in item.inputs]
    if metric.uses_prompt:
        parts["prompt"] = item.prompt
        parts["text"] = item.text
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()
