"""The Curate page's two splitters: the list beside the sample view, the text beside the
images (ADR 038): their share when a project opens, and showing or hiding the list
(Ctrl+L) or the images (Ctrl+G)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QSplitter


class Panes:
    """Works on a :class:`ui.curate.workspace.CurateWorkspace`'s splitters."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.balanced = False

    def balance(self) -> None:
        """Once Curate shows a project at its real width, give the list what all its
        columns need next to a usable Prompt column (40 % of the width when that is more,
        up to 40 px more), as long as the sample view keeps half the width and room for
        the whole sample id (or at least its minimum)."""
        ws = self.ws
        if self.balanced or not ws.isVisible() or ws.pages.currentWidget() is not ws.main:
            return
        self.balanced = True
        width = ws.width() - ws.main.handleWidth()
        left = ws.main.widget(0)
        margins = left.layout().contentsMargins()
        all_columns = ws.table.width_needed(every_column=True) + margins.left() + margins.right()
        wanted = max(left.minimumSizeHint().width(),
                     min(max(round(width * 0.4), all_columns), all_columns + 40))
        title = ws.view.title  # room for the whole sample id, not only the minimum
        comfortable = (ws.main.widget(1).minimumSizeHint().width()
                       + max(0, title.sizeHint().width() - title.minimumSizeHint().width()))
        share = min(wanted, width - max(comfortable, width // 2))
        share = max(share, min(ws.table.width_needed() + margins.left() + margins.right(),
                               width - ws.main.widget(1).minimumSizeHint().width()))
        ws.main.setSizes([share, width - share])

    def shown(self, pane: str) -> bool:
        """Whether the sample list ("list") or the images ("images") are on screen."""
        ws = self.ws
        splitter, index = self._pane(pane)
        widget = splitter.widget(index)
        return widget is not None and widget.isVisibleTo(ws) and splitter.sizes()[index] > 0

    def show(self, pane: str, on: bool) -> None:
        """Show or hide the sample list or the images (to give the rest the room)."""
        ws = self.ws
        splitter, index = self._pane(pane)
        widget = splitter.widget(index)
        assert widget is not None  # the splitters are built with both panes
        if pane == "list" and not on and ws.table.hasFocus():
            ws.view.setFocus()
        widget.setVisible(on)
        if on and splitter.sizes()[index] == 0:  # collapsed by dragging: open it again
            sizes = splitter.sizes()
            want = max(widget.minimumSizeHint().width(), sum(sizes) * 2 // 5)
            sizes[index], sizes[1 - index] = want, sum(sizes) - want
            splitter.setSizes(sizes)
        if on and pane == "list":
            ws.table.setFocus()
        ws.page_actions.update_panes()

    def toggle(self, pane: str) -> None:
        """Hide the pane when it is shown, show it when it is not."""
        self.show(pane, not self.shown(pane))

    def _pane(self, pane: str) -> tuple[QSplitter, int]:
        ws = self.ws
        return (ws.main, 0) if pane == "list" else (ws.view.splitter, 1)
