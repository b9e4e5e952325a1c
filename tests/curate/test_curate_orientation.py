"""Curate shows a photo upright (its EXIF orientation applied, as ``decode_rgb`` and the
rating files do), while boxes stay stored in the file's own pixels: the viewer maps them
both ways, so a box drawn on the upright image crops what the rating file crops."""

from __future__ import annotations

import io

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from oriented_photos import H, W, oriented_photo  # noqa: E402
from PIL import Image  # noqa: E402
from PySide6.QtCore import QPoint, QPointF, QRect, Qt  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402

from core.curate.detail import Box, ImageItem  # noqa: E402
from core.imaging.decode import decode_rgb  # noqa: E402
from core.rating import images as rating_images  # noqa: E402
from ui.curate import images as curate_images  # noqa: E402
from ui.curate.image_panel import ImagePanel  # noqa: E402
from ui.curate.images import ImageStore, decode, map_box, upright_transform  # noqa: E402


def _array(img: QImage) -> np.ndarray:
    img = img.convertToFormat(QImage.Format.Format_RGB888)
    w, h = img.width(), img.height()
    data = np.frombuffer(img.constBits(), dtype=np.uint8).reshape(h, img.bytesPerLine())
    return data[:, : w * 3].reshape(h, w, 3).astype(int)


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    """Same shape and the same picture (Qt's and Pillow's JPEG decoders differ by a few
    levels at edges)."""
    return a.shape == b.shape and float(np.abs(a - b.astype(int)).mean()) < 4.0


@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
@pytest.mark.parametrize("orientation", range(1, 9))
def test_curate_decodes_upright_as_core_does(qapp, fmt: str, orientation: int) -> None:
    data = oriented_photo(orientation, fmt)
    img, error = decode(data)
    assert img is not None and error == ""
    reference = decode_rgb(data)
    assert _close(_array(img), reference)
    if orientation != 1:  # and differs from the stored pixels: the test can tell
        stored = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
        assert not _close(_array(img), stored)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_boxes_map_as_the_rating_files_crop_them(qapp, orientation: int) -> None:
    data = oriented_photo(orientation)
    img, _ = decode(data)
    assert img is not None
    transform = upright_transform(orientation, W, H)
    for stored in (QRect(2, 3, 20, 11), QRect(40, 25, 24, 15), QRect(0, 0, W, H)):
        shown = map_box(transform, stored)
        crop = _array(img.copy(shown))
        reference = rating_images.decode(data, "x", [stored.x(), stored.y(), stored.width(),
                                                     stored.height()])
        assert _close(crop, reference), (orientation, stored, shown)
        assert map_box(transform, shown, inverse=True) == stored


@pytest.mark.parametrize("orientation", [3, 6, 8])
def test_image_panel_shows_upright_and_stores_boxes_in_file_pixels(
        qtbot, monkeypatch: pytest.MonkeyPatch, orientation: int) -> None:
    data = oriented_photo(orientation)
    monkeypatch.setattr(curate_images, "image_bytes", lambda project, sha: data)
    panel = ImagePanel(ImageStore())
    qtbot.addWidget(panel)
    panel.resize(900, 700)
    panel.show()
    qtbot.waitExposed(panel)
    stored_box = Box(row_id=7, role="input", position=0, x=2, y=3, w=20, h=11)
    item = ImageItem(key="s" * 64, sha256="s" * 64, ref="photo.jpg", width=W, height=H,
                     boxes=[stored_box])
    panel.set_items(object(), [item], screenshot=True)
    canvas = panel.canvas
    assert canvas.image is not None
    assert _close(_array(canvas.image), decode_rgb(data))  # upright, as in a rating file
    portrait = orientation in (6, 8)
    assert (f"{H}×{W} px" if portrait else f"{W}×{H} px") in panel.caption.text()
    thumb = panel.store.thumbnail(object(), item.sha256)
    assert (thumb.width() > thumb.height()) == (orientation == 3)
    # the stored box is shown where it lies on the upright image, and so is its preview
    reference = rating_images.decode(data, "x", list(stored_box.rect))
    shown = canvas.boxes[0].rect
    assert _close(_array(canvas.image.copy(shown)), reference)
    assert _close(_array(dict(panel.preview.crops)["input 1"]), reference)
    # a box drawn on the upright image reaches core in the file's pixels
    canvas.set_zoom(4.0)
    canvas.offset = QPointF(0, 0)

    def at(x: int, y: int) -> QPoint:
        return canvas.to_widget(QPointF(x, y)).toPoint()

    panel.draw_output.click()
    with qtbot.waitSignal(panel.box_drawn) as drawn:
        qtbot.mousePress(canvas, Qt.MouseButton.LeftButton, pos=at(1, 2))
        qtbot.mouseMove(canvas, at(10, 20))
        qtbot.mouseRelease(canvas, Qt.MouseButton.LeftButton, pos=at(13, 22))
    sent, rect, role = drawn.args
    assert sent is item and role == "output"
    upright_rect = QRect(1, 2, 12, 20)
    assert map_box(upright_transform(orientation, W, H), rect) == upright_rect
    crop = rating_images.decode(data, "x", [rect.x(), rect.y(), rect.width(), rect.height()])
    assert _close(crop, _array(canvas.image.copy(upright_rect)))
    assert QRect(0, 0, W, H).contains(rect)  # inside the stored image


def test_adjudication_tiles_are_upright_with_their_boxes(
        qapp, monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtGui import QGuiApplication

    from ui.curate import adjudicate
    from ui.curate.canvas import ROLE_COLOURS

    data = oriented_photo(6)
    monkeypatch.setattr(adjudicate, "image_bytes", lambda project, sha: data)
    sha = "a" * 64
    value = {"screenshot": True, "rows": [["input", 0, "p.jpg", sha, 2, 3, 20, 11, None]]}
    tile = adjudicate.draw_images(object(), value, QGuiApplication.palette()).toImage()
    assert (tile.width(), tile.height()) == (H, W)  # portrait: upright, scale 1
    box = map_box(upright_transform(6, W, H), QRect(2, 3, 20, 11))
    edge = tile.pixelColor(box.x(), box.center().y())
    want = ROLE_COLOURS["input"]
    assert abs(edge.red() - want.red()) + abs(edge.blue() - want.blue()) < 40


@pytest.mark.parametrize("orientation", [0, 9, 65535])
def test_an_orientation_out_of_range_shows_the_image_as_stored(qapp, orientation: int) -> None:
    data = oriented_photo(orientation)
    img, error = decode(data)
    assert img is not None and error == "" and (img.width(), img.height()) == (W, H)
    assert curate_images.orientation(data) == 1


def test_a_broken_exif_block_shows_the_image_as_stored(qapp) -> None:
    data = bytearray(oriented_photo(6))
    at = data.find(b"Exif\x00\x00")
    assert at > 0
    data[at + 6: at + 14] = b"XXXXXXXX"  # the TIFF header: unreadable
    img, error = decode(bytes(data))
    assert img is not None and error == "" and (img.width(), img.height()) == (W, H)
