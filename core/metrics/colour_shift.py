"""Colour shift (ECHO §5): histogram distance between input and output, and the Lab b* shift.

Definition (ADR 061).  Both images are decoded to sRGB and downscaled so the longer
side is at most 512 px (histograms are normalised, so sizes need not match).  For
each channel R, G, B a 32-bin histogram over 0..255 is normalised to sum to 1; the
channel distance is the total-variation distance ``½ Σ |h_in − h_out|`` (0 = same
distribution, 1 = disjoint).  The value is the mean over the three channels, in
[0, 1].  Details add the mean CIE L*, a*, b* (D65) differences output − input; a
positive ``b_shift`` is the "yellow tint" users complained about.  The first input
image is the reference.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.metrics.base import Metric, MetricResult, PairItem
from core.metrics.imageio import load_array

BINS = 32
MAX_SIDE = 512
DEFINITION = " ".join(__doc__.split("Definition (ADR 061).")[1].split())

# sRGB (D65) → XYZ, IEC 61966-2-1
_M = np.array([[0.4124564, 0.3575761, 0.1804375],
               [0.2126729, 0.7151522, 0.0721750],
               [0.0193339, 0.1191920, 0.9503041]])
_WHITE = np.array([0.95047, 1.0, 1.08883])
_V = np.arange(256) / 255.0
_LINEAR = np.where(_V <= 0.04045, _V / 12.92, ((_V + 0.055) / 1.055) ** 2.4)


def srgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """``(..., 3)`` uint8 or [0, 1] float sRGB → CIE Lab (D65), float64."""
    raw = np.asarray(rgb)
    if np.issubdtype(raw.dtype, np.integer):  # lookup table: 256 values per channel
        lin = _LINEAR[raw]
    else:
        x = raw.astype(np.float64)
        lin = np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)
    xyz = lin @ (_M.T / _WHITE)
    eps, kappa = 216 / 24389, 24389 / 27
    f = np.where(xyz > eps, np.cbrt(xyz), (kappa * xyz + 16) / 116)
    lab: np.ndarray = np.empty_like(f)
    lab[..., 0] = 116 * f[..., 1] - 16
    lab[..., 1] = 500 * (f[..., 0] - f[..., 1])
    lab[..., 2] = 200 * (f[..., 1] - f[..., 2])
    return lab


def channel_histograms(rgb: np.ndarray, bins: int = BINS) -> np.ndarray:
    """``(3, bins)`` normalised per-channel histograms of an ``(H, W, 3)`` uint8 image."""
    flat = rgb.reshape(-1, 3)
    idx = (flat.astype(np.int64) * bins) // 256
    hist = np.stack([np.bincount(idx[:, c], minlength=bins) for c in range(3)]).astype(float)
    return hist / max(1, flat.shape[0])


def colour_shift(inp: np.ndarray, out: np.ndarray) -> MetricResult:
    """The metric on two decoded RGB arrays."""
    h_in, h_out = channel_histograms(inp), channel_histograms(out)
    per_channel = 0.5 * np.abs(h_in - h_out).sum(axis=1)
    lab_in = srgb_to_lab(inp).reshape(-1, 3).mean(axis=0)
    lab_out = srgb_to_lab(out).reshape(-1, 3).mean(axis=0)
    d = lab_out - lab_in
    return MetricResult.ok(
        float(per_channel.mean()),
        histogram_distance={"R": float(per_channel[0]), "G": float(per_channel[1]),
                            "B": float(per_channel[2])},
        b_shift=float(d[2]), a_shift=float(d[1]), L_shift=float(d[0]),
        mean_lab_input=[float(v) for v in lab_in],
        mean_lab_output=[float(v) for v in lab_out],
    )


class ColourShift(Metric):
    """See the module docstring."""

    name = "colour_shift"
    title = "Colour shift"
    version = 1
    definition = DEFINITION
    higher_is_better = False
    batch_size = 8

    def prepare(self, item: PairItem, setup: Any) -> MetricResult:
        # pure numpy (releases the GIL): computed on the decode threads, in parallel
        assert item.output is not None
        return colour_shift(load_array(item.inputs[0], MAX_SIDE),
                            load_array(item.output, MAX_SIDE))

    def compute(self, model: Any, prepared: list[Any], device: str) -> list[MetricResult]:
        return list(prepared)
