"""The strip above a sample's prompt that says which of its values a model proposed.

While any field is still *proposed* the strip is drawn in the palette's highlight
colours names the fields, the model and the template version, and
offers Accept (Y); correcting a field with the usual editors makes it *corrected*.
Once every field is decided it shrinks to a quiet line ("proposals: 3 accepted, 1
corrected").  Palette roles only, so it follows light and dark themes.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from core.propose.kinds import KIND_TITLES

LIVE = ("QFrame#proposalBar { background: palette(highlight); border-radius: 4px; } "
        "QFrame#proposalBar QLabel { color: palette(highlighted-text); }")
QUIET = "QFrame#proposalBar { background: transparent; }"


def _value_text(field: str, proposed: Any) -> str:
    if field in ("prompt", "quality"):
        return str(proposed)
    if field == "roles" and isinstance(proposed, list):
        return ", ".join(f"image {r.get('index')}: {r.get('role')}" for r in proposed)
    if field == "boxes" and isinstance(proposed, list):
        return ", ".join(f"{b.get('role')} {b.get('box')}" for b in proposed)
    if field == "safety" and isinstance(proposed, dict):
        return "unsafe: " + ", ".join(proposed.get("categories") or ["yes"]) \
            if proposed.get("unsafe") else "safe"
    if isinstance(proposed, dict) and "label" in proposed:
        kw = proposed.get("keyword")
        return proposed["label"] + (f" ({kw})" if kw else "")
    return json.dumps(proposed, ensure_ascii=False)


class ProposalBar(QFrame):
    """Machine-made fields of the shown sample, and Accept."""

    accept_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("proposalBar")
        self.text = QLabel()
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setWordWrap(True)
        self.accept = QPushButton("Accept (Y)")
        self.accept.setToolTip("Accept the machine-made values still marked proposed (Y); "
                               "correct a value with the usual editors instead. Undoable.")
        self.accept.clicked.connect(self.accept_requested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 3, 6, 3)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.accept)
        self.fields: list[dict[str, Any]] = []
        self.hide()

    @property
    def pending(self) -> list[str]:
        """Fields still proposed (not accepted nor corrected)."""
        return [f["field"] for f in self.fields if f["status"] == "proposed"]

    def show_fields(self, fields: list[dict[str, Any]], read_only: bool = False) -> None:
        """Show a sample's machine-made fields (from core.propose.fields.field_status)."""
        self.fields = fields
        if not fields:
            self.hide()
            return
        pending = [f for f in fields if f["status"] == "proposed"]
        models = sorted({f"{f['model']} · template v{f['version']}" for f in fields})
        if pending:
            names = ", ".join(_short(f["field"]) for f in pending)
            self.text.setText(f"Machine-proposed, not yet reviewed: {names}  "
                              f"({'; '.join(models)})")
            self.setStyleSheet(LIVE)
        else:
            counts: dict[str, int] = {}
            for f in fields:
                counts[f["status"]] = counts.get(f["status"], 0) + 1
            self.text.setText("Proposals: " + ", ".join(f"{n} {s}" for s, n in
                                                         sorted(counts.items())))
            self.setStyleSheet(QUIET)
        self.setToolTip("\n".join(
            f"{f['field']}: {f['status']} — {KIND_TITLES.get(f['kind'], f['kind'])}, "
            f"proposed {_value_text(f['field'], f['proposed'])[:200]}" for f in fields))
        self.accept.setVisible(bool(pending))
        self.accept.setEnabled(bool(pending) and not read_only)
        self.show()


def _short(field: str) -> str:
    return "feedback " + field.split("/", 1)[1] if field.startswith("feedback/") else field


def mark_feedback(items: Any, feedback: list[tuple[str | None, str]],
                  labels: dict[str, tuple[str, str]]) -> None:
    """Prefix each piece of feedback in the Feedback list with its label and keyword."""
    for row, (post_id, _text) in enumerate(feedback):
        item = items.item(row)
        if item is None or post_id not in labels:
            continue
        label, keyword = labels[post_id]
        item.setText(f"[{label}{': ' + keyword if keyword else ''}] {item.text()}")
