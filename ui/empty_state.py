"""A workspace page that says what the workspace is for before it has content."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget


class EmptyState(QWidget):
    """Title, purpose, what the user will be able to do, and buttons to start."""

    def __init__(self, title: str, purpose: str, bullets: list[str],
                 actions: list[QAction] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 40, 48, 40)
        layout.setSpacing(12)
        heading = QLabel(title)
        heading.setObjectName("emptyTitle")
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.8)
        font.setBold(True)
        heading.setFont(font)
        body = QLabel(purpose)
        body.setWordWrap(True)
        body.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(heading)
        layout.addWidget(body)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        if bullets:
            self.details.setText("\n".join(f"•  {b}" for b in bullets))
        layout.addWidget(self.details)
        self.buttons: list[QPushButton] = []
        for action in actions or []:
            button = QPushButton(action.text().replace("&", ""))
            button.setToolTip(action.toolTip())
            button.clicked.connect(action.trigger)
            button.setMaximumWidth(280)
            layout.addWidget(button)
            self.buttons.append(button)
        self.extra = QVBoxLayout()  # room for a page's own content under the buttons
        layout.addLayout(self.extra)
        layout.addStretch(1)

    def add_project_actions(self, actions: list[QAction]) -> QWidget:
        """A row of buttons to create or open a project, for a page that needs one: shown
        while no project is open (:meth:`set_project_open`)."""
        self.project_row = QWidget()
        row = QHBoxLayout(self.project_row)
        row.setContentsMargins(0, 8, 0, 0)
        for action in actions:
            button = QPushButton(action.text().replace("&", ""))
            button.setToolTip(action.toolTip())
            button.clicked.connect(action.trigger)
            row.addWidget(button)
        row.addStretch(1)
        self.extra.insertWidget(0, self.project_row)
        return self.project_row

    def set_project_open(self, is_open: bool) -> None:
        """Hide the project buttons once a project is open."""
        row = getattr(self, "project_row", None)
        if row is not None:
            row.setVisible(not is_open)
