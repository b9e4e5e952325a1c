"""The adjudication window (ADR 133): each open conflict with both values side by side
(the prompt as a word diff, image roles and boxes drawn over the images), and one key
picks each: 1 or ← keeps the project's value, 2 or → takes the curator's.  A choice is
a Curate command on the workspace's undo stack (Ctrl+Z here or in Curate undoes it)."""

from __future__ import annotations

import difflib
import html
from typing import Any

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QKeySequence, QPainter, QPalette, QPen, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from core.curate.detail import ImageUnavailable, image_bytes
from core.teamwork.conflicts import Conflict, ResolveConflict, list_conflicts
from core.teamwork.values import FIELD_TITLES, boxes, describe, roles
from ui.curate.canvas import ROLE_COLOURS
from ui.curate.images import decode_upright, map_box
from ui.widgets.actions import make_action
from ui.widgets.theme import clear_tone, set_tone, tone_colours

THUMB = 420


def word_diff(ours: str, theirs: str) -> tuple[str, str]:
    """Both prompts as HTML: words only in ours struck through, only in theirs marked."""
    a, b = ours.split(" "), theirs.split(" ")
    gone, added = tone_colours("danger")[0].name(), tone_colours("success")[0].name()
    left, right = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        x, y = html.escape(" ".join(a[i1:i2])), html.escape(" ".join(b[j1:j2]))
        if op == "equal":
            left.append(x)
            right.append(y)
            continue
        if x:
            left.append(f'<span style="background:{gone};text-decoration:line-through">'
                        f"{x}</span>")
        if y:
            right.append(f'<span style="background:{added}">{y}</span>')
    return " ".join(left), " ".join(right)


class ValuePane(QGroupBox):
    """One side of a conflict: text, or the images with their boxes."""

    def __init__(self, title: str) -> None:
        super().__init__(title)
        self.text = QTextBrowser()
        self.text.setOpenLinks(False)
        self.pictures = QLabel()
        self.pictures.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.pictures)

    def show_value(self, project: Any, field: str, value: Any, rich: str | None = None) -> None:
        self.text.setHtml(rich if rich is not None else
                          f"<p style='font-size:14pt'>{html.escape(describe(field, value))}</p>")
        if field == "images" and isinstance(value, dict):
            self.text.setMaximumHeight(160)  # the images matter more than the list
            self.pictures.setPixmap(draw_images(project, value, self.palette()))
            whole = roles(value)
            listed = "".join(f"<li>{html.escape(role)}: {html.escape(ref[:16])}</li>"
                             for ref, role in sorted(whole.items(), key=lambda x: x[1]))
            boxed = "".join(f"<li>{html.escape(role)} box {x},{y} {w}×{h}</li>"
                            for _ref, role, (x, y, w, h) in boxes(value))
            self.text.setHtml(f"<p>{html.escape(describe(field, value))}</p>"
                              f"<ul>{listed}{boxed}</ul>")
        else:
            self.text.setMaximumHeight(16777215)
            self.pictures.clear()


def draw_images(project: Any, value: dict[str, Any], palette: QPalette) -> QPixmap:
    """The images a value uses, side by side, with its boxes drawn over them (a whole
    image's frame in its role's colour; unused images framed in the palette's mid)."""
    other = palette.color(QPalette.ColorRole.Mid)
    shas = []
    for row in value["rows"]:
        if row[3] and row[3] not in shas:
            shas.append(row[3])
    tiles = []
    for sha in shas[:3]:
        try:
            image, _why, shown = decode_upright(image_bytes(project, sha))
        except (ImageUnavailable, OSError, KeyError):
            continue
        if image is None:
            continue
        scale = min(1.0, THUMB / max(image.width(), image.height()))
        tile = QPixmap.fromImage(image).scaled(int(image.width() * scale),
                                               int(image.height() * scale))
        painter = QPainter(tile)
        for role, _pos, _ref, row_sha, x, y, w, h, _err in value["rows"]:
            if row_sha != sha:
                continue
            pen = QPen(ROLE_COLOURS.get(role, other), 3)
            painter.setPen(pen)
            if x is None:
                painter.drawRect(QRectF(1, 1, tile.width() - 3, tile.height() - 3))
            else:
                box = map_box(shown, QRect(x, y, w, h))  # stored → upright pixels
                painter.drawRect(QRectF(box.x() * scale, box.y() * scale,
                                        box.width() * scale, box.height() * scale))
        painter.end()
        tiles.append(tile)
    if not tiles:
        return QPixmap()
    out = QPixmap(sum(t.width() for t in tiles) + 8 * (len(tiles) - 1),
                  max(t.height() for t in tiles))
    out.fill(palette.color(QPalette.ColorRole.Window))
    painter = QPainter(out)
    left = 0
    for tile in tiles:
        painter.drawPixmap(left, 0, tile)
        left += tile.width() + 8
    painter.end()
    return out


class AdjudicationWindow(QDialog):
    """Open conflicts on the left; the selected one's two values side by side."""

    def __init__(self, ws: Any) -> None:
        super().__init__(ws)
        self.ws = ws
        self.setWindowTitle("Resolve conflicts")
        self.conflicts: list[Conflict] = []
        # what the last merge did: shown here, not in a message box, which would be
        # window-modal and block this window (its keys and buttons) while it is open
        self.report = QLabel()
        self.report.setWordWrap(True)
        self.report.setTextFormat(Qt.TextFormat.PlainText)
        self.report.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.report.setVisible(False)
        self.list = QListWidget()
        self.list.currentRowChanged.connect(self._show)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.ours = ValuePane("Project")
        self.theirs = ValuePane("Curator")
        self.keep = QPushButton("Keep Project's Value  (1 or ←)")
        self.take = QPushButton("Take Curator's Value  (2 or →)")
        self.undo_button = QPushButton("Undo  (Ctrl+Z)")
        self.keep.clicked.connect(lambda: self.choose("ours"))
        self.take.clicked.connect(lambda: self.choose("theirs"))
        self.undo_button.clicked.connect(self.undo)
        for text, slot, keys in (("Keep", lambda: self.choose("ours"), ("1", "Left")),
                                 ("Take", lambda: self.choose("theirs"), ("2", "Right")),
                                 ("Undo", self.undo, ("Ctrl+Z",))):
            action = make_action(self, text, slot, keys[0], local=True)
            action.setShortcuts([QKeySequence(k) for k in keys])
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        sides = QHBoxLayout()
        sides.addWidget(self.ours, 1)
        sides.addWidget(self.theirs, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.keep)
        buttons.addWidget(self.take)
        buttons.addStretch(1)
        buttons.addWidget(self.undo_button)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.addWidget(self.heading)
        rl.addLayout(sides, 1)
        rl.addLayout(buttons)
        split = QSplitter()
        split.addWidget(self.list)
        split.addWidget(right)
        split.setStretchFactor(1, 3)
        self.empty = QLabel("No open conflicts.")
        layout = QVBoxLayout(self)
        layout.addWidget(self.report)
        layout.addWidget(split, 1)
        layout.addWidget(self.empty)
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # ←/→ pick, never move the list
        self.resize(1100, 640)

    def reload(self, select: int | None = None) -> None:
        """List the open conflicts again; select ``select`` (an id) or the first."""
        project = self.ws.project
        self.conflicts = list_conflicts(project) if project is not None else []
        self.list.blockSignals(True)
        self.list.clear()
        for c in self.conflicts:
            item = QListWidgetItem(f"{c.title} — {c.curator}")
            item.setToolTip(f"split {c.split}")
            self.list.addItem(item)
        self.list.blockSignals(False)
        row = next((k for k, c in enumerate(self.conflicts) if c.id == select), 0)
        self.empty.setVisible(not self.conflicts)
        for w in (self.keep, self.take):
            w.setEnabled(bool(self.conflicts))
        self.undo_button.setEnabled(bool(self.ws.undo_stack and self.ws.undo_stack.can_undo()))
        for pane in (self.ours, self.theirs):  # no two "(empty)" panes with nothing to show
            pane.setVisible(bool(self.conflicts))
        if self.conflicts:
            self.list.setCurrentRow(row)
            self._show(row)
        else:
            self.heading.setText(
                "A conflict appears here when Curate → Team → Merge Returned Work… brings "
                "back a curator's value that differs from the project's; you then keep one "
                "of the two (1 or 2).")

    def show_report(self, text: str, *, warn: bool = False) -> None:
        """Show what a merge did above the conflicts (``warn``: a package was refused)."""
        self.report.setText(text)
        self.report.setVisible(bool(text))
        if warn:
            set_tone(self.report, "warning", "padding: 4px;", border=True)
        else:
            clear_tone(self.report)

    def current(self) -> Conflict | None:
        row = self.list.currentRow()
        return self.conflicts[row] if 0 <= row < len(self.conflicts) else None

    def _show(self, row: int) -> None:
        if not 0 <= row < len(self.conflicts):
            return
        c = self.conflicts[row]
        project = self.ws.project
        what = FIELD_TITLES.get(c.field, c.field)
        self.heading.setText(f"<b>{html.escape(c.sample_id)}</b> · {html.escape(what)} — "
                             f"{row + 1} of {len(self.conflicts)}; was "
                             f"{html.escape(describe(c.field, c.base))} at the split")
        self.ours.setTitle(f"Project (set by {c.ours_by})")
        self.theirs.setTitle(f"{c.curator}'s value")
        rich = None
        if c.field in ("prompt", "notes") and isinstance(c.current, str) \
                and isinstance(c.theirs, str):
            rich = word_diff(c.current, c.theirs)
        self.ours.show_value(project, c.field, c.current, rich[0] if rich else None)
        self.theirs.show_value(project, c.field, c.theirs, rich[1] if rich else None)
        if c.sample_id != self.ws.current_id():
            self.ws.reveal(c.sample_id)

    def choose(self, choice: str) -> bool:
        """Resolve the selected conflict ("ours" or "theirs") and go to the next one."""
        c = self.current()
        if c is None:
            return False
        row = self.list.currentRow()
        done = self.ws.run(ResolveConflict(c, choice))
        following = self.conflicts[row + 1].id if row + 1 < len(self.conflicts) else None
        self.reload(following)
        return done

    def undo(self) -> None:
        """Undo the last edit in Curate (a choice made here, typically) and show it."""
        self.ws.undo()
        self.reload()
