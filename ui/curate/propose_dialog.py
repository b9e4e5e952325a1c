"""Propose…: which endpoint and model, which kinds, which posts.

The endpoint settings live in the user's QSettings (``propose/``), like the judges';
the API key is never stored there nor in the project: it comes from
``WINNOW_PROPOSE_API_KEY`` or the OS keyring ("Keep in Keyring" stores what is typed).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.propose.client import STRUCTURED_MODES, ProposeEndpoint
from core.propose.kinds import KIND_TITLES, KINDS
from core.propose.secrets import KEY_ENV, KeyStoreError, api_key, store_key
from ui.metrics import settings_dialog
from ui.widgets.dialog_buttons import confirm_cancel

PREFIX = "propose/"
FIELDS: dict[str, tuple[Any, type]] = {
    "url": ("", str), "model": ("", str), "concurrency": (8, int), "timeout": (120.0, float),
    "max_tokens": (1024, int), "structured": ("auto", str), "price_in": (0.0, float),
    "price_out": (0.0, float), "kinds": (",".join(KINDS), str),
}


def read_values() -> dict[str, Any]:
    """The saved endpoint settings (defaults where unset)."""
    return settings_dialog.read_values(PREFIX, FIELDS)


def write_values(values: dict[str, Any]) -> None:
    """Save the endpoint settings (never the key)."""
    settings_dialog.write_values(values, PREFIX, FIELDS)


class ProposeDialog(QDialog):
    """Choose endpoint, kinds and posts; ``accepted`` then :meth:`endpoint` / :meth:`kinds`."""

    def __init__(self, n_posts: int, parent: QWidget | None = None,
                 templates: Any = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Propose samples with a model")
        v = read_values()
        self.url = QLineEdit(v["url"])
        self.url.setPlaceholderText("http://localhost:8000/v1  (vLLM, llama.cpp, Ollama, …)")
        self.model = QLineEdit(v["model"])
        self.model.setPlaceholderText("e.g. Qwen/Qwen2.5-VL-7B-Instruct")
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_note = QLabel()
        self.key_note.setTextFormat(Qt.TextFormat.PlainText)
        self.key_note.setWordWrap(True)
        keep = QPushButton("Keep in Keyring")
        keep.setToolTip("Store the key typed here in the OS keyring for this URL (never in "
                        "the project)")
        keep.clicked.connect(self._keep_key)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key, 1)
        key_row.addWidget(keep)
        self.concurrency = QSpinBox()
        self.concurrency.setRange(1, 512)
        self.concurrency.setValue(v["concurrency"])
        self.concurrency.setToolTip("Requests in flight at once: 4–16 for one local GPU, "
                                    "more for a vLLM deployment")
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(1, 3600)
        self.timeout.setValue(v["timeout"])
        self.timeout.setSuffix(" s")
        self.structured = QComboBox()
        for mode in STRUCTURED_MODES:
            self.structured.addItem(mode, mode)
        self.structured.setCurrentIndex(max(0, self.structured.findData(v["structured"])))
        self.structured.setToolTip("Structured outputs: auto tries a JSON schema, then JSON "
                                   "mode, then none. Winnow validates every answer anyway.")
        self.price_in, self.price_out = _price(v["price_in"]), _price(v["price_out"])
        endpoint = QGroupBox("Endpoint (OpenAI-compatible chat completions)")
        form = QFormLayout(endpoint)
        form.addRow("Base URL:", self.url)
        form.addRow("Model:", self.model)
        form.addRow("API key:", key_row)
        form.addRow("", self.key_note)
        form.addRow("Parallel requests:", self.concurrency)
        form.addRow("Timeout:", self.timeout)
        form.addRow("Structured outputs:", self.structured)
        prices = QHBoxLayout()
        prices.addWidget(self.price_in)
        prices.addWidget(QLabel("in,"))
        prices.addWidget(self.price_out)
        prices.addWidget(QLabel("out per million tokens (when the server reports no cost)"))
        form.addRow("Price:", prices)
        chosen = set(v["kinds"].split(","))
        self.kind_boxes = {k: QCheckBox(KIND_TITLES[k]) for k in KINDS}
        kinds = QGroupBox("Propose")
        grid = QGridLayout(kinds)
        for n, (kind, box) in enumerate(self.kind_boxes.items()):
            box.setChecked(kind in chosen)
            grid.addWidget(box, n // 2, n % 2)
        if templates is not None:
            edit = QPushButton("Edit Templates…")
            edit.setToolTip("The instructions sent for each kind (versioned in the project)")
            edit.clicked.connect(templates)
            grid.addWidget(edit, (len(KINDS) + 1) // 2, 1)
        self.posts_note = QLabel(f"{n_posts:,} post(s) will be sent. Answers already in the "
                                 "project for the same post, template version and model are "
                                 "reused; nothing a curator changed is overwritten.")
        self.posts_note.setWordWrap(True)
        self.error = QLabel()
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setWordWrap(True)
        self.error.setStyleSheet("font-weight: 600")
        buttons = confirm_cancel(self, "Propose", self._accept)
        layout = QVBoxLayout(self)
        layout.addWidget(endpoint)
        layout.addWidget(kinds)
        layout.addWidget(self.posts_note)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.url.textChanged.connect(lambda _t: self._update_key_note())
        self._update_key_note()

    def _update_key_note(self) -> None:
        _key, source = api_key(self.url.text())
        self.key_note.setText({"environment": f"Using the key from {KEY_ENV}.",
                               "keyring": "Using the key kept in the OS keyring for this URL.",
                               "none": f"No key: set {KEY_ENV}, or type one (used for this "
                                       "run only unless kept in the keyring); local servers "
                                       "usually need none."}[source])

    def _keep_key(self) -> None:
        try:
            store_key(self.url.text(), self.key.text())
        except KeyStoreError as exc:
            self.error.setText(str(exc))
            return
        self.error.setText("")
        self._update_key_note()

    def kinds(self) -> list[str]:
        return [k for k, box in self.kind_boxes.items() if box.isChecked()]

    def endpoint(self) -> ProposeEndpoint:
        """The endpoint described (ValueError saying what is wrong)."""
        key = self.key.text() or api_key(self.url.text())[0]
        return ProposeEndpoint(
            self.url.text().strip(), self.model.text().strip(), key or None,
            concurrency=self.concurrency.value(), timeout=self.timeout.value(),
            structured=self.structured.currentData(),
            price_in=self.price_in.value() or None, price_out=self.price_out.value() or None)

    def _accept(self) -> None:
        try:
            self.endpoint()
        except ValueError as exc:
            self.error.setText(str(exc))
            return
        if not self.kinds():
            self.error.setText("Choose at least one kind of proposal.")
            return
        write_values({"url": self.url.text().strip(), "model": self.model.text().strip(),
                      "concurrency": self.concurrency.value(), "timeout": self.timeout.value(),
                      "structured": self.structured.currentData(),
                      "price_in": self.price_in.value(), "price_out": self.price_out.value(),
                      "kinds": ",".join(self.kinds())})
        self.accept()


def _price(value: float) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(0, 10_000)
    box.setDecimals(3)
    box.setValue(value)
    box.setSpecialValueText("—")
    return box
