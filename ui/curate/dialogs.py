"""Small dialogs of the Curate workspace: export options, fill-in-the-blank confirmation."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.widgets.dialog_buttons import confirm_cancel


class ExportOptions(TypedDict):
    """What :meth:`ExportDialog.options` returns: the export's keyword arguments."""

    out_dir: Path
    qualities: tuple[str, ...]
    splits: tuple[str, ...]
    use_filter: bool
    overwrite: bool
    fmt: str


class ExportDialog(QDialog):
    """Where to export and which samples (quality labels, splits, current filter)."""

    NOTES = {"jsonl": "Writes samples.jsonl (one sample a line) and images/ with screenshot "
                      "boxes applied as crops. The folder appears complete or not at all.",
             "hf": "Writes a Hugging Face dataset: parquet shards with the images embedded "
                   "(one split per task) and a dataset card, readable by "
                   "datasets.load_dataset(folder). The folder appears complete or not "
                   "at all."}

    def __init__(self, default_dir: Path, filter_text: str, parent: QWidget | None = None,
                 hf_missing: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("Export benchmark")
        self.format = QComboBox()
        self.format.addItem("JSON Lines + images folder", "jsonl")
        self.format.addItem("Hugging Face dataset (parquet)", "hf")
        if hf_missing:  # pyarrow is not installed: say which extra brings it
            model = self.format.model()
            assert isinstance(model, QStandardItemModel)  # a combo box's own model
            hf_item = model.item(1)
            if hf_item is not None:
                hf_item.setEnabled(False)
            self.format.setItemData(1, hf_missing, Qt.ItemDataRole.ToolTipRole)
        self.folder = QLineEdit(str(default_dir))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.folder, 1)
        row.addWidget(browse)
        self.quality = {q: QCheckBox(q) for q in ("Benchmark", "Analysis", "Trash")}
        self.quality["Benchmark"].setChecked(True)
        qrow = QHBoxLayout()
        for box in self.quality.values():
            qrow.addWidget(box)
        self.splits = {s: QCheckBox(s) for s in ("text-to-image", "image-to-image")}
        srow = QHBoxLayout()
        for box in self.splits.values():
            box.setChecked(True)
            srow.addWidget(box)
        self.use_filter = QCheckBox(f"Only samples in the current list ({filter_text})")
        self.overwrite = QCheckBox("Replace the folder if it holds an earlier export")
        form = QFormLayout()
        form.addRow("Format:", self.format)
        form.addRow("Folder:", row)
        form.addRow("Quality:", qrow)
        form.addRow("Splits:", srow)
        form.addRow("", self.use_filter)
        form.addRow("", self.overwrite)
        self.note = note = QLabel(self.NOTES["jsonl"] + (f"\n{hf_missing}" if hf_missing
                                                        else ""))
        note.setWordWrap(True)
        note.setTextFormat(Qt.TextFormat.PlainText)
        self.format.currentIndexChanged.connect(self._format_changed)
        buttons = confirm_cancel(self, "Export")
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(buttons)

    def _format_changed(self) -> None:
        fmt = self.format.currentData()
        self.note.setText(self.NOTES[fmt])

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export into folder", self.folder.text())
        if folder:
            self.folder.setText(folder)

    def options(self) -> ExportOptions:
        """The chosen options as keyword arguments for the export."""
        return {
            "out_dir": Path(self.folder.text().strip()),
            "qualities": tuple(q for q, b in self.quality.items() if b.isChecked()),
            "splits": tuple(s for s, b in self.splits.items() if b.isChecked())
            if not all(b.isChecked() for b in self.splits.values()) else (),
            "use_filter": self.use_filter.isChecked(),
            "overwrite": self.overwrite.isChecked(),
            "fmt": self.format.currentData(),
        }


class FillDialog(QDialog):
    """Confirm (and edit) the prompt of a fill-in-the-blank sample before creating it."""

    def __init__(self, template: str, reply: str, proposed: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Fill in the blank")
        info = QLabel("Template and the reply that completes it; the new sample is linked to "
                      "both posts.")
        info.setWordWrap(True)
        t = QLabel(template)
        r = QLabel(reply)
        for label in (t, r):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
        self.prompt = QPlainTextEdit(proposed)
        form = QFormLayout()
        form.addRow("Template:", t)
        form.addRow("Reply:", r)
        form.addRow("New prompt:", self.prompt)
        buttons = confirm_cancel(self, "Create sample")
        layout = QVBoxLayout(self)
        layout.addWidget(info)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.resize(520, 300)
