"""Edit the proposal templates: one kind at a time, every saved version listed.

Saving a changed text makes a new version (the table is append-only), so proposals
made with an earlier version keep pointing at the text they were made with.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.propose.kinds import KIND_TITLES, KINDS
from core.propose.templates import (
    PLACEHOLDERS,
    Template,
    builtin,
    save_version,
    unknown_placeholders,
    versions,
)


class TemplateDialog(QDialog):
    """Kinds on the left; the chosen version's texts on the right; Save as New Version."""

    def __init__(self, project: Any, parent: QWidget | None = None,
                 report: Any = None) -> None:
        super().__init__(parent)
        self.project = project
        self.report = report or (lambda title, text: None)
        self.setWindowTitle("Proposal templates")
        self.kinds = QListWidget()
        for kind in KINDS:
            self.kinds.addItem(KIND_TITLES[kind])
        self.kinds.setMaximumWidth(230)
        self.version = QComboBox()
        self.system = QPlainTextEdit()
        self.system.setMaximumHeight(90)
        self.user = QPlainTextEdit()
        self.note = QLineEdit()
        self.note.setPlaceholderText("What changed (kept with the version)")
        self.info = QLabel()
        self.info.setTextFormat(Qt.TextFormat.PlainText)
        self.info.setWordWrap(True)
        self.save = QPushButton("Save as New Version")
        self.save.clicked.connect(self._save)
        restore = QPushButton("Restore Built-in Text")
        restore.setToolTip("Put the built-in text in the editor (saving makes it a new version)")
        restore.clicked.connect(self._restore)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        form = QFormLayout()
        form.addRow("Version:", self.version)
        form.addRow("System:", self.system)
        form.addRow("Instruction:", self.user)
        form.addRow("Note:", self.note)
        buttons = QHBoxLayout()
        buttons.addWidget(restore)
        buttons.addStretch(1)
        buttons.addWidget(self.save)
        buttons.addWidget(close)
        right = QVBoxLayout()
        right.addLayout(form)
        right.addWidget(self.info)
        right.addLayout(buttons)
        layout = QHBoxLayout(self)
        layout.addWidget(self.kinds)
        layout.addLayout(right, 1)
        self._versions: list[Template] = []
        self.kinds.currentRowChanged.connect(lambda _r: self._load_kind())
        self.version.currentIndexChanged.connect(lambda _i: self._show_version())
        self.system.textChanged.connect(self._changed)
        self.user.textChanged.connect(self._changed)
        self.save.setEnabled(False)
        if project is None or project.readonly:
            self.save.setEnabled(False)
            self.system.setReadOnly(True)
            self.user.setReadOnly(True)
        self.kinds.setCurrentRow(0)
        self.resize(900, 560)

    @property
    def kind(self) -> str:
        return KINDS[max(0, self.kinds.currentRow())]

    def _load_kind(self) -> None:
        self._versions = versions(self.project, self.kind)
        self.version.blockSignals(True)
        self.version.clear()
        for t in self._versions:
            when = t.created_at[:16].replace("T", " ") if t.created_at else "not saved yet"
            self.version.addItem(f"v{t.version} — {when} {t.note}".strip())
        self.version.blockSignals(False)
        self.version.setCurrentIndex(0)
        self._show_version()

    def _show_version(self) -> None:
        k = self.version.currentIndex()
        if not 0 <= k < len(self._versions):
            return
        t = self._versions[k]
        for edit, text in ((self.system, t.system), (self.user, t.user)):
            edit.blockSignals(True)
            edit.setPlainText(text)
            edit.blockSignals(False)
        self._changed()

    def _changed(self) -> None:
        current = self._versions[0] if self._versions else builtin(self.kind)
        edited = (self.system.toPlainText(), self.user.toPlainText()) != (current.system,
                                                                         current.user)
        typos = unknown_placeholders(self.system.toPlainText() + self.user.toPlainText())
        text = "Placeholders: " + ", ".join("{" + p + "}" for p in PLACEHOLDERS) + "."
        if typos:
            text += "  Not a placeholder (typo?): " + ", ".join("{" + t + "}" for t in typos)
        self.info.setText(text)
        writable = self.project is not None and not self.project.readonly
        self.save.setEnabled(edited and writable)

    def _restore(self) -> None:
        t = builtin(self.kind)
        self.system.setPlainText(t.system)
        self.user.setPlainText(t.user)

    def _save(self) -> None:
        try:
            saved = save_version(self.project, self.kind, self.system.toPlainText(),
                                 self.user.toPlainText(), self.note.text().strip())
        except Exception as exc:  # noqa: BLE001 - ValueError or a ProjectError: shown
            self.report("Template not saved", str(exc))
            return
        self.note.clear()
        self._load_kind()
        self.info.setText(f"Saved as version {saved.version}. The next run uses it; "
                          "earlier proposals keep their version.")
