"""The detection settings in use, and the banner shown when the face model is missing
(ADR 040: never detect silently with nothing)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from core import extras
from core.imaging import faces
from core.imaging.detect import DetectSettings
from ui.anonymize.settings_dialog import DetectSettingsDialog, load_settings, save_settings
from ui.context import AppContext
from ui.widgets.theme import set_tone


class DetectorBanner(QFrame):
    """Holds the user's :class:`DetectSettings`; visible while CenterFace is missing."""

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.settings: DetectSettings = load_settings()
        set_tone(self, "warning", border=True)
        layout = QHBoxLayout(self)
        self.text = QLabel()
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setWordWrap(True)
        self.button = QPushButton("Use the fallback detector (HOG)")
        self.button.clicked.connect(self.use_fallback)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.button)
        self._dialog: DetectSettingsDialog | None = None

    def update_banner(self) -> None:
        """Show or hide the banner for the settings and the installed models."""
        if not extras.available("anonymize"):
            self.setVisible(True)
            self.text.setText(extras.missing_message("anonymize"))
            self.button.hide()
            return
        missing = not faces.centerface_available()
        self.setVisible(missing)
        if not missing:
            return
        if self.settings.face_detector == "hog":
            self.text.setText(
                "The CenterFace face model is not installed, so faces are found with the "
                "fallback detector (dlib HOG): it finds frontal faces only and misses turned "
                "heads — check every photo carefully. " + faces.SETUP_HINT)
            self.button.hide()
        else:
            self.text.setText(
                "The CenterFace face model is not installed: automatic face detection is "
                "off until you choose the fallback detector (frontal faces only). "
                + faces.SETUP_HINT)
            self.button.show()

    def use_fallback(self) -> None:
        """Switch face detection to dlib HOG."""
        self.settings.face_detector = "hog"
        save_settings(self.settings)
        self.update_banner()

    def edit_settings(self) -> None:
        """Open the detection settings dialog (non-modal)."""
        dialog = DetectSettingsDialog(self.settings, self.window())
        dialog.finished.connect(lambda code: self._settings_done(dialog, code))
        self._dialog = dialog
        dialog.open()

    def _settings_done(self, dialog: DetectSettingsDialog, code: int) -> None:
        if code:
            self.settings = dialog.result_settings()
            save_settings(self.settings)
            self.update_banner()

    def ready(self) -> bool:
        """True when detection can run with the chosen detector (else says why)."""
        if not self.extra_ready("Face and plate detection"):
            return False
        if "centerface" in self.settings.face_detector and not faces.centerface_available():
            self.context.refuse("Face model missing", self.text.text())
            return False
        return True

    def extra_ready(self, what: str) -> bool:
        """False (and the install command) when the ``anonymize`` extra is missing."""
        if extras.available("anonymize"):
            return True
        self.context.refuse("Anonymization is not installed",
                            extras.missing_message("anonymize", what))
        return False
