"""Boxes on an EXIF-rotated screenshot, end to end through the Curate workspace: a box
drawn, moved or resized anywhere on the upright image is stored exactly in the file's own
pixels (the upright box core's rule gives back is the one drawn, clipped to the image the
same way for every orientation) and shown back where it was drawn; a box of no size is
refused with "Edit not saved", nothing stored."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PIL import Image  # noqa: E402
from PySide6.QtCore import QRect  # noqa: E402

from core.rating.images import _upright_box  # noqa: E402
from core.store import Project  # noqa: E402
from ui.context import AppContext  # noqa: E402
from ui.curate.workspace import CurateWorkspace  # noqa: E402

W, H = 240, 160  # stored pixels (landscape); orientations 5–8 show it 160 × 240


def _oriented_jpeg(orientation: int) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    Image.new("RGB", (W, H), (90, 140, 200)).save(out, "JPEG", exif=exif.tobytes())
    return out.getvalue()


def _use_rotated_shot(project: Project, orientation: int) -> None:
    """Make sample s2's screenshot a ``W``×``H`` JPEG with EXIF ``orientation``."""
    data = _oriented_jpeg(orientation)
    sha, _ = project.assets.put(data, "jpg")
    with project.transaction() as conn:
        conn.execute("INSERT OR IGNORE INTO images(sha256, ext, mime, width, height, bytes, "
                     "created_at) VALUES (?, 'jpg', 'image/jpeg', ?, ?, ?, '2026-01-01')",
                     (sha, W, H, len(data)))
        conn.execute("UPDATE sample_images SET sha256 = ? WHERE sample_id = 's2'", (sha,))


class _Page:
    """The Curate workspace on sample s2, with the messages it shows."""

    def __init__(self, qtbot, project: Project) -> None:  # type: ignore[no-untyped-def]
        self.messages: list[tuple[str, str]] = []
        context = AppContext()
        context.bind(lambda *a, **k: None, lambda t, m: self.messages.append((t, m)),
                     lambda text, ms: None)
        context.project = project
        self.project = project
        self.ws = CurateWorkspace(context)
        qtbot.addWidget(self.ws)
        self.ws.resize(1300, 800)
        self.ws.show()
        qtbot.waitExposed(self.ws)
        self.ws.select_row(self.ws.model.row_of("s2"))
        assert self.ws.current_id() == "s2"
        self.canvas = self.ws.view.images.canvas

    def stored(self) -> dict[int, tuple[int, int, int, int]]:
        return {r[0]: tuple(r[1:]) for r in self.project.conn.execute(
            "SELECT id, bbox_x, bbox_y, bbox_w, bbox_h FROM sample_images "
            "WHERE sample_id = 's2' AND bbox_x IS NOT NULL")}

    def shown(self, row_id: int) -> QRect:
        return next(b.rect for b in self.canvas.boxes if b.row_id == row_id)


def _upright(stored: tuple[int, int, int, int], orientation: int) -> QRect:
    """A stored box as core's one orientation rule shows it (as the rating files crop)."""
    left, top, right, bottom = _upright_box(list(stored), orientation, W, H)
    return QRect(left, top, right - left, bottom - top)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_a_box_anywhere_on_a_rotated_image_is_stored_exactly(qtbot, curate_project,  # type: ignore[no-untyped-def]
                                                             orientation: int) -> None:
    _use_rotated_shot(curate_project, orientation)
    page = _Page(qtbot, curate_project)
    image = page.canvas.image
    assert image is not None
    sw, sh = image.width(), image.height()
    assert (sw, sh) == ((H, W) if orientation >= 5 else (W, H))
    # four corners and the middle of the upright image, drawn then moved there
    spots = [QRect(0, 0, 30, 20), QRect(sw - 30, 0, 30, 20), QRect(0, sh - 20, 30, 20),
             QRect(sw - 30, sh - 20, 30, 20), QRect(sw // 2, sh // 2, 25, 35)]
    for drawn in spots:
        before = page.stored()
        page.canvas.box_drawn.emit(QRect(drawn), "input")
        new = set(page.stored()) - set(before)
        assert len(new) == 1, page.messages
        row_id = new.pop()
        assert _upright(page.stored()[row_id], orientation) == drawn
        assert page.shown(row_id) == drawn
        for moved in spots:
            if moved == drawn:
                continue
            page.canvas.box_changed.emit(row_id, QRect(moved), False)
            assert _upright(page.stored()[row_id], orientation) == moved
            assert page.shown(row_id) == moved
    # a box reaching past the bottom-right edge is cut at the edge, whatever the rotation
    page.canvas.box_drawn.emit(QRect(sw - 10, sh - 12, 40, 40), "output")
    row_id = max(page.stored())
    assert page.shown(row_id) == QRect(sw - 10, sh - 12, 10, 12)
    assert _upright(page.stored()[row_id], orientation) == QRect(sw - 10, sh - 12, 10, 12)
    assert page.messages == []


@pytest.mark.parametrize("rect", [QRect(10, 10, 0, 0), QRect(50, 50, -20, -20),
                                  QRect(100000, 100000, 50, 50)])
def test_a_box_of_no_size_or_off_the_image_is_refused_with_a_message(qtbot, curate_project,  # type: ignore[no-untyped-def]
                                                                     rect: QRect) -> None:
    _use_rotated_shot(curate_project, 6)
    page = _Page(qtbot, curate_project)
    before = page.stored()
    page.canvas.box_drawn.emit(QRect(rect), "input")
    row_id = next(iter(before))
    page.canvas.box_changed.emit(row_id, QRect(rect), False)
    assert page.stored() == before
    titles = [t for t, _ in page.messages]
    assert titles == ["Edit not saved", "Edit not saved"], page.messages
    drawn, changed = (m for _, m in page.messages)
    assert drawn.startswith("Add input box: ") and changed.startswith("Move/resize box: ")
    words = "outside the image" if rect.width() > 0 else "positive width and height"
    assert words in drawn and words in changed
