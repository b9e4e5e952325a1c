"""The button row every Winnow dialog ends with: confirm (renamed to what it does) and
Cancel."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QDialog, QDialogButtonBox

Button = QDialogButtonBox.StandardButton


def confirm_cancel(dialog: QDialog, text: str | None = None,
                   on_confirm: Callable[[], object] | None = None,
                   confirm: Button = Button.Ok) -> QDialogButtonBox:
    """``confirm`` and Cancel buttons for ``dialog``: the confirm button says ``text``
    (when given) and runs ``on_confirm`` (``dialog.accept`` by default, so a dialog that
    checks its fields first passes its own); Cancel rejects."""
    buttons = QDialogButtonBox(confirm | Button.Cancel)
    if text is not None:
        buttons.button(confirm).setText(text)
    buttons.accepted.connect(on_confirm or dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons
