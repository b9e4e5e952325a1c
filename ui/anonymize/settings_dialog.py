"""Detection settings (thresholds, growth margins, detectors), kept in QSettings."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QSpinBox,
    QWidget,
)

from core.imaging.detect import FACE_DETECTORS, DetectSettings

KEY = "anonymize/detect_settings"


def load_settings() -> DetectSettings:
    """The user's detection settings (defaults where unset)."""
    raw = QSettings().value(KEY, "")
    try:
        data = json.loads(raw) if isinstance(raw, str) and raw else {}
    except ValueError:
        data = {}
    return DetectSettings.from_json(data)


def save_settings(settings: DetectSettings) -> None:
    """Persist ``settings``."""
    QSettings().setValue(KEY, json.dumps(settings.to_json()))


class DetectSettingsDialog(QDialog):
    """Edit thresholds and margins."""

    def __init__(self, settings: DetectSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Detection settings")
        form = QFormLayout(self)
        self.detector = QComboBox()
        self.detector.addItems(list(FACE_DETECTORS))
        self.detector.setCurrentText(settings.face_detector)
        form.addRow("Face detector:", self.detector)
        self.spins: dict[str, Any] = {}
        rows = (("face_threshold", "CenterFace threshold", 0.05, 0.95, 0.05),
                ("hog_threshold", "HOG threshold", -1.0, 2.0, 0.1),
                ("face_margin", "Face margin, each side (× width)", 0.0, 1.0, 0.05),
                ("face_margin_top", "Face margin, top (× height)", 0.0, 1.0, 0.05),
                ("face_margin_bottom", "Face margin, bottom (× height)", 0.0, 1.0, 0.05),
                ("min_face_px", "Smallest face in big photos (px)", 8, 200, 1),
                ("verify_outside_threshold", "Release check: unhidden face score", 0.1,
                 0.99, 0.05),
                ("plate_threshold", "Plate text threshold", 0.1, 0.95, 0.05),
                ("plate_margin_x", "Plate margin, each side (× width)", 0.0, 1.0, 0.05),
                ("plate_margin_y", "Plate margin, top/bottom (× height)", 0.0, 2.0, 0.05))
        for key, label, lo, hi, step in rows:
            value = getattr(settings, key)
            spin: QSpinBox | QDoubleSpinBox
            if isinstance(value, int):
                spin = QSpinBox()
                spin.setRange(int(lo), int(hi))
                spin.setSingleStep(int(step))
            else:
                spin = QDoubleSpinBox()
                spin.setRange(lo, hi)
                spin.setSingleStep(step)
            spin.setValue(value)
            self.spins[key] = spin
            form.addRow(label + ":", spin)
        self.plates = QCheckBox("Look for licence plates")
        self.plates.setChecked(settings.plates)
        form.addRow(self.plates)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel
                                   | QDialogButtonBox.StandardButton.RestoreDefaults)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(
            self._defaults)
        form.addRow(buttons)

    def _defaults(self) -> None:
        default = DetectSettings()
        self.detector.setCurrentText(default.face_detector)
        for key, spin in self.spins.items():
            spin.setValue(getattr(default, key))
        self.plates.setChecked(default.plates)

    def result_settings(self) -> DetectSettings:
        """The settings as edited."""
        data = {key: spin.value() for key, spin in self.spins.items()}
        data["face_detector"] = self.detector.currentText()
        data["plates"] = self.plates.isChecked()
        return DetectSettings.from_json(data)
