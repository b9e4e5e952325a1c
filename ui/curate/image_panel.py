"""Image strip (roles, order), the large viewer with boxes, and live crop previews."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRect, QSize, Qt, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QListWidgetItem,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.curate.detail import ImageItem
from ui.curate.canvas import CanvasBox, ImageCanvas
from ui.curate.images import THUMB, ImageStore, map_box
from ui.curate.strip import DropPlan, ImageStrip
from ui.widgets.tooltips import plain_tooltip

PREVIEW = 110


class CropPreview(QWidget):
    """The crop each box produces, at small size, updated live while a box is drawn."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.crops: list[tuple[str, QImage]] = []  # (title, crop at source resolution)
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.row.setSpacing(6)
        self.labels: list[QLabel] = []
        self.row.addStretch(1)
        self.setMinimumHeight(PREVIEW + 22)

    def show_crops(self, image: QImage | None, boxes: list[CanvasBox],
                   live: QRect | None = None, live_role: str = "") -> None:
        """Rebuild the previews from ``image`` cut by each box (and the live rectangle).

        A box is cut as the export cuts it: only its part on the image; a box wholly off
        the image (an imported one) has a null crop and says it is not exported."""
        self.crops = []
        if image is not None:
            counts: dict[str, int] = {}
            for b in boxes:
                counts[b.role] = counts.get(b.role, 0) + 1
                self.crops.append((f"{b.role} {counts[b.role]}", _cut(image, b.rect)))
            if live is not None and live.width() > 0 and live.height() > 0:
                self.crops.append((f"drawing {live_role}", _cut(image, live)))
        while len(self.labels) < len(self.crops):
            label = QLabel()
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            label.setFixedSize(PREVIEW + 8, PREVIEW + 20)
            self.row.insertWidget(len(self.labels), label)
            self.labels.append(label)
        for k, label in enumerate(self.labels):
            if k < len(self.crops):
                title, crop = self.crops[k]
                if crop.isNull():
                    label.setText(f"{title}:\noutside the image,\nnot exported")
                    label.setToolTip(f"{title}: the box lies outside the image; the export "
                                     "leaves this sample out until the box is redrawn")
                else:
                    label.setPixmap(QPixmap.fromImage(crop.scaled(
                        PREVIEW, PREVIEW, Qt.AspectRatioMode.KeepAspectRatio,
                        Qt.TransformationMode.SmoothTransformation)))
                    label.setToolTip(f"{title}: {crop.width()}×{crop.height()} px")
                label.show()
            else:
                label.hide()


def _cut(image: QImage, rect: QRect) -> QImage:
    """The part of ``image`` inside ``rect`` (a null image when there is none)."""
    part = rect.intersected(image.rect())
    return image.copy(part) if part.width() > 0 and part.height() > 0 else QImage()


class ImagePanel(QWidget):
    """All images of the post: strip with roles, viewer with boxes, crop previews."""

    role_requested = Signal(object, str)             # ImageItem, role
    move_requested = Signal(object, int)             # ImageItem, delta
    drop_requested = Signal(object, object)          # ImageItem, DropPlan
    box_drawn = Signal(object, QRect, str)           # ImageItem, rect, role
    box_changed = Signal(object, int, QRect, bool)   # ImageItem, row id, rect, nudge
    box_deleted = Signal(object, int)                # ImageItem, row id

    def __init__(self, store: ImageStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.project: Any = None
        self.items: list[ImageItem] = []
        self._shown: str | None = None
        self._screenshot = False
        self.strip = ImageStrip()
        self.strip.setIconSize(QSize(THUMB, THUMB))
        self.strip.setGridSize(QSize(THUMB + 34, THUMB + 40))
        self.strip.setFixedHeight(THUMB + 62)
        self.strip.setToolTip("Images of the post. 1–9 select, I / O / U set the role, "
                              "Ctrl+← / Ctrl+→ reorder; drag a thumbnail to reorder it or "
                              "drop it among another role's images")
        self.strip.currentRowChanged.connect(self._show_current)
        self.strip.drop_requested.connect(self._request_drop)
        self.canvas = ImageCanvas()
        self.preview = CropPreview()
        preview_scroll = QScrollArea()
        preview_scroll.setWidget(self.preview)
        preview_scroll.setWidgetResizable(True)
        preview_scroll.setFixedHeight(PREVIEW + 44)
        self.preview_scroll = preview_scroll

        bar = QHBoxLayout()
        bar.setSpacing(4)
        self.role_buttons: dict[str, QToolButton] = {}
        #: (button, full text, compact text): the keys leave the texts when narrow
        self._texts: list[tuple[QToolButton, str, str]] = []
        for role, key, short in (("input", "I", "In"), ("output", "O", "Out"),
                                 ("unused", "U", "Unused")):
            b = QToolButton()
            b.setText(f"{short} ({key})")
            self._texts.append((b, f"{short} ({key})", short))
            b.setToolTip(f"Use the selected image as {role} ({key})")
            b.clicked.connect(lambda _=False, r=role: self._request_role(r))
            bar.addWidget(b)
            self.role_buttons[role] = b
        left = QToolButton()
        left.setText("◀")
        left.setToolTip("Move the image earlier (Ctrl+←)")
        left.clicked.connect(lambda: self._request_move(-1))
        right = QToolButton()
        right.setText("▶")
        right.setToolTip("Move the image later (Ctrl+→)")
        right.clicked.connect(lambda: self._request_move(1))
        bar.addWidget(left)
        bar.addWidget(right)
        self.move_buttons = (left, right)
        bar.addStretch(1)
        bar2 = QHBoxLayout()
        bar2.setSpacing(4)
        self.draw_toggle = QToolButton()
        self.draw_toggle.setText("Boxes (D)")
        self._texts.append((self.draw_toggle, "Boxes (D)", "Boxes"))
        self.draw_toggle.setCheckable(True)
        self.draw_toggle.setToolTip("Drag on the image to cut an input/output out of a "
                                    "screenshot. Arrows nudge, Alt+arrows resize, Del deletes")
        self.draw_toggle.toggled.connect(self._set_draw)
        bar2.addWidget(self.draw_toggle)
        self.draw_input = QToolButton()
        self.draw_input.setText("new: in")
        self.draw_output = QToolButton()
        self.draw_output.setText("out")
        self.draw_input.setToolTip("New boxes are inputs")
        self.draw_output.setToolTip("New boxes are outputs")
        group = QButtonGroup(self)
        for b in (self.draw_input, self.draw_output):
            b.setCheckable(True)
            group.addButton(b)
        self.draw_output.setChecked(True)
        self.draw_input.toggled.connect(
            lambda on: setattr(self.canvas, "draw_role", "input" if on else "output"))
        bar2.addWidget(self.draw_input)
        bar2.addWidget(self.draw_output)
        bar2.addStretch(1)
        fit = QToolButton()
        fit.setText("Fit (0)")
        self._texts.append((fit, "Fit (0)", "Fit"))
        fit.setToolTip("Fit the image (0); Ctrl+wheel or +/- zoom, right-drag pans")
        fit.clicked.connect(self.canvas.fit)
        bar2.addWidget(fit)

        self.caption = QLabel()
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.caption.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.strip)
        layout.addLayout(bar)
        layout.addWidget(self.canvas, 1)
        layout.addLayout(bar2)
        layout.addWidget(self.caption)
        layout.addWidget(preview_scroll)

        for button, _full, short in self._texts:  # never narrower than the short text
            button.setMinimumWidth(button.fontMetrics().horizontalAdvance(short) + 16)
        self._compact = False
        self._empty_text = ""

        # the canvas shows the image upright; boxes are stored in the file's pixels
        self.canvas.box_drawn.connect(
            lambda r, role: self._emit_item(self.box_drawn, self._stored(r), role))
        self.canvas.box_changed.connect(
            lambda rid, r, nudge: self._emit_item(self.box_changed, rid, self._stored(r),
                                                  nudge))
        self.canvas.box_deleted.connect(lambda rid: self._emit_item(self.box_deleted, rid))
        self.canvas.preview_changed.connect(self._live_preview)

    def set_read_only(self, on: bool) -> None:
        """Offer no image edits (roles, order, boxes) while the project is read-only."""
        if on:
            self.draw_toggle.setChecked(False)
        self.canvas.locked = on
        for widget in self.edit_widgets():
            widget.setEnabled(not on)

    def edit_widgets(self) -> list[QWidget]:
        """The buttons that change the sample's images."""
        return [*self.role_buttons.values(), *self.move_buttons, self.draw_toggle,
                self.draw_input, self.draw_output]

    # -- content ----------------------------------------------------------------------------
    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        """Leave the keys out of the button texts when the full texts do not fit."""
        super().resizeEvent(event)
        full = sum(b.fontMetrics().horizontalAdvance(text) + 20
                   for b, text, _short in self._texts[:3]) + 2 * 31
        compact = self.width() < full
        if compact != self._compact:
            self._compact = compact
            for button, text, short in self._texts:
                button.setText(short if compact else text)

    def set_items(self, project: Any, items: list[ImageItem], screenshot: bool,
                  keep_key: str | None = None,
                  empty_text: str = "This post has no images.") -> None:
        """Show a sample's images; re-select ``keep_key`` when it is still there;
        ``empty_text`` is what the viewer says when there is none."""
        self.project, self.items = project, items
        self._empty_text = empty_text
        self._screenshot = screenshot
        self.strip.blockSignals(True)
        self.strip.clear()
        self.strip.set_entries(items)
        counts: dict[str, int] = {}
        for k, item in enumerate(items, 1):
            role = item.role or "unused"
            counts[role] = counts.get(role, 0) + 1
            thumb = self.store.thumbnail(project, item.sha256, item.error)
            entry = QListWidgetItem(QPixmap.fromImage(thumb), f"{k}. {item.label}")
            tip = [item.label, item.ref or item.key]
            if item.alt:
                tip.append(f"ALT: {item.alt}")
            if item.error or not item.sha256:
                tip.append(f"Problem: {item.error or 'never fetched'}")
            entry.setToolTip(plain_tooltip("\n".join(tip)))
            self.strip.addItem(entry)
        self.strip.blockSignals(False)
        keys = [i.key for i in items]
        row = keys.index(keep_key) if keep_key in keys else (0 if items else -1)
        self.strip.blockSignals(True)
        self.strip.setCurrentRow(row)
        self.strip.blockSignals(False)
        self._show_current(row, same=keep_key is not None and keep_key == self._shown)

    def current_item(self) -> ImageItem | None:
        """The image selected in the strip."""
        row = self.strip.currentRow()
        return self.items[row] if 0 <= row < len(self.items) else None

    def select_index(self, k: int) -> None:
        """Select image ``k`` (0-based) in the strip."""
        if 0 <= k < len(self.items):
            self.strip.setCurrentRow(k)

    def _show_current(self, row: int, same: bool = False) -> None:
        """Show image ``row``; ``same`` = it is already shown (keep zoom and box selection)."""
        item = self.items[row] if 0 <= row < len(self.items) else None
        self._shown = item.key if item is not None else None
        if item is None:
            self.canvas.set_image(None, self._empty_text if not self.items else "")
            self.caption.setText("")
            self.preview.show_crops(None, [])
            return
        if not same:
            image, why = self.store.image(self.project, item.sha256)
            if image is None:
                why = (f"never fetched ({item.error})" if item.error and not item.sha256
                       else why or item.error or "unavailable")
                self.canvas.set_image(None, f"Cannot show this image: {why}\n{item.ref or ''}")
            else:
                self.canvas.set_image(image)
            self.draw_toggle.setChecked(bool(item.boxes) or self._screenshot)
        self._apply_boxes(item)
        size = ""
        if item.width and item.height:  # as shown (upright), not as stored
            shown = map_box(self.store.transform(item.sha256),
                            QRect(0, 0, item.width, item.height))
            size = f"{shown.width()}×{shown.height()} px"
        self.caption.setText("  ·  ".join(x for x in (item.label, size, item.ref or "",
                                                       f"ALT: {item.alt}" if item.alt else "")
                                          if x))

    def _stored(self, rect: QRect) -> QRect:
        """A box on the shown (upright) image in the stored file's pixels."""
        item = self.current_item()
        return map_box(self.store.transform(item.sha256 if item else None), rect, True)

    def stored_size(self) -> tuple[int, int] | None:
        """The shown image's size in the stored file's pixels, the space boxes are stored
        and clipped in (None when no image is shown)."""
        image = self.canvas.image
        if image is None:
            return None
        whole = self._stored(QRect(0, 0, image.width(), image.height()))
        return whole.width(), whole.height()

    def _apply_boxes(self, item: ImageItem) -> None:
        shown = self.store.transform(item.sha256)
        boxes = [CanvasBox(b.row_id, b.role, map_box(shown, QRect(b.x, b.y, b.w, b.h)))
                 for b in item.boxes]
        self.canvas.set_boxes(boxes)
        self.preview_scroll.setVisible(bool(boxes) or self.canvas.draw_mode)
        self.preview.show_crops(self.canvas.image, boxes)

    def _live_preview(self, rect: QRect | None) -> None:
        item = self.current_item()
        if item is None:
            return
        boxes = self.canvas.boxes
        if rect is not None and self.canvas.selected is not None and self.canvas._drag in (
                "move", "resize"):
            boxes = [CanvasBox(b.row_id, b.role, rect if b.row_id == self.canvas.selected
                               else b.rect) for b in boxes]
            rect = None
        self.preview.show_crops(self.canvas.image, boxes, rect, self.canvas.draw_role)

    def _set_draw(self, on: bool) -> None:
        self.canvas.draw_mode = on
        self.preview_scroll.setVisible(on or bool(self.canvas.boxes))

    # -- requests ---------------------------------------------------------------------------
    def _request_role(self, role: str) -> None:
        item = self.current_item()
        if item is not None:
            self.role_requested.emit(item, role)

    def _request_move(self, delta: int) -> None:
        item = self.current_item()
        if item is not None:
            self.move_requested.emit(item, delta)

    def _request_drop(self, row: int, plan: DropPlan) -> None:
        if 0 <= row < len(self.items):
            self.drop_requested.emit(self.items[row], plan)

    def _emit_item(self, signal: Any, *args: Any) -> None:
        item = self.current_item()
        if item is not None:
            signal.emit(item, *args)
