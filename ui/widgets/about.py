"""Help → About Winnow: version, runtime, and the licences of bundled models and libraries."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)


class AboutDialog(QDialog):
    """What Winnow is, which version runs, and the third-party notices (Markdown)."""

    def __init__(self, version: str, runtime: str, notices_markdown: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About Winnow")
        self.resize(640, 560)
        heading = QLabel(f"Winnow {version}")
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        heading.setFont(font)
        heading.setTextFormat(Qt.TextFormat.PlainText)
        purpose = QLabel("Curate, anonymize, rate and analyse image-generation benchmarks "
                         "built from real-world evidence.")
        purpose.setWordWrap(True)
        self.runtime = QLabel(runtime)
        self.runtime.setTextFormat(Qt.TextFormat.PlainText)
        self.runtime.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.runtime.setWordWrap(True)
        self.notices = QTextBrowser()
        self.notices.setOpenExternalLinks(True)
        self.notices.setMarkdown(notices_markdown)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy Version Info", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(
            f"Winnow {version}\n{runtime}"))
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(purpose)
        layout.addWidget(self.runtime)
        layout.addWidget(QLabel("Licences of the bundled models and libraries:"))
        layout.addWidget(self.notices, 1)
        layout.addWidget(buttons)
