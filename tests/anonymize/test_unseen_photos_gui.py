"""The Anonymize workspace at 1280×720 with photos nobody designed it for: a 16000×1500
panorama and a 40×30 thumbnail fit the view with their regions on screen, a portrait
stored with EXIF orientation 6 shows upright with its region where it was drawn, and a
folder of broken files is reported file by file, none left out silently."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from anon_helpers import quadrant_image  # noqa: E402
from PIL import Image  # noqa: E402
from PySide6.QtCore import QRectF, Qt  # noqa: E402
from qt_helpers import open_with_photos  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.imaging import photos as repo  # noqa: E402
from ui.anonymize.region_items import RegionItem  # noqa: E402


def _shown(window: MainWindow, qtbot, photo_id: int):  # type: ignore[no-untyped-def]
    page = window.pages["anonymize"]
    row = next(i for i in range(page.list.count())
               if page.list.item(i).data(Qt.ItemDataRole.UserRole) == photo_id)
    page.list.setCurrentRow(row)
    photo = repo.get_photo(window.project, photo_id)
    size = (photo.width, photo.height)
    canvas = page.canvas
    qtbot.waitUntil(lambda: page.viewer.photo is not None and page.viewer.photo.id == photo_id
                    and (canvas.sceneRect().width(), canvas.sceneRect().height()) == size,
                    timeout=60_000)
    qtbot.wait(50)
    return page, canvas


def _on_screen(canvas, rect: QRectF) -> QRectF:  # type: ignore[no-untyped-def]
    return QRectF(canvas.mapFromScene(rect).boundingRect())


@pytest.fixture
def window(main_window: MainWindow, qtbot) -> MainWindow:  # type: ignore[no-untyped-def]
    main_window.resize(1280, 720)
    main_window.show_workspace("anonymize")
    qtbot.wait(50)
    return main_window


def test_a_panorama_and_a_thumbnail_fit_the_view_with_their_regions(window: MainWindow,
                                                                    qtbot,
                                                                    tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    yy, xx = np.mgrid[0:1500, 0:16000]
    panorama = np.stack([(xx // 63) % 256, 120 + (yy // 12) % 100, 180 - (yy // 10) % 120],
                        -1).astype(np.uint8)
    Image.fromarray(panorama).save(folder / "panorama.jpg", quality=70)
    Image.fromarray(quadrant_image(40, 30)).save(folder / "thumb.png")
    pano_id, thumb_id = open_with_photos(window, tmp_path, folder / "panorama.jpg",
                                         folder / "thumb.png")
    repo.add_region(window.project, pano_id, kind="face", x=9000, y=1000, w=120, h=140)
    repo.add_region(window.project, thumb_id, kind="face", x=10, y=8, w=12, h=14)
    window.pages["anonymize"].reload()
    for photo_id, region in ((pano_id, QRectF(9000, 1000, 120, 140)),
                             (thumb_id, QRectF(10, 8, 12, 14))):
        page, canvas = _shown(window, qtbot, photo_id)
        view = QRectF(canvas.viewport().rect()).adjusted(-1, -1, 1, 1)
        whole = _on_screen(canvas, canvas.sceneRect())
        assert view.contains(whole), (photo_id, whole, view)  # all of it on screen
        # fitted: it fills the view's width or height
        assert max(whole.width() / view.width(), whole.height() / view.height()) > 0.95
        shown = _on_screen(canvas, region)
        assert view.contains(shown) and shown.width() >= 4, (photo_id, shown)
        if photo_id == thumb_id:  # 40×30 is enlarged to be seen, not left a speck
            assert canvas.view_scale() > 8


def test_a_rotated_portrait_is_upright_with_its_region_in_place(window: MainWindow, qtbot,
                                                               tmp_path: Path) -> None:
    upright = quadrant_image(300, 400)  # red top-left, white bottom-right, as seen
    stored = np.rot90(upright, k=1).copy()  # orientation 6 turns it back clockwise
    exif = Image.Exif()
    exif[0x0112] = 6
    src = tmp_path / "portrait.jpg"
    Image.fromarray(stored).save(src, exif=exif, quality=95)
    (photo_id,) = open_with_photos(window, tmp_path, src)
    photo = repo.get_photo(window.project, photo_id)
    assert (photo.width, photo.height) == (300, 400)
    repo.add_region(window.project, photo_id, kind="face", x=20, y=20, w=100, h=120)
    window.pages["anonymize"].reload()
    page, canvas = _shown(window, qtbot, photo_id)
    grab = canvas.viewport().grab().toImage()
    whole = _on_screen(canvas, canvas.sceneRect())

    def colour(fx: float, fy: float) -> tuple[int, int, int]:
        pixel = grab.pixelColor(int(whole.x() + fx * whole.width() / grab.devicePixelRatio()),
                                int(whole.y() + fy * whole.height() / grab.devicePixelRatio()))
        return pixel.red(), pixel.green(), pixel.blue()

    red, white = colour(0.3, 0.1), colour(0.8, 0.9)
    assert red[0] > 150 and red[1] < 90 and min(white) > 180, (red, white)
    assert whole.height() > whole.width()  # portrait on screen
    items = [i for i in canvas.scene().items() if isinstance(i, RegionItem)]
    assert len(items) == 1
    box = items[0].mapRectToScene(items[0].rect())
    assert (box.x(), box.y(), box.width(), box.height()) == pytest.approx((20, 20, 100, 120),
                                                                          abs=1)


def test_broken_files_are_each_named_none_left_out(window: MainWindow, qtbot, tmp_path: Path,
                                                  monkeypatch) -> None:
    """25 broken files: the message names the first ones and says how many more, instead
    of ending silently at 20."""
    folder = tmp_path / "in"
    folder.mkdir()
    Image.fromarray(quadrant_image(60, 40)).save(folder / "good.jpg")
    whole = (folder / "good.jpg").read_bytes()
    for k in range(24):
        (folder / f"cut{k:02d}.jpg").write_bytes(whole[: len(whole) // 2])
    (folder / "a-page.jpg").write_bytes(b"<!doctype html><html>login</html>")
    open_with_photos(window, tmp_path)
    messages: list[tuple[str, str]] = []
    monkeypatch.setattr(window.context, "message", lambda t, x: messages.append((t, x)))
    monkeypatch.setattr(window.context, "refuse", lambda t, x: messages.append((t, x)))
    page = window.pages["anonymize"]
    job = page.jobs.import_folder(folder)
    assert job is not None
    qtbot.waitUntil(lambda: bool(messages), timeout=60_000)
    title, text = messages[0]
    assert title == "Some photos could not be imported"
    assert text.startswith("25 photos could not be imported")
    assert "cut00.jpg: truncated JPEG" in text and "a-page.jpg: not an image (looks like HTML)" \
        in text
    assert "… and 5 more" in text
    assert len(repo.list_photos(window.project)) == 1


def test_files_left_out_of_an_import_are_named(window: MainWindow, qtbot, tmp_path: Path,
                                               monkeypatch) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    Image.fromarray(quadrant_image(60, 40)).save(folder / "good.jpg")
    Image.fromarray(quadrant_image(60, 40)).save(folder / "shot.webp")
    open_with_photos(window, tmp_path)
    messages: list[tuple[str, str]] = []
    monkeypatch.setattr(window.context, "message", lambda t, x: messages.append((t, x)))
    monkeypatch.setattr(window.context, "refuse", lambda t, x: messages.append((t, x)))
    assert window.pages["anonymize"].jobs.import_folder(folder) is not None
    qtbot.waitUntil(lambda: bool(messages), timeout=60_000)
    title, text = messages[0]
    assert title == "Some files were not imported"
    assert "1 file was left out" in text and "shot.webp: .webp images are not supported" in text


def test_long_unicode_and_html_credit_licence_and_caption(window: MainWindow, qtbot,
                                                           tmp_path: Path) -> None:
    """10,000 characters, scripts of four languages, an emoji, HTML and newlines in the
    metadata fields: shown as typed (never as rich text), stored exactly, and the window
    does not grow."""
    src = tmp_path / "p.png"
    Image.fromarray(quadrant_image(80, 60)).save(src)
    (photo_id,) = open_with_photos(window, tmp_path, src)
    width = window.width()
    long_text = "Zoë Ångström 山田太郎 مريم 🙂 " * 400  # ~10,000 characters
    html = "<b>bold</b><img src=x onerror=alert(1)>"
    repo.update_photo(window.project, photo_id, credit=html, licence=long_text,
                      caption="line one\nline two <i>3</i>")
    window.pages["anonymize"].reload()
    page, _canvas = _shown(window, qtbot, photo_id)
    panel = page.panel
    qtbot.waitUntil(lambda: panel.credit.text() == html, timeout=10_000)
    assert panel.licence.currentText() == long_text
    assert panel.caption.toPlainText() == "line one\nline two <i>3</i>"
    qtbot.wait(100)
    assert window.width() == width
    # entered through the panel (QTest cannot type non-Latin keys: inserted as an input
    # method would): stored exactly as entered
    typed = "Ana Łukasiewicz & 佐藤 <3"
    panel.credit.setFocus()
    panel.credit.selectAll()
    panel.credit.insert(typed)
    panel.credit.editingFinished.emit()
    qtbot.waitUntil(lambda: repo.get_photo(window.project, photo_id).credit == typed,
                    timeout=10_000)
    assert repo.get_photo(window.project, photo_id).licence == long_text


def test_a_folder_without_photos_says_so(window: MainWindow, qtbot, tmp_path: Path,
                                         monkeypatch) -> None:
    """A new user who picks the wrong (empty) folder is told that it holds no photos and
    which files Import Photo Folder reads, instead of a status line that fades away."""
    folder = tmp_path / "nothing-here"
    (folder / "sub").mkdir(parents=True)
    open_with_photos(window, tmp_path)
    messages: list[tuple[str, str]] = []
    monkeypatch.setattr(window.context, "message", lambda t, x: messages.append((t, x)))
    monkeypatch.setattr(window.context, "refuse", lambda t, x: messages.append((t, x)))
    job = window.pages["anonymize"].jobs.import_folder(folder)
    assert job is not None
    qtbot.waitUntil(lambda: bool(messages), timeout=60_000)
    title, text = messages[0]
    assert title == "No photos found"
    assert text.startswith("nothing-here holds no photos") and "JPG" in text \
        and "subfolders" in text
