"""Drag-to-rank: the outputs as cards in rank order (best → worst), reordered with the mouse.

The strip only shows an order and reports drops; the ranking panel owns the ranks
(the same ``ranks`` the number keys edit), so a drop changes exactly what keys would.
Drops are computed from plain mouse press / move / release events (no ``QDrag``: no
nested event loop, nothing leaves the window, and tests drive it with real events).

* a drop *between* cards (a blue bar marks the gap) moves the card there;
* with ties allowed, a drop *onto the middle* of another card (a dashed frame marks
  it) ties the two; tied cards share one shaded group;
* a release far outside the strip cancels the drag.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPoint, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QFont, QMouseEvent, QPainter, QPaintEvent, QPalette, QPen, QPixmap
from PySide6.QtWidgets import QApplication, QSizePolicy, QWidget

from ui.widgets.theme import mix, tone_text

#: (kind, index): ("gap", g) = before group g (g == len(groups): at the end);
#: ("tie", g) = into group g
Target = tuple[str, int]

CARD_MAX_W = 150
CARD_MIN_W = 64
MARGIN = 10
TIE_SPACE = 6      # between tied cards
GROUP_SPACE = 26   # between groups (room for the drop bar)
LABEL_H = 26
THUMB_MAX = 240    # thumbnails are scaled once to at most this many pixels


def thumbnail(pixmap: QPixmap, size: int = THUMB_MAX) -> QPixmap:
    """A small copy for a card: a fast halving pass, then one smooth step (cheap for
    camera-sized images, still smooth at card size)."""
    if pixmap.isNull() or max(pixmap.width(), pixmap.height()) <= size:
        return pixmap
    fast = pixmap.scaled(QSize(size * 2, size * 2), Qt.AspectRatioMode.KeepAspectRatio,
                         Qt.TransformationMode.FastTransformation)
    return fast.scaled(QSize(size, size), Qt.AspectRatioMode.KeepAspectRatio,
                       Qt.TransformationMode.SmoothTransformation)


def groups_from_ranks(ranks: dict[int, int], n: int) -> list[list[int]]:
    """The order shown for ``ranks`` (option index → rank) of ``n`` options, as groups
    best → worst: ranked options by rank (equal ranks share a group), then each
    unranked one in option order."""
    out: list[list[int]] = []
    last = None
    for k, rank in sorted(ranks.items(), key=lambda kv: (kv[1], kv[0])):
        if out and rank == last:
            out[-1].append(k)
        else:
            out.append([k])
        last = rank
    return out + [[k] for k in range(n) if k not in ranks]


def ranks_from_groups(groups: Sequence[Sequence[int]]) -> dict[int, int]:
    """Every option ranked by its group's place; a tie shares the best rank of its
    group (1, 1, 3), as the session file stores it."""
    out: dict[int, int] = {}
    place = 1
    for group in groups:
        for k in group:
            out[k] = place
        place += len(group)
    return out


def move_in_groups(groups: Sequence[Sequence[int]], item: int,
                   target: Target) -> list[list[int]]:
    """``groups`` (best → worst) after dropping ``item`` on ``target``; empty groups vanish,
    tied items keep their option order."""
    kind, at = target
    out: list[list[int]] = []
    for g, group in enumerate(groups):
        if kind == "gap" and g == at:
            out.append([item])
        rest = [x for x in group if x != item]
        if kind == "tie" and g == at:
            rest = sorted([*rest, item])
        if rest:
            out.append(rest)
    if kind == "gap" and at >= len(groups):
        out.append([item])
    return out


class RankStrip(QWidget):
    """Cards (thumbnail, letter, rank) in rank order; ``reordered`` after a drop,
    ``clicked`` for a click without a drag.  Takes no keyboard focus."""

    reordered = Signal(list, int)   # groups best → worst (option indices), the moved one
    clicked = Signal(int)           # option index

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setMinimumHeight(132)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self.allow_ties = False
        self.letters: list[str] = []
        self.thumbs: list[QPixmap] = []
        self._fitted: dict[tuple[int, int, int], QPixmap] = {}  # (item, w, h) → card-sized
        self.groups: list[list[int]] = []
        self.rank_text: dict[int, str] = {}
        self.focus = -1
        self._press: tuple[int, QPoint, QPoint] | None = None  # item, press pos, offset
        self.dragging = False
        self.drag_pos = QPoint()
        self.target: Target | None = None

    # -- state from the panel ------------------------------------------------------------
    def set_items(self, letters: Sequence[str], thumbs: Sequence[QPixmap]) -> None:
        """The task's outputs (option order); cancels a drag in progress."""
        self.letters, self.thumbs = list(letters), list(thumbs)
        self._fitted.clear()
        self.cancel_drag()

    def set_order(self, groups: Sequence[Sequence[int]], rank_text: dict[int, str],
                  focus: int) -> None:
        """Show ``groups`` (best → worst), each card's rank text, the keyboard focus."""
        self.groups = [list(g) for g in groups]
        self.rank_text = dict(rank_text)
        self.focus = focus
        self.update()

    def cancel_drag(self) -> None:
        self._press, self.dragging, self.target = None, False, None
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self.update()

    # -- geometry ---------------------------------------------------------------------------
    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(MARGIN * 2 + 4 * CARD_MAX_W + 3 * GROUP_SPACE, 132)

    def card_width(self) -> int:
        n = sum(len(g) for g in self.groups)
        if not n:
            return CARD_MAX_W
        spaces = sum(len(g) - 1 for g in self.groups) * TIE_SPACE + \
            (len(self.groups) - 1) * GROUP_SPACE
        free = self.width() - 2 * MARGIN - spaces
        return max(CARD_MIN_W, min(CARD_MAX_W, free // n))

    def card_rects(self) -> dict[int, QRect]:
        """Option index → its card's rectangle (in display order)."""
        w, h = self.card_width(), self.height() - 2 * MARGIN
        x, out = MARGIN, {}
        for g, group in enumerate(self.groups):
            if g:
                x += GROUP_SPACE
            for k, item in enumerate(group):
                if k:
                    x += TIE_SPACE
                out[item] = QRect(x, MARGIN, w, h)
                x += w
        return out

    def group_rect(self, g: int) -> QRect:
        rects = self.card_rects()
        box = QRect(rects[self.groups[g][0]])
        for item in self.groups[g][1:]:
            box = box.united(rects[item])
        return box

    def gap_x(self, g: int) -> int:
        """x of the drop bar before group ``g`` (``len(groups)``: after the last)."""
        if not self.groups:
            return MARGIN
        if g <= 0:
            return self.group_rect(0).left() - MARGIN // 2
        if g >= len(self.groups):
            return self.group_rect(len(self.groups) - 1).right() + MARGIN // 2
        return (self.group_rect(g - 1).right() + self.group_rect(g).left()) // 2

    def item_at(self, pos: QPoint) -> int | None:
        for item, rect in self.card_rects().items():
            if rect.contains(pos):
                return item
        return None

    def target_at(self, pos: QPoint, item: int) -> Target | None:
        """Where dropping ``item`` at ``pos`` would put it (None: outside, cancel)."""
        if not self.rect().adjusted(-40, -80, 40, 80).contains(pos):
            return None
        if self.allow_ties:
            rects = self.card_rects()
            for g, group in enumerate(self.groups):
                for other in group:
                    r = rects[other]
                    if other != item and r.top() <= pos.y() <= r.bottom() and \
                            r.left() + r.width() // 4 <= pos.x() <= r.right() - r.width() // 4:
                        return ("tie", g)
        centres = [self.group_rect(g).center().x() for g in range(len(self.groups))]
        return ("gap", sum(1 for c in centres if c < pos.x()))

    # -- mouse ------------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        pos = event.position().toPoint()
        item = self.item_at(pos)
        if event.button() != Qt.MouseButton.LeftButton or item is None:
            return super().mousePressEvent(event)
        self._press = (item, pos, pos - self.card_rects()[item].topLeft())
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if self._press is None:
            return super().mouseMoveEvent(event)
        item, start, _ = self._press
        pos = event.position().toPoint()
        if not self.dragging and (pos - start).manhattanLength() < \
                QApplication.startDragDistance():
            return
        self.dragging = True
        self.setCursor(Qt.CursorShape.ClosedHandCursor)
        self.drag_pos = pos
        self.target = self.target_at(pos, item)
        self.update()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if self._press is None or event.button() != Qt.MouseButton.LeftButton:
            return super().mouseReleaseEvent(event)
        item = self._press[0]
        if not self.dragging:
            self.cancel_drag()
            self.clicked.emit(item)
            return
        target = self.target_at(event.position().toPoint(), item)
        self.cancel_drag()
        if target is not None:
            self.reordered.emit(move_in_groups(self.groups, item, target), item)

    # -- painting ---------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        rects = self.card_rects()
        moving = self._press[0] if self.dragging and self._press else None
        pal = self.palette()  # colours from the theme, never a white card in a dark one
        for g, group in enumerate(self.groups):
            if len(group) > 1:  # a tie: one shaded box behind the group
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(mix(pal.color(QPalette.ColorRole.Window),
                               pal.color(QPalette.ColorRole.Highlight), 0.25))
                p.drawRoundedRect(QRectF(self.group_rect(g).adjusted(-4, -4, 4, 4)), 8, 8)
            if g:
                p.setPen(tone_text("muted", pal))
                p.setFont(self._font(1.6, True))
                x = self.gap_x(g)
                p.drawText(QRect(x - 10, 0, 20, self.height()),
                           Qt.AlignmentFlag.AlignCenter, "›")
        for item, rect in rects.items():
            self._card(p, item, rect, 0.3 if item == moving else 1.0)
        if moving is not None:  # the card follows the hand; the drop mark stays on top
            offset = self._press[2] if self._press else QPoint()
            self._card(p, moving, QRect(self.drag_pos - offset, rects[moving].size()), 0.7)
            self._indicator(p)
        p.end()

    def _font(self, scale: float, bold: bool) -> QFont:
        font = QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * scale)
        font.setBold(bold)
        return font

    def _card(self, p: QPainter, item: int, rect: QRect, opacity: float) -> None:
        ranked = self.rank_text.get(item, "–") != "–"
        pal, role = self.palette(), QPalette.ColorRole
        ground = role.Base if ranked else role.AlternateBase
        p.setOpacity(opacity)
        p.setBrush(pal.color(ground))
        pen = QPen(pal.color(role.Highlight) if item == self.focus else
                   mix(pal.color(role.Text), pal.color(role.Base), 0.7),
                   3 if item == self.focus else 1)
        p.setPen(pen)
        p.drawRoundedRect(QRectF(rect).adjusted(1, 1, -1, -1), 6, 6)
        thumb = self._fitted_thumb(item, rect.adjusted(6, 6, -6, -LABEL_H).size())
        if not thumb.isNull():
            box = QRect(QPoint(0, 0), thumb.size())
            box.moveCenter(rect.adjusted(6, 6, -6, -LABEL_H).center())
            p.setOpacity(opacity * (1.0 if ranked else 0.45))
            p.drawPixmap(box.topLeft(), thumb)  # 1:1, no scaling while dragging
            p.setOpacity(opacity)
        p.setPen(pal.color(role.Text) if ranked else tone_text("muted", pal, ground))
        p.setFont(self._font(1.15, True))
        letter = self.letters[item] if item < len(self.letters) else "?"
        label = f"{letter}  ·  {self.rank_text.get(item, '–')}"
        p.drawText(QRect(rect.left(), rect.bottom() - LABEL_H, rect.width(), LABEL_H),
                   Qt.AlignmentFlag.AlignCenter, label)
        p.setOpacity(1.0)

    def _fitted_thumb(self, item: int, area: QSize) -> QPixmap:
        """The thumbnail scaled to fit ``area``, made once per card size."""
        key = (item, area.width(), area.height())
        if key not in self._fitted:
            thumb = self.thumbs[item] if item < len(self.thumbs) else QPixmap()
            self._fitted[key] = QPixmap() if thumb.isNull() or area.isEmpty() else \
                thumb.scaled(area, Qt.AspectRatioMode.KeepAspectRatio,
                             Qt.TransformationMode.SmoothTransformation)
        return self._fitted[key]

    def _indicator(self, p: QPainter) -> None:
        if self.target is None:
            return
        kind, g = self.target
        accent = self.palette().color(QPalette.ColorRole.Highlight)
        if kind == "gap":
            x = self.gap_x(g)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(accent)
            p.drawRoundedRect(QRectF(x - 3, MARGIN - 6, 6, self.height() - 2 * MARGIN + 12),
                              3, 3)
        else:
            pen = QPen(accent, 3, Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.setBrush(Qt.BrushStyle.NoBrush)
            box = self.group_rect(g)
            p.drawRoundedRect(QRectF(box.adjusted(-5, -5, 5, 5)), 8, 8)
            pill = QRect(box.center().x() - 24, box.top() + 4, 48, 20)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(accent)
            p.drawRoundedRect(QRectF(pill), 10, 10)
            p.setFont(self._font(0.95, True))
            p.setPen(self.palette().color(QPalette.ColorRole.HighlightedText))
            p.drawText(pill, Qt.AlignmentFlag.AlignCenter, "tie")
