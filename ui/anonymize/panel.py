"""Right-hand panel of the Anonymize workspace: hiding method, regions, geometry,
metadata, status and release.  It only emits intents; the workspace performs them."""

from __future__ import annotations

from functools import partial
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from core.imaging.boxes import describe_source
from core.imaging.geometry import kept_by
from core.imaging.photo_values import on_photo
from core.imaging.photos import CATEGORIES, DEFAULT_LICENCE, Photo, Region
from core.visible_text import spell_controls, visible
from ui.widgets.actions import make_action
from ui.widgets.dates import format_when
from ui.widgets.tooltips import plain_tooltip

METHOD_LABELS = {"blur": "Gaussian blur", "pixelate": "Pixelate", "fill": "Solid fill"}
LICENCES = (DEFAULT_LICENCE, "CC-BY-SA-4.0", "CC0-1.0")
#: what the Regions list says of a region that lies wholly off its photo
OFF_PHOTO = "off the photo: hides nothing"
STATUS_TEXT = {"new": "New — not reviewed yet", "reviewed": "Reviewed — ready to release",
               "released": "Released"}


def _label(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    return label


class _WheelGuard(QObject):
    """Lets a wheel over an unfocused combo box or spin box scroll the panel instead of
    changing the value: scrolling must never edit a photo."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Wheel and isinstance(watched, QWidget) \
                and not watched.hasFocus():
            event.ignore()
            return True
        return False


class _TextEdit(QPlainTextEdit):
    """A plain-text box that reports when editing finished (focus left)."""

    editing_finished = Signal()

    def focusOutEvent(self, event: QFocusEvent) -> None:  # noqa: N802 - Qt override
        super().focusOutEvent(event)
        self.editing_finished.emit()


class PhotoPanel(QScrollArea):
    """Controls for the current photo."""

    photo_edit = Signal(dict)  # photo field -> new value
    region_edit = Signal(int, dict)  # region id, field -> new value
    region_selected = Signal(object)  # region id or None
    delete_regions = Signal(list)
    restore_rejected = Signal(list)  # region ids of rejected detections
    onto_photo = Signal(int)  # a region off the photo: move it back onto it
    rotate = Signal(int)  # +1 clockwise, -1 counter-clockwise
    angle_edit = Signal(float)
    reset_geometry = Signal(str)  # "corners" | "crop" | "all"
    tool_requested = Signal(str)
    mark_reviewed = Signal(bool)
    release = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget()
        layout = QVBoxLayout(body)
        self._loading = False
        self.region_ids: list[int] = []

        status_box = QGroupBox("Status")
        sl = QVBoxLayout(status_box)
        self.status_label = _label()
        font = self.status_label.font()
        font.setBold(True)
        self.status_label.setFont(font)
        self.release_info = _label()
        row = QHBoxLayout()
        self.review_button = QPushButton("Mark reviewed")
        self.review_button.setCheckable(True)
        self.review_button.setToolTip("You checked every region and the geometry (Ctrl+Return)")
        self.review_button.toggled.connect(self._review_toggled)
        self.release_button = QPushButton("Release…")
        self.release_button.setToolTip("Write the anonymized, metadata-free file (Ctrl+R)")
        self.release_button.clicked.connect(self.release.emit)
        row.addWidget(self.review_button)
        row.addWidget(self.release_button)
        sl.addWidget(self.status_label)
        sl.addLayout(row)
        sl.addWidget(self.release_info)
        layout.addWidget(status_box)

        hide_box = QGroupBox("Hiding (whole photo)")
        hf = QFormLayout(hide_box)
        self.method = QComboBox()
        for key, text in METHOD_LABELS.items():
            self.method.addItem(text, key)
        self.method.activated.connect(
            lambda _i: self._emit_photo("method", self.method.currentData()))
        self.strength = QDoubleSpinBox()
        self.strength.setRange(0.0, 64.0)
        self.strength.setSingleStep(0.05)
        self.strength.setSpecialValueText("default")
        self.strength.setToolTip("Blur: sigma as a fraction of the region's short side "
                                 "(default 0.25). Pixelate: blocks across the region "
                                 "(default 8).")
        self.strength.editingFinished.connect(
            lambda: self._emit_photo("strength", self.strength.value() or None))
        self.feather = QDoubleSpinBox()
        self.feather.setRange(0, 200)
        self.feather.setSuffix(" px")
        self.feather.setToolTip("Soft edge outside each region (inside stays fully hidden)")
        self.feather.editingFinished.connect(
            lambda: self._emit_photo("feather", float(self.feather.value())))
        hf.addRow("Method:", self.method)
        hf.addRow("Strength:", self.strength)
        hf.addRow("Feather:", self.feather)
        layout.addWidget(hide_box)

        region_box = QGroupBox("Regions")
        rl = QVBoxLayout(region_box)
        self.region_list = QListWidget()
        self.region_list.setMinimumHeight(90)
        self.region_list.setMaximumHeight(170)
        self.region_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.region_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.region_list.setWordWrap(True)  # who found a region, whole: the panel is narrow
        self.region_list.currentRowChanged.connect(self._row_changed)
        # Delete (or Backspace) here, where a region is picked, as on the canvas
        delete = make_action(self.region_list, "Delete Region", lambda: self._delete_clicked(),
                             "Delete", local=True)
        delete.setShortcuts([QKeySequence("Delete"), QKeySequence("Backspace")])
        rl.addWidget(self.region_list)
        rf = QFormLayout()
        self.kind = QComboBox()
        self.kind.addItems(["face", "plate", "other"])
        self.kind.activated.connect(lambda _i: self._emit_region("kind",
                                                                 self.kind.currentText()))
        self.shape = QComboBox()
        self.shape.addItem("Rectangle", "rect")
        self.shape.addItem("Ellipse", "ellipse")
        self.shape.activated.connect(lambda _i: self._emit_region("shape",
                                                                  self.shape.currentData()))
        self.region_method = QComboBox()
        self.region_method.addItem("As the photo", None)
        for key, text in METHOD_LABELS.items():
            self.region_method.addItem(text, key)
        self.region_method.activated.connect(
            lambda _i: self._emit_region("method", self.region_method.currentData()))
        for combo in (self.kind, self.shape, self.region_method):
            combo.setPlaceholderText("select a region")  # not blank boxes with none chosen
        rf.addRow("Kind:", self.kind)
        rf.addRow("Shape:", self.shape)
        rf.addRow("Method:", self.region_method)
        rl.addLayout(rf)
        self.delete_button = QPushButton("Delete region")
        self.delete_button.setToolTip("Remove a false alarm (Delete)")
        self.delete_button.clicked.connect(self._delete_clicked)
        self.onto_button = QPushButton("Move onto photo")
        self.onto_button.setToolTip("This region lies off the photo and hides nothing: "
                                    "move it onto the photo's nearest edge, then fix it")
        self.onto_button.clicked.connect(self._onto_clicked)
        row = QHBoxLayout()
        row.addWidget(self.delete_button)
        row.addWidget(self.onto_button)
        rl.addLayout(row)
        # detections deleted before: Detect leaves them out; each can come back (ADR 201)
        row = QHBoxLayout()
        self.rejected_label = _label()
        self.restore_button = QPushButton("Restore")
        self.restore_button.setToolTip("Bring back a detection you deleted")
        self.restore_button.setMenu(QMenu(self.restore_button))
        row.addWidget(self.rejected_label, 1)
        row.addWidget(self.restore_button)
        rl.addLayout(row)
        layout.addWidget(region_box)

        geo_box = QGroupBox("Geometry (applied on release)")
        gl = QVBoxLayout(geo_box)
        row = QHBoxLayout()
        left = QPushButton("⟲ 90°")
        left.setToolTip("Rotate counter-clockwise ([)")
        left.clicked.connect(lambda: self.rotate.emit(-1))
        right = QPushButton("⟳ 90°")
        right.setToolTip("Rotate clockwise (])")
        right.clicked.connect(lambda: self.rotate.emit(1))
        self.angle = QDoubleSpinBox()
        self.angle.setRange(-45, 45)
        self.angle.setSingleStep(0.1)
        self.angle.setDecimals(1)
        self.angle.setSuffix("°")
        self.angle.setToolTip("Fine rotation, clockwise; the result is cropped so no "
                              "empty corners appear")
        self.angle.editingFinished.connect(lambda: self.angle_edit.emit(self.angle.value()))
        row.addWidget(left)
        row.addWidget(right)
        gl.addLayout(row)
        rotate_row = row
        row = QHBoxLayout()
        row.addWidget(_label("Straighten:"))
        row.addWidget(self.angle, 1)
        gl.addLayout(row)
        row = QHBoxLayout()
        corners = QPushButton("Perspective corners")
        corners.setToolTip("Drag the four yellow corners onto a painting's corners (K)")
        corners.clicked.connect(lambda: self.tool_requested.emit("corners"))
        crop = QPushButton("Crop")
        crop.setToolTip("Draw the crop on the After view (C)")
        crop.clicked.connect(lambda: self.tool_requested.emit("crop"))
        self.reset_button = QPushButton("Reset")
        self.reset_button.setToolTip("Remove the perspective corners, the crop, or every "
                                     "geometry change")
        reset_menu = QMenu(self.reset_button)
        for key, text in (("corners", "Perspective Corners"), ("crop", "Crop"),
                          ("all", "All Geometry")):
            def reset(k: str = key) -> None:
                self.reset_geometry.emit(k)

            reset_menu.addAction(text, reset)
        self.reset_button.setMenu(reset_menu)
        row.addWidget(corners)
        row.addWidget(crop)
        gl.addLayout(row)
        rotate_row.addWidget(self.reset_button)
        self.geometry_info = _label()
        gl.addWidget(self.geometry_info)
        layout.addWidget(geo_box)

        meta_box = QGroupBox("Metadata")
        mf = QFormLayout(meta_box)
        self.category = QComboBox()
        self.category.addItem("—", None)
        for cat in CATEGORIES:
            self.category.addItem(cat, cat)
        self.category.activated.connect(
            lambda _i: self._emit_photo("category", self.category.currentData()))
        self.credit = QLineEdit()
        self.credit.setPlaceholderText("Photographer's name as it should be credited")
        self.credit.editingFinished.connect(
            lambda: self._emit_photo("credit", self.credit.text().strip()))
        self.licence = QComboBox()
        self.licence.setEditable(True)
        self.licence.addItems(list(LICENCES))
        licence_edit = self.licence.lineEdit()
        assert licence_edit is not None  # the combo box is editable
        licence_edit.editingFinished.connect(
            lambda: self._emit_photo("licence", self.licence.currentText().strip()
                                     or DEFAULT_LICENCE))
        self.licence.activated.connect(
            lambda _i: self._emit_photo("licence", self.licence.currentText()))
        self.caption = _TextEdit()
        self.caption.setFixedHeight(54)
        self.caption.editing_finished.connect(
            lambda: self._emit_photo("caption", self.caption.toPlainText()))
        self.notes = _TextEdit()
        self.notes.setFixedHeight(54)
        self.notes.editing_finished.connect(
            lambda: self._emit_photo("notes", self.notes.toPlainText()))
        mf.addRow("Category:", self.category)
        mf.addRow("Credit:", self.credit)
        mf.addRow("Licence:", self.licence)
        mf.addRow("Caption:", self.caption)
        mf.addRow("Notes:", self.notes)
        layout.addWidget(meta_box)
        layout.addStretch(1)
        self.setWidget(body)
        # as wide as the controls need: the panel never cuts them off on the right
        self.setMinimumWidth(body.minimumSizeHint().width() + 2 * self.frameWidth()
                             + self.verticalScrollBar().sizeHint().width())
        self.current: Photo | None = None
        self.regions: list[Region] = []
        self._wheel_guard = _WheelGuard(self)
        for widget in [*body.findChildren(QComboBox), *body.findChildren(QDoubleSpinBox)]:
            widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            widget.installEventFilter(self._wheel_guard)

    # -- showing -------------------------------------------------------------------------
    def show_photo(self, photo: Photo | None, regions: list[Region], selected: int | None,
                   rejected: list[Region] | None = None) -> None:
        """Fill every control from ``photo``, its ``regions`` and the detections the
        photographer ``rejected``."""
        self._loading = True
        try:
            self.current = photo
            self.setEnabled(photo is not None)
            self._show_rejected((rejected or []) if photo is not None else [])
            if photo is None:
                self.region_list.clear()
                self.region_ids, self.regions = [], []
                self._show_region_fields(-1)
                self.status_label.setText("No photo selected")
                return
            self.status_label.setText(STATUS_TEXT.get(photo.status, photo.status))
            self.review_button.setChecked(photo.status in ("reviewed", "released"))
            self.review_button.setText("Reviewed ✓" if photo.status != "new"
                                       else "Mark reviewed")
            self.release_button.setEnabled(photo.status in ("reviewed", "released"))
            self.release_info.setText(_release_text(photo))
            self.method.setCurrentIndex(max(0, self.method.findData(photo.method)))
            self.strength.setValue(photo.strength or 0.0)
            self.feather.setValue(photo.feather)
            self.angle.setValue(photo.geometry.angle)
            geo = photo.geometry
            parts = []
            if geo.quad:
                parts.append("perspective corners set")
            if geo.angle:
                parts.append(f"straightened {geo.angle:+.1f}°")
            if geo.rot90:
                parts.append(f"rotated {90 * geo.rot90}°")
            if geo.crop:
                parts.append(f"cropped to {geo.crop[2]:.0f}×{geo.crop[3]:.0f}")
            self.geometry_info.setText("; ".join(parts) or "Unchanged")
            self.category.setCurrentIndex(max(0, self.category.findData(photo.category)))
            self.credit.setText(photo.credit)
            self.licence.setEditText(photo.licence)
            self.caption.setPlainText(photo.caption)
            self.notes.setPlainText(photo.notes)
            self.region_list.clear()
            self.region_ids, self.regions = [], list(regions)
            for r in regions:
                how = METHOD_LABELS[r.method] if r.method else "as photo"
                where = _placement(photo, r)
                item = QListWidgetItem(f"{_region_text(r)} · "
                                       f"{'ellipse' if r.shape == 'ellipse' else 'rect'} · "
                                       f"{how}" + (f" · {where}" if where else ""))
                shown = spell_controls(visible(r.source[:200]))
                item.setToolTip(plain_tooltip(f"{item.text()}\nDetector: {shown}"))
                self.region_list.addItem(item)
                self.region_ids.append(r.id)
            self.select_region(selected)
        finally:
            self._loading = False

    def _show_rejected(self, rejected: list[Region]) -> None:
        """"2 rejected detections" and a Restore menu with each of them and all."""
        n = len(rejected)
        self.rejected_label.setText(
            f"{n} rejected detection{'s' if n != 1 else ''}: Detect leaves "
            f"{'it' if n == 1 else 'them'} out")
        for widget in (self.rejected_label, self.restore_button):
            widget.setVisible(n > 0)
        menu = self.restore_button.menu()
        assert menu is not None
        menu.clear()
        for r in rejected:
            menu.addAction(_region_text(r).replace("&", "&&"),  # no mnemonic
                           partial(self.restore_rejected.emit, [r.id]))
        if n > 1:
            menu.addSeparator()
            menu.addAction(f"All {n}", partial(self.restore_rejected.emit,
                                               [r.id for r in rejected]))
        self.rejected_label.setToolTip(plain_tooltip("\n".join(
            f"{_region_text(r)} at {r.x:.0f}, {r.y:.0f} ({r.w:.0f}×{r.h:.0f})"
            for r in rejected)))

    def select_region(self, region_id: int | None) -> None:
        """Highlight ``region_id`` in the list and show its fields."""
        was = self._loading
        self._loading = True
        try:
            row = self.region_ids.index(region_id) if region_id in self.region_ids else -1
            self.region_list.setCurrentRow(row)
            self._show_region_fields(row)
        finally:
            self._loading = was

    def _show_region_fields(self, row: int) -> None:
        """The selected region's kind, shape and method; empty and disabled with none."""
        region = self.regions[row] if 0 <= row < len(self.regions) else None
        for widget in (self.kind, self.shape, self.region_method, self.delete_button):
            widget.setEnabled(region is not None)
        self.onto_button.setVisible(region is not None and self.current is not None and
                                    _placement(self.current, region) == OFF_PHOTO)
        if region is None:
            for combo in (self.kind, self.shape, self.region_method):
                combo.setCurrentIndex(-1)
            return
        self.kind.setCurrentText(region.kind)
        self.shape.setCurrentIndex(max(0, self.shape.findData(region.shape)))
        self.region_method.setCurrentIndex(
            0 if region.method is None else max(0, self.region_method.findData(region.method)))

    # -- intents -------------------------------------------------------------------------
    def _emit_photo(self, key: str, value: Any) -> None:
        if not self._loading and self.current is not None:
            self.photo_edit.emit({key: value})

    def _emit_region(self, key: str, value: Any) -> None:
        row = self.region_list.currentRow()
        if not self._loading and row >= 0:
            self.region_edit.emit(self.region_ids[row], {key: value})

    def _row_changed(self, row: int) -> None:
        self._show_region_fields(row)
        if not self._loading:
            self.region_selected.emit(self.region_ids[row] if row >= 0 else None)

    def _delete_clicked(self) -> None:
        row = self.region_list.currentRow()
        if row >= 0:
            self.delete_regions.emit([self.region_ids[row]])

    def _onto_clicked(self) -> None:
        row = self.region_list.currentRow()
        if row >= 0:
            self.onto_photo.emit(self.region_ids[row])

    def _review_toggled(self, checked: bool) -> None:
        if not self._loading:
            self.mark_reviewed.emit(checked)


def _placement(photo: Photo, r: Region) -> str:
    """"off the photo" or "cropped away" for a region that hides nothing in the release
    (ADR 201), "box not a number" for one edited outside Winnow (ADR 211), else ""."""
    if r.unreadable:
        return f"box not a number ({r.unreadable}): not drawn, delete it"
    box = (r.x, r.y, r.w, r.h)
    if not on_photo(box, (photo.width, photo.height)):
        return OFF_PHOTO
    if not photo.geometry.is_identity() and \
            not kept_by(photo.geometry, photo.width, photo.height, box, r.shape):
        return "cropped away"
    return ""


def _region_text(r: Region) -> str:
    """"#12  face · CenterFace 0.83": the region, what found it and how surely."""
    source = describe_source(r.source)
    if r.source != "manual" and r.score is not None:
        source += f" {r.score:.2f}"
    return f"#{r.id}  {r.kind} · {source}"


def _release_text(photo: Photo) -> str:
    if not photo.released_path:
        return "Not released yet. Releasing writes a new file with every region hidden, " \
               "the geometry applied and no metadata; the original stays untouched."
    ver = photo.verification or {}
    check = "verified: no face found" if ver.get("ok") else \
        f"verified with warnings: {len(ver.get('outside', []))} face(s) outside regions " \
        "accepted"
    raised = ver.get("raised") or {}
    added = [k for k, v in raised.items() if isinstance(v, dict) and v.get("added")]
    stronger = [k for k in raised if k not in added]
    extra = f"; strength raised for {', '.join(stronger)}" if stronger else ""
    if added:
        extra += f"; {len(added)} readable plate(s) no region covered hidden at release"
    kept = [f for f in ver.get("text_outside") or [] if not f.get("hidden")]
    if kept:
        extra += f"; {len(kept)} readable plate-shaped text line(s) left as they are " \
                 "(category Text)"
    return f"Released {format_when(photo.released_at)} to {photo.released_path} " \
           f"({check}{extra})"
