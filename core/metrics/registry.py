"""The metric registry: every metric by name, in display order."""

from __future__ import annotations

from core.metrics.base import Metric
from core.metrics.clipscore import ClipScore
from core.metrics.colour_shift import ColourShift
from core.metrics.face_identity import FaceIdentity
from core.metrics.judges import JudgeOverall, JudgeTecci, JudgeText
from core.metrics.structure import StructureDistance
from core.metrics.text_rendering import TextRendering

_METRICS: dict[str, Metric] = {}


def register(metric: Metric) -> Metric:
    """Add a metric (its ``name`` must be new)."""
    if metric.name in _METRICS:
        raise ValueError(f"metric {metric.name!r} is already registered")
    _METRICS[metric.name] = metric
    return metric


for _cls in (ColourShift, FaceIdentity, StructureDistance, ClipScore, TextRendering,
             JudgeOverall, JudgeText, JudgeTecci):
    register(_cls())

#: short names accepted on the command line
ALIASES = {"color_shift": "colour_shift", "colour": "colour_shift", "color": "colour_shift",
           "face": "face_identity", "structure": "structure_distance", "dino": "structure_distance",
           "clip": "clipscore", "ocr": "text_ocr_cer", "text": "text_ocr_cer",
           "judge": "judge_overall", "tecci": "judge_tecci"}


def all_metrics() -> list[Metric]:
    """Every registered metric, in display order."""
    return list(_METRICS.values())


def get(name: str) -> Metric:
    """The metric called ``name`` (or an alias); ValueError listing the known names."""
    key = ALIASES.get(name.strip().lower(), name.strip().lower())
    if key not in _METRICS:
        raise ValueError(f"unknown metric {name!r} (known: {', '.join(_METRICS)})")
    return _METRICS[key]


def parse_names(text: str) -> list[Metric]:
    """``"colour_shift,clip"`` → metrics (duplicates dropped, order kept)."""
    out: list[Metric] = []
    for part in text.split(","):
        if part.strip():
            metric = get(part)
            if metric not in out:
                out.append(metric)
    if not out:
        raise ValueError("no metric named")
    return out
