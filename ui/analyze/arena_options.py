"""Analyze → Open Data File… on arena votes: the choices ``winnow stats`` offers as
``--bothbad``, ``--anonymous-only`` and ``--duplicates`` (ADR 022), FastChat's defaults
preselected."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from core.stats.battles import BattleOptions
from ui.widgets.dialog_buttons import confirm_cancel

FORMAT_TITLES = {"battles": "arena battles (JSON / JSON Lines)",
                 "pairwise": "a pairwise vote table"}


class ArenaOptionsDialog(QDialog):
    """How to count an arena file's votes; ``options()`` once accepted."""

    def __init__(self, path: Path, fmt: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Open {path.name}")
        intro = QLabel(f"{path.name} holds {FORMAT_TITLES.get(fmt, 'arena votes')}. "
                       "The defaults are FastChat's, as on the published arena boards.")
        intro.setWordWrap(True)
        self.bothbad = QComboBox()
        self.bothbad.addItem("Count as a tie (FastChat)", "tie")
        self.bothbad.addItem("Leave out", "drop")
        self.anonymous = QCheckBox("Only battles where the models were anonymous")
        self.anonymous.setToolTip("Keeps battles whose 'anony' field is true, as the "
                                  "arena's leaderboard does")
        self.anonymous.setEnabled(fmt == "battles")
        self.duplicates = QComboBox()
        self.duplicates.addItem("Count every one (FastChat)", "keep")
        self.duplicates.addItem("Keep the first, leave out repeats", "drop")
        form = QFormLayout()
        form.addRow("“Tie (both bad)” votes:", self.bothbad)
        form.addRow("Battles repeating an id:", self.duplicates)
        form.addRow("", self.anonymous)
        buttons = confirm_cancel(self, confirm=QDialogButtonBox.StandardButton.Open)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def options(self) -> BattleOptions:
        """The choices as :class:`BattleOptions`."""
        return BattleOptions(bothbad=str(self.bothbad.currentData()),
                             anonymous_only=self.anonymous.isChecked(),
                             duplicates=str(self.duplicates.currentData()))
