"""The Metrics workspace's "Details" says what each value is, in words and units; exported
files keep the keys (ADR 217).  It showed ``b_shift 4.2, cosine 0.93``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from core.metrics.colour_shift import colour_shift  # noqa: E402
from core.metrics.detail_labels import LABELS  # noqa: E402
from core.metrics.store import ResultRow, sub_values  # noqa: E402
from ui.metrics.drilldown import format_details  # noqa: E402
from ui.metrics.results_model import ResultsModel, details_text  # noqa: E402


def _row(metric: str, details: dict, model: str = "m", status: str = "ok") -> ResultRow:  # type: ignore[type-arg]
    return ResultRow("s1", model, metric, status, 1.0, details, None, 1, {}, "", "", None)


def _colour_details() -> dict:  # type: ignore[type-arg]
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)
    yellow = np.clip(image.astype(int) + [30, 30, -30], 0, 255).astype(np.uint8)
    return colour_shift(image, yellow).details


def test_every_colour_shift_key_has_a_label() -> None:
    assert set(_colour_details()) <= set(LABELS)


def test_details_column_shows_labels_and_units() -> None:
    text = details_text(_row("colour_shift", _colour_details()))
    assert "b* shift, output − input (+ yellower)" in text and "CIELAB units" in text
    assert "b_shift" not in text
    tecci = details_text(_row("judge_tecci", {"criteria": {"IF": 4.2, "IC": 3.0, "VQ": 5.0}}))
    assert "instruction following (IF) 4.2 of 5" in tecci and "IF 4.2" not in tecci
    ocr = details_text(_row("text_rendering", {"target": "OPEN", "ocr": "0PEN", "edits": 1}))
    assert "text asked for OPEN" in ocr and "text read (OCR) 0PEN" in ocr


def test_drill_down_details_show_labels_nested_and_unknown_keys() -> None:
    text = format_details({**_colour_details(), "new_key": 2.5})
    assert "histogram distance (0 same, 1 disjoint) R" in text
    assert "mean L*a*b* of the input [" in text
    assert "b_shift" not in text and "histogram_distance" not in text
    assert "new_key 2.5" in text  # a key nobody labelled yet is shown as it is


def test_exports_keep_the_raw_keys() -> None:
    assert "b_shift" in sub_values(_row("colour_shift", _colour_details()))


def test_results_table_spells_edge_spaces_in_model_names(qapp) -> None:  # type: ignore[no-untyped-def]
    model = ResultsModel()
    model.set_rows([_row("colour_shift", {}, "A"), _row("colour_shift", {}, "A ")], {})
    shown = {model.data(model.index(r, 1)) for r in range(2)}
    assert shown == {"A", "A⟨U+0020⟩"}
