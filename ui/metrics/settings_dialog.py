"""Metrics settings: model folders / hub ids, device options, judge endpoint.

Stored in the user's QSettings (never in the project file).  The judge API key is
taken from ``WINNOW_JUDGE_API_KEY`` when set, else from QSettings.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.metrics.models import model_status
from core.metrics.settings import (
    CLIP_MODEL_TYPE,
    DEFAULT_CLIP,
    DEFAULT_DINO,
    DINO_MODEL_TYPE,
    KEY_ENV,
    MetricSettings,
    judges_from_text,
)
from ui.widgets.dialog_buttons import confirm_cancel
from ui.widgets.theme import set_tone

PREFIX = "metrics/"
#: key -> (default, type)
FIELDS: dict[str, tuple[Any, type]] = {
    "clip_model": (DEFAULT_CLIP, str), "dino_model": (DEFAULT_DINO, str),
    "dino_resolution": (224, int), "face_onnx": ("", str), "cpu_threads": (0, int),
    "batch_size": (0, int), "judge_url": ("", str), "judge_models": ("", str),
    "judge_key": ("", str), "judge_repeats": (5, int), "judge_timeout": (120.0, float),
    "judge_concurrency": (4, int),
}


def read_values(prefix: str = PREFIX,
                fields: dict[str, tuple[Any, type]] | None = None) -> dict[str, Any]:
    """Current values of ``fields`` under ``prefix`` in QSettings (defaults where unset);
    the metrics settings unless told otherwise (the proposal endpoint shares it)."""
    s = QSettings()
    out = {}
    for key, (default, typ) in (FIELDS if fields is None else fields).items():
        value = s.value(prefix + key, default)
        try:
            out[key] = typ(value) if value not in (None, "") else default
        except (TypeError, ValueError):
            out[key] = default
    return out


def write_values(values: dict[str, Any], prefix: str = PREFIX,
                 fields: dict[str, tuple[Any, type]] | None = None) -> None:
    """Store ``values`` (those named in ``fields``) under ``prefix`` in QSettings."""
    s = QSettings()
    for key in FIELDS if fields is None else fields:
        if key in values:
            s.setValue(prefix + key, values[key])
    s.sync()


def load_settings(device: str = "auto") -> MetricSettings:
    """A :class:`MetricSettings` from QSettings (key from the environment first)."""
    import os

    v = read_values()
    key = os.environ.get(KEY_ENV) or v["judge_key"] or None
    judges = judges_from_text(v["judge_url"], v["judge_models"], key,
                              timeout=v["judge_timeout"], concurrency=v["judge_concurrency"])
    return MetricSettings(
        clip_model=v["clip_model"] or DEFAULT_CLIP, dino_model=v["dino_model"] or DEFAULT_DINO,
        dino_resolution=v["dino_resolution"], face_onnx=v["face_onnx"] or None, device=device,
        cpu_threads=v["cpu_threads"] or None, batch_size=v["batch_size"] or None,
        judges=judges, judge_repeats=v["judge_repeats"])


class MetricsSettingsDialog(QDialog):
    """Edit the metrics settings; Save writes QSettings."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Metrics settings")
        self.setMinimumWidth(560)
        v = read_values()
        self.clip = self._path_row(v["clip_model"], folder=True)
        self.dino = self._path_row(v["dino_model"], folder=True)
        self.face = self._path_row(v["face_onnx"], folder=False)
        self.resolution = _spin(v["dino_resolution"], 32, 1024, 8)
        self.threads = _spin(v["cpu_threads"], 0, 256, 1, "auto (cores − 1)")
        self.batch = _spin(v["batch_size"], 0, 512, 1, "metric default")
        self.url = QLineEdit(v["judge_url"])
        self.url.setPlaceholderText("http://localhost:8000/v1")
        self.models = QLineEdit(v["judge_models"])
        self.models.setPlaceholderText("comma-separated: qwen2.5-vl-32b, gpt-4o, …")
        self.key = QLineEdit(v["judge_key"])
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText(f"or set {KEY_ENV}")
        self.repeats = _spin(v["judge_repeats"], 1, 20, 1)
        self.concurrency = _spin(v["judge_concurrency"], 1, 64, 1)
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(1, 3600)
        self.timeout.setValue(v["judge_timeout"])
        self.timeout.setSuffix(" s")

        models = QGroupBox("Models (a local folder, or a Hugging Face id already in the cache)")
        form = QFormLayout(models)
        self.clip_status = self._status_label(self.clip[1], CLIP_MODEL_TYPE)
        self.dino_status = self._status_label(self.dino[1], DINO_MODEL_TYPE)
        form.addRow("CLIP (CLIPScore):", self.clip[0])
        form.addRow("", self.clip_status)
        form.addRow("DINO ViT (structure):", self.dino[0])
        form.addRow("", self.dino_status)
        form.addRow("DINO resolution:", self.resolution)
        form.addRow("Face embedder ONNX:", self.face[0])
        form.addRow("CPU threads:", self.threads)
        form.addRow("Batch size:", self.batch)
        note = QLabel("Weights are never downloaded. Empty face model = dlib ResNet (bundled).")
        note.setWordWrap(True)
        form.addRow(note)
        judges = QGroupBox("VLM judges (OpenAI-compatible endpoint)")
        jform = QFormLayout(judges)
        jform.addRow("Base URL:", self.url)
        jform.addRow("Judge models:", self.models)
        jform.addRow("API key:", self.key)
        jform.addRow("TECCI repeats:", self.repeats)
        jform.addRow("Parallel requests:", self.concurrency)
        jform.addRow("Timeout:", self.timeout)
        key_note = QLabel("The key is kept in your user settings, never in the project file.")
        key_note.setWordWrap(True)
        jform.addRow(key_note)
        buttons = confirm_cancel(self, None, self.save, QDialogButtonBox.StandardButton.Save)
        layout = QVBoxLayout(self)
        layout.addWidget(models)
        layout.addWidget(judges)
        layout.addWidget(buttons)

    def _status_label(self, edit: QLineEdit, expected: str) -> QLabel:
        """A line under a model field saying whether the model can be loaded offline
        and is of the ``expected`` type."""
        label = QLabel()
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)

        def update() -> None:
            found, why = model_status(edit.text(), expected)
            label.setText(("✓ " if found else "✗ ") + why)
            set_tone(label, "success" if found else "danger", text_only=True)
            label.setProperty("found", found)

        edit.textChanged.connect(update)
        update()
        return label

    def _path_row(self, value: str, folder: bool) -> tuple[QWidget, QLineEdit]:
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        edit = QLineEdit(value)
        browse = QPushButton("Browse…")
        browse.clicked.connect(lambda: self._browse(edit, folder))
        row.addWidget(edit, 1)
        row.addWidget(browse)
        return box, edit

    def _browse(self, edit: QLineEdit, folder: bool) -> None:
        if folder:
            path = QFileDialog.getExistingDirectory(self, "Model folder", edit.text())
        else:
            path, _ = QFileDialog.getOpenFileName(self, "ONNX model", edit.text(),
                                                  "ONNX models (*.onnx)")
        if path:
            edit.setText(path)

    def values(self) -> dict[str, Any]:
        return {"clip_model": self.clip[1].text().strip(), "dino_model": self.dino[1].text().strip(),
                "dino_resolution": self.resolution.value(), "face_onnx": self.face[1].text().strip(),
                "cpu_threads": self.threads.value(), "batch_size": self.batch.value(),
                "judge_url": self.url.text().strip(), "judge_models": self.models.text().strip(),
                "judge_key": self.key.text(), "judge_repeats": self.repeats.value(),
                "judge_timeout": self.timeout.value(),
                "judge_concurrency": self.concurrency.value()}

    def save(self) -> None:
        values = self.values()
        if values["judge_models"] and not values["judge_url"]:
            self.url.setFocus()
            self.url.setPlaceholderText("a judge model needs an endpoint URL")
            return
        write_values(values)
        self.accept()


def _spin(value: int, lo: int, hi: int, step: int, special: str = "") -> QSpinBox:
    box = QSpinBox()
    box.setRange(lo, hi)
    box.setSingleStep(step)
    box.setValue(int(value))
    if special:
        box.setSpecialValueText(special)
    return box
