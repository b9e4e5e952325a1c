"""Text rendering accuracy by OCR (ECHO §5; the VLM score is the ``judge_text`` metric).

Definition: the text the prompt asks for is every quoted span in it ('…', "…",
‘…’, “…”, «…»), joined by spaces; an explicit target (CLI ``--text``) overrides it.
Not applicable when there is none.  The output image (longer side at most 1600 px)
is read with RapidOCR (PP-OCR ONNX models shipped in the ``rapidocr`` package); the
recognised lines, in reading order (top to bottom, then left to right), are joined
by spaces.  Both strings are case-folded with runs of whitespace collapsed to one
space.  The value is the character error rate ``CER = Levenshtein(ocr, target) /
len(target)`` (0 = perfect; may exceed 1 when the image holds much more text; ADR
065).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from core.metrics.base import Metric, MetricResult, PairItem
from core.metrics.imageio import load_array

MAX_SIDE = 1600
DEFINITION = " ".join(__doc__.split("\n\n", 1)[1].split())

_QUOTED = re.compile(
    r"""(?<![\w'’])'([^'\n]+?)'(?![\w'])"""  # 'single', not apostrophes
    r"""|"([^"\n]+?)\""""
    r"""|‘([^’\n]+?)’(?!\w)|“([^”\n]+?)”|«([^»\n]+?)»|„([^“”\n]+?)[“”]"""
)


def target_text(prompt: str) -> str:
    """The quoted text a prompt asks to render ("" when none)."""
    spans = ["".join(groups).strip() for groups in _QUOTED.findall(prompt or "")]
    return " ".join(s for s in spans if s)


def normalise(text: str) -> str:
    """Case-fold and collapse whitespace."""
    return " ".join(text.casefold().split())


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions each cost 1)."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def cer(ocr: str, target: str) -> tuple[float, int]:
    """(character error rate, edit count) of normalised strings."""
    o, t = normalise(ocr), normalise(target)
    edits = levenshtein(o, t)
    return edits / max(1, len(t)), edits


def reading_order(lines: list[tuple[str, Any]]) -> str:
    """Join OCR lines (text, 4-point box) top to bottom, then left to right."""
    def key(line: tuple[str, Any]) -> tuple[float, float]:
        box = np.asarray(line[1], dtype=float).reshape(-1, 2)
        height = max(1.0, box[:, 1].max() - box[:, 1].min())
        return (round(box[:, 1].min() / (0.6 * height)), box[:, 0].min())
    return " ".join(text for text, _ in sorted(lines, key=key))


class OcrEngine:
    """RapidOCR with the models shipped in its package (never downloads)."""

    def __init__(self) -> None:
        import logging

        from core.onnx_runtime import onnxruntime

        onnxruntime()  # telemetry off before rapidocr imports it (ADR 230)
        from rapidocr import RapidOCR

        self.engine = RapidOCR()
        # "The text detection result is empty" was a warning on stderr for every output
        # without text: the normal answer (CER 1), nothing a user could act on
        logging.getLogger("RapidOCR").setLevel(logging.ERROR)

    def read(self, img: np.ndarray) -> list[tuple[str, Any]]:
        out = self.engine(img)
        texts = getattr(out, "txts", None) or ()
        boxes = getattr(out, "boxes", None)
        if boxes is None:
            return []
        return [(str(t), b) for t, b in zip(texts, boxes, strict=False)]


class TextRendering(Metric):
    """See the module docstring."""

    name = "text_ocr_cer"
    title = "Text rendering (OCR CER)"
    version = 1
    definition = DEFINITION
    higher_is_better = False
    uses_prompt = True
    uses_inputs = False
    model_based = True
    batch_size = 4

    def applicable(self, item: PairItem) -> str | None:
        if item.output is None:
            return "no output image"
        if not (item.text or target_text(item.prompt)):
            return "the prompt quotes no text to render"
        return None

    def params(self, settings: Any) -> dict[str, Any]:
        return {"ocr": "rapidocr-ppocr"}

    def prepare(self, item: PairItem, setup: Any) -> tuple[str, np.ndarray]:
        assert item.output is not None
        return (item.text or target_text(item.prompt)), load_array(item.output, MAX_SIDE)

    def load(self, settings: Any, device: str) -> OcrEngine:
        return OcrEngine()

    def compute(self, model: OcrEngine, prepared: list[Any], device: str) -> list[MetricResult]:
        results = []
        for target, img in prepared:
            text = reading_order(model.read(img))
            rate, edits = cer(text, target)
            results.append(MetricResult.ok(rate, target=target, ocr=text, edits=edits))
        return results
