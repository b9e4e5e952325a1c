"""Drill-down: input and output side by side, the prompt, and every metric value for the pair."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.metrics.detail_labels import detail_path, detail_unit
from core.metrics.imageio import MetricInputError, load_array
from core.metrics.items import collect_items
from core.metrics.store import ResultRow
from core.visible_text import shown_name
from ui.metrics.results_model import better_text

PREVIEW_SIDE = 720


def format_details(details: dict[str, Any], path: tuple[str, ...] = ()) -> str:
    """``{"b_shift": 1.23456, "hist": {"R": 0.1}}`` → ``b* shift, output − input (+ yellower)
    1.235 CIELAB units · hist R 0.1``: every key as its label (ADR 217)."""
    parts = []
    for key, value in sorted(details.items()):
        keys = (*path, str(key))
        name, unit = detail_path(keys), detail_unit(str(key))
        if isinstance(value, dict):
            inner = format_details(value, keys)
            if inner:
                parts.append(inner)
        elif isinstance(value, float):
            parts.append(f"{name} {value:.4g}{unit}")
        elif isinstance(value, list) and all(isinstance(v, float) for v in value):
            parts.append(f"{name} [{', '.join(f'{v:.4g}' for v in value)}]{unit}")
        else:
            parts.append(f"{name} {json.dumps(value, ensure_ascii=False)[:400]}")
    return "  ·  ".join(parts)


def to_qimage(arr: np.ndarray) -> QImage:
    """``(H, W, 3) uint8`` → an independent QImage."""
    arr = np.ascontiguousarray(arr)
    h, w = arr.shape[:2]
    return QImage(arr.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()


class ImagePanel(QWidget):
    """A caption and an image scaled to fit."""

    def __init__(self, caption: str) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.caption = QLabel(caption)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.image = QLabel()
        self.image.setTextFormat(Qt.TextFormat.PlainText)  # messages name files and models
        self.image.setWordWrap(True)
        self.image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image.setMinimumSize(200, 160)
        self.image.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self.image.setStyleSheet("background: palette(base); color: palette(text); "
                                 "border: 1px solid palette(mid);")
        self._pixmap: QPixmap | None = None
        layout.addWidget(self.caption)
        layout.addWidget(self.image, 1)

    def show_array(self, arr: np.ndarray | None, message: str = "") -> None:
        """The image, or ``message`` in its place (no input, a file gone, unreadable)."""
        self._pixmap = None if arr is None else QPixmap.fromImage(to_qimage(arr))
        if arr is None:
            self.image.setText(message)  # also drops the previous pixmap
        self._rescale()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._rescale()

    def _rescale(self) -> None:
        # setPixmap clears a label's text: with no image it must not run, or the
        # message ("no input: text-to-image sample", why a file cannot be read) went blank
        if self._pixmap is not None:
            self.image.setPixmap(self._pixmap.scaled(
                self.image.size(), Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation))


EMPTY = "Select a result to see the input and output side by side."
DETAIL_COLUMNS = ["Metric", "Better", "Value", "Status", "Details"]


class DrillDown(QWidget):
    """Shows one (sample, model): images side by side and a table of all its values.

    Previous/Next step through the results table (the workspace owns the order);
    "Show in Curate" asks for the sample in Curate.
    """

    step_requested = Signal(int)
    reveal_requested = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.title = QLabel(EMPTY)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        self.previous = QPushButton("◀ Previous")
        self.next = QPushButton("Next ▶")
        self.curate = QPushButton("Show in Curate")
        self.previous.clicked.connect(lambda: self.step_requested.emit(-1))
        self.next.clicked.connect(lambda: self.step_requested.emit(1))
        self.curate.clicked.connect(
            lambda: self.reveal_requested.emit(self.current[0]) if self.current else None)
        bar = QHBoxLayout()
        bar.addWidget(self.title, 1)
        for button in (self.previous, self.next, self.curate):
            button.setEnabled(False)
            bar.addWidget(button)
        self.prompt = QLabel()
        self.prompt.setTextFormat(Qt.TextFormat.PlainText)
        self.prompt.setWordWrap(True)
        self.prompt.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.input_panel = ImagePanel("Input")
        self.output_panel = ImagePanel("Output")
        images = QWidget()
        row = QHBoxLayout(images)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.input_panel, 1)
        row.addWidget(self.output_panel, 1)
        self.table = QTableWidget(0, len(DETAIL_COLUMNS))
        self.table.setHorizontalHeaderLabels(DETAIL_COLUMNS)
        self.table.horizontalHeader().setSectionResizeMode(len(DETAIL_COLUMNS) - 1,
                                                           QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(images)
        split.addWidget(self.table)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.prompt)
        layout.addWidget(split, 1)
        self.current: tuple[str, str] | None = None

    def clear(self) -> None:
        """Back to the empty prompt (e.g. another project was opened)."""
        self.current = None
        self.title.setText(EMPTY)
        self.set_position(None, 0)
        self.prompt.setText("")
        self.input_panel.caption.setText("Input")
        self.output_panel.caption.setText("Output")
        self.input_panel.show_array(None, "")
        self.output_panel.show_array(None, "")
        self.table.setRowCount(0)

    def set_position(self, row: int | None, count: int) -> None:
        """Which result of the table is shown (``row`` of ``count``): enables stepping."""
        self.previous.setEnabled(row is not None and row > 0)
        self.next.setEnabled(row is not None and row + 1 < count)
        self.curate.setEnabled(self.current is not None)
        if row is not None and self.current is not None:
            self.previous.setToolTip(f"Previous result (K) — {row} before this one")
            self.next.setToolTip(f"Next result (J) — {count - row - 1} after this one")
            self.curate.setToolTip(f"Show sample {self.current[0]} in Curate (Ctrl+G)")

    def show_pair(self, project: Any, sample_id: str, model: str, rows: list[ResultRow],
                  titles: dict[str, str], higher: dict[str, bool] | None = None) -> None:
        """Load the pair's images (through core) and list ``rows`` (all its results)."""
        self.current = (sample_id, model)
        self.title.setText(f"Sample {shown_name(sample_id)}  ·  model {shown_name(model)}")
        items = collect_items(project, [sample_id], [model]) if project is not None else []
        item = items[0] if items else None
        self.prompt.setText(f"Prompt: {item.prompt}" if item and item.prompt else "")
        if item is None:
            self.input_panel.show_array(None, "(no longer in the project)")
            self.output_panel.show_array(None, "")
        else:
            extra = len(item.inputs) - 1
            self.input_panel.caption.setText(
                "Input" + (f" (1 of {len(item.inputs)})" if extra > 0 else "")
                + (" — cropped from a screenshot" if item.inputs and item.inputs[0].bbox else ""))
            self.output_panel.caption.setText(f"Output of {shown_name(model)}")
            self._load(self.input_panel, item.inputs[0] if item.inputs else None, "(no input: "
                       "text-to-image sample)")
            self._load(self.output_panel, item.output, "(no output)")
        self.table.setRowCount(len(rows))
        for k, r in enumerate(rows):
            value = "" if r.value is None else f"{r.value:.6g}"
            detail = r.error or format_details(r.details)
            cells = (titles.get(r.metric, r.metric), better_text((higher or {}).get(r.metric)),
                     value, r.status.replace("_", " "), detail)
            for c, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                cell.setToolTip(text[:2000])
                self.table.setItem(k, c, cell)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(len(DETAIL_COLUMNS) - 1,
                                                           QHeaderView.ResizeMode.Stretch)
        self.table.resizeRowsToContents()

    @staticmethod
    def _load(panel: ImagePanel, ref: Any, missing: str) -> None:
        if ref is None:
            panel.show_array(None, missing)
            return
        try:
            panel.show_array(load_array(ref, PREVIEW_SIDE))
        except MetricInputError as exc:
            panel.show_array(None, str(exc))
