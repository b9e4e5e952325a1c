"""What a metric's detail keys mean, for people: ``b_shift`` → "b* shift (output − input)".

A metric stores its secondary values under short keys (:class:`core.metrics.base.MetricResult`
``details``); exported files keep those keys (``colour_shift/b_shift``), while the Metrics
workspace shows these labels and units (ADR 217).  A key not listed here is shown as it is.
"""

from __future__ import annotations

#: key → (label, unit); the unit follows the value ("" when it has none)
LABELS: dict[str, tuple[str, str]] = {
    # colour shift (ADR 061): CIELAB differences output − input
    "b_shift": ("b* shift, output − input (+ yellower)", " CIELAB units"),
    "a_shift": ("a* shift, output − input (+ redder)", " CIELAB units"),
    "L_shift": ("L* shift, output − input (+ lighter)", " CIELAB units"),
    "histogram_distance": ("histogram distance (0 same, 1 disjoint)", ""),
    "mean_lab_input": ("mean L*a*b* of the input", ""),
    "mean_lab_output": ("mean L*a*b* of the output", ""),
    # CLIPScore, face identity, structure
    "cosine": ("cosine similarity", ""),
    "truncated": ("prompt cut to the text encoder's length", ""),
    "input_faces": ("faces in the input", ""),
    "output_faces": ("faces in the output", ""),
    "best_pair": ("closest faces (input, output)", ""),
    "frobenius": ("Frobenius distance", ""),
    "mse": ("mean squared difference", ""),
    "tokens": ("ViT tokens compared", ""),
    # text rendering
    "target": ("text asked for", ""),
    "ocr": ("text read (OCR)", ""),
    "edits": ("character edits", ""),
    # VLM judges
    "criteria": ("criteria", ""),
    "IF": ("instruction following (IF)", " of 5"),
    "IC": ("image consistency (IC)", " of 5"),
    "VQ": ("visual quality (VQ)", " of 5"),
    "judges": ("judge", ""),
    "errors": ("errors", ""),
    "runs": ("runs", ""),
    "invalid_runs": ("runs finding the instruction invalid", ""),
    "unanswered": ("unanswered", ""),
    "reasoning": ("reasoning", ""),
    "score": ("score", ""),
    "reason": ("reason", ""),
}


def detail_label(key: str) -> str:
    """The label of one detail key (the key itself when unknown)."""
    return LABELS.get(key, (key, ""))[0]


def detail_unit(key: str) -> str:
    """The unit shown after a value of ``key`` (with its leading space), or ""."""
    return LABELS.get(key, (key, ""))[1]


def detail_path(keys: tuple[str, ...]) -> str:
    """A nested key as words: ``("histogram_distance", "R")`` → "histogram distance (0
    same, 1 disjoint) R"; ``("criteria", "IF")`` → "instruction following (IF)" (the
    group's name says nothing the criterion's does not)."""
    words = [detail_label(k) for k in keys]
    if len(keys) > 1 and keys[0] == "criteria":
        words = words[1:]
    return " ".join(words)
