"""Curate workspace through pytest-qt (offscreen): real key presses and mouse events."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PIL import Image  # noqa: E402
from PySide6.QtCore import QPoint, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402

from core.curate.detail import image_path, load_sample  # noqa: E402
from core.selection import SampleFilter  # noqa: E402
from core.store import Project  # noqa: E402
from ui.context import AppContext  # noqa: E402
from ui.curate.workspace import CurateWorkspace  # noqa: E402

CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


class Harness:
    """A workspace on its own AppContext; jobs run synchronously."""

    def __init__(self, qtbot, project: Project | None) -> None:  # type: ignore[no-untyped-def]
        self.context = AppContext()
        self.messages: list[str] = []
        self.context.bind(self._start_job, lambda t, m: self.messages.append(f"{t}: {m}"),
                          lambda text, ms: None)
        self.selections: list = []
        self.context.selection_changed.connect(
            lambda: self.selections.append(self.context.selection))
        self.context.project = project
        self.ws = CurateWorkspace(self.context)
        qtbot.addWidget(self.ws)
        self.ws.resize(1300, 800)
        self.ws.show()
        qtbot.waitExposed(self.ws)
        self.ws.activateWindow()

    def _start_job(self, title, fn, on_done):  # type: ignore[no-untyped-def]
        from concurrent.futures import Future

        from core.jobs import JobState

        class Job:
            pass

        job = Job()
        job.future = Future()
        try:
            job.future.set_result(fn(JobState(title=title)))
            job.outcome, job.error = "done", ""
        except Exception as exc:  # noqa: BLE001 - reported like the real runner
            job.future.set_exception(exc)
            job.outcome, job.error = "failed", str(exc)
        if on_done:
            on_done(job)
        return job

    def select(self, sid: str) -> None:
        self.ws.select_row(self.ws.model.row_of(sid))
        assert self.ws.current_id() == sid

    def key(self, qtbot, key, mods=Qt.KeyboardModifier.NoModifier, widget=None):  # type: ignore[no-untyped-def]
        target = widget or self.ws.table
        target.setFocus()
        qtbot.keyClick(target, key, mods)


@pytest.fixture
def h(qtbot, curate_project):  # type: ignore[no-untyped-def]
    return Harness(qtbot, curate_project)


def column(ws, key: str, sid: str) -> str:  # type: ignore[no-untyped-def]
    from core.curate.queries import COLUMN_KEYS

    return ws.model.index(ws.model.row_of(sid), COLUMN_KEYS.index(key)).data()


def test_start_page_without_project(qtbot) -> None:
    h = Harness(qtbot, None)
    assert h.ws.pages.currentWidget() is h.ws.start
    text = " ".join(w.text() for w in h.ws.start.findChildren(type(h.ws.filters.count)))
    assert "New Demo Project" in text and "Import Posts" in text
    assert not h.ws.page_actions.export.isEnabled()


def test_prompt_edit_undo_redo_reopen(qtbot, h, curate_project) -> None:
    ws = h.ws
    h.select("s1")
    edit = ws.view.prompt.edit
    edit.setFocus()
    qtbot.keyClick(edit, Qt.Key.Key_End, CTRL)
    qtbot.keyClicks(edit, " please")
    assert "Changes:" in ws.view.prompt.diff_caption.text() and ws.view.prompt.diff.isVisible()
    assert "please" in ws.view.prompt.diff.toPlainText()
    ws.table.setFocus()  # leaving the box saves the edit
    new = "Change the colour of the cat to green please"
    assert load_sample(curate_project, "s1").prompt == new
    assert column(ws, "modified", "s1") == "✎"
    assert "Edit prompt" in ws.page_actions.undo.text()
    h.key(qtbot, Qt.Key.Key_Z, CTRL)
    assert load_sample(curate_project, "s1").prompt == "Change the colour of the cat to green"
    assert ws.view.prompt.text() == "Change the colour of the cat to green"
    assert column(ws, "modified", "s1") == ""
    h.key(qtbot, Qt.Key.Key_Z, CTRL | SHIFT)
    assert ws.view.prompt.text() == new
    path = curate_project.path
    curate_project.close()
    h.context.project = Project.open(path)
    try:
        h.context.project_changed.emit()
        h.select("s1")
        assert ws.view.prompt.text() == new
        assert ws.view.prompt.original.text() == "Change the colour of the cat to green"
        # reset to original, from the keyboard, undoable
        h.key(qtbot, Qt.Key.Key_R, CTRL | SHIFT)
        assert load_sample(h.context.project, "s1").prompt == \
            "Change the colour of the cat to green"
    finally:
        h.context.project.close()
        h.context.project = None
        h.context.project_changed.emit()
    assert h.ws.pages.currentWidget() is h.ws.start


def test_label_keys_mark_and_advance_and_next_unreviewed(qtbot, h, curate_project) -> None:
    ws = h.ws
    h.select("s2")
    h.key(qtbot, Qt.Key.Key_T)
    assert load_sample(curate_project, "s2").quality == "Trash"
    assert column(ws, "quality", "s2") == "Trash"
    assert ws.view.quality_buttons["Trash"].isChecked()
    h.key(qtbot, Qt.Key.Key_A, SHIFT)   # label, mark reviewed, move on
    d = load_sample(curate_project, "s2")
    assert (d.quality, d.review_status) == ("Analysis", "reviewed")
    assert ws.current_id() == "s3"
    h.key(qtbot, Qt.Key.Key_Return, CTRL)  # mark and advance
    assert load_sample(curate_project, "s3").review_status == "reviewed"
    assert ws.current_id() == "s4"
    h.select("s1")
    h.key(qtbot, Qt.Key.Key_N)             # next unreviewed skips s2, s3
    assert ws.current_id() == "s4"
    h.key(qtbot, Qt.Key.Key_R)
    assert column(ws, "review_status", "s4") == "✓"
    h.key(qtbot, Qt.Key.Key_J)
    assert ws.current_id() == "s5"
    h.key(qtbot, Qt.Key.Key_K)
    assert ws.current_id() == "s4"


def test_bulk_label_and_tag_on_a_multi_selection(qtbot, h, curate_project) -> None:
    ws = h.ws
    h.select("s2")
    last = ws.model.index(ws.model.row_of("s4"), 0)
    rect = ws.table.visualRect(last)
    qtbot.mouseClick(ws.table.viewport(), Qt.MouseButton.LeftButton, SHIFT, rect.center())
    assert ws.selected_ids() == ["s2", "s3", "s4"]
    h.key(qtbot, Qt.Key.Key_B)
    assert [load_sample(curate_project, s).quality for s in ("s2", "s3", "s4")] == \
        ["Benchmark"] * 3
    ws.review.tag_selection("round-2")
    assert all("round-2" in load_sample(curate_project, s).tags for s in ("s2", "s3", "s4"))
    assert ws.filters.tag.findData("round-2") >= 0
    h.key(qtbot, Qt.Key.Key_Z, CTRL)
    h.key(qtbot, Qt.Key.Key_Z, CTRL)        # one step undoes all three labels
    assert [load_sample(curate_project, s).quality for s in ("s2", "s3", "s4")] == \
        [None, "Benchmark", "Analysis"]


def test_filters_and_search_publish_the_selection(qtbot, h) -> None:
    ws = h.ws
    assert ws.model.ids == ["s1", "s2", "s3", "s4", "s5"]
    ws.filters.quality.setCurrentIndex(ws.filters.quality.findText("Benchmark"))
    assert ws.model.ids == ["s1", "s3"]
    assert h.context.selection.quality == ("Benchmark",)
    assert "2 of 5 samples" in ws.filters.count.text()
    ws.filters.quality.setCurrentIndex(0)
    h.key(qtbot, Qt.Key.Key_F, CTRL)
    assert ws.filters.search.hasFocus()
    qtbot.keyClicks(ws.filters.search, "yellowish")
    ws.filters.flush()
    assert ws.model.ids == ["s1"] and ws.current_id() == "s1"
    assert h.context.selection.text == "yellowish"
    assert h.context.selection.sample_ids(h.context.project) == ["s1"]
    ws.filters.search.clear()
    ws.filters.flush()
    ws.filters.screenshot.setCurrentIndex(1)
    assert ws.model.ids == ["s2"]
    # sorting by a column re-queries
    ws.filters.screenshot.setCurrentIndex(0)
    ws.table.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    assert ws.model.ids[0] == "s5"


def test_image_roles_with_keys_and_reorder(qtbot, h, curate_project) -> None:
    ws = h.ws
    h.select("s1")
    strip = ws.view.images.strip
    assert strip.count() == 3 and strip.item(2).text().endswith("unused")
    h.key(qtbot, Qt.Key.Key_3)
    assert ws.view.images.current_item().alt == "meme"
    h.key(qtbot, Qt.Key.Key_I)
    assert column(ws, "n_inputs", "s1") == "2"
    items = load_sample(curate_project, "s1").images
    assert [i.role for i in items] == ["input", "input", "output"]
    assert ws.view.images.current_item().alt == "meme"  # still selected after the edit
    h.key(qtbot, Qt.Key.Key_Left, CTRL)                  # move it before the cat
    assert [i.alt for i in load_sample(curate_project, "s1").images][:2] == ["meme", "my cat"]
    h.key(qtbot, Qt.Key.Key_2)
    h.key(qtbot, Qt.Key.Key_U)
    assert column(ws, "n_inputs", "s1") == "1"
    for _ in range(3):
        h.key(qtbot, Qt.Key.Key_Z, CTRL)
    assert [i.role for i in load_sample(curate_project, "s1").images] == \
        ["input", "output", None]
    # the mouse works too: select the output and click "Unused"
    qtbot.mouseClick(ws.view.images.role_buttons["unused"], Qt.MouseButton.LeftButton)
    assert column(ws, "n_inputs", "s1") == "0"


def _qimage_array(img: QImage) -> np.ndarray:
    img = img.convertToFormat(QImage.Format.Format_RGB888)
    w, h = img.width(), img.height()
    data = np.frombuffer(img.constBits(), dtype=np.uint8).reshape(h, img.bytesPerLine())
    return data[:, : w * 3].reshape(h, w, 3).copy()


def test_box_drawn_with_the_mouse_gives_the_exact_crop(qtbot, h, curate_project,
                                                       tmp_path: Path) -> None:
    ws = h.ws
    h.select("s2")
    canvas = ws.view.images.canvas
    assert canvas.draw_mode  # a screenshot: drawing is on
    ws.view.images.draw_input.click()
    canvas.set_zoom(2.0)
    canvas.offset = QPointF(10, 10)

    def at(x: int, y: int) -> QPoint:
        return canvas.to_widget(QPointF(x, y)).toPoint()

    qtbot.mousePress(canvas, Qt.MouseButton.LeftButton, pos=at(150, 20))
    qtbot.mouseMove(canvas, at(170, 60))
    live = ws.view.images.preview.crops[-1]
    assert live[0] == "drawing input" and (live[1].width(), live[1].height()) == (20, 40)
    qtbot.mouseMove(canvas, at(190, 70))
    qtbot.mouseRelease(canvas, Qt.MouseButton.LeftButton, pos=at(190, 70))
    boxes = load_sample(curate_project, "s2").images[0].boxes
    new = next(b for b in boxes if b.rect == (150, 20, 40, 50))
    assert new.role == "input"
    shot = np.asarray(Image.open(image_path(curate_project,
                                            load_sample(curate_project, "s2").images[0].sha256))
                      .convert("RGB"))
    titles = [t for t, _ in ws.view.images.preview.crops]
    assert titles == ["input 1", "input 2", "output 1"]
    crop = dict(ws.view.images.preview.crops)["input 2"]
    assert np.array_equal(_qimage_array(crop), shot[20:70, 150:190])
    # arrow keys nudge the selected box, Shift moves by 10; each saved
    canvas.select(new.row_id)
    h.key(qtbot, Qt.Key.Key_Left, widget=canvas)
    h.key(qtbot, Qt.Key.Key_Down, SHIFT, widget=canvas)
    box = next(b for b in load_sample(curate_project, "s2").images[0].boxes
               if b.row_id == new.row_id)
    assert box.rect == (149, 30, 40, 50)
    crop = dict(ws.view.images.preview.crops)["input 2"]
    assert np.array_equal(_qimage_array(crop), shot[30:80, 149:189])
    # dragging the box moves it
    qtbot.mousePress(canvas, Qt.MouseButton.LeftButton, pos=at(160, 40))
    qtbot.mouseMove(canvas, at(165, 45))
    qtbot.mouseRelease(canvas, Qt.MouseButton.LeftButton, pos=at(165, 45))
    box = next(b for b in load_sample(curate_project, "s2").images[0].boxes
               if b.row_id == new.row_id)
    assert box.rect == (154, 35, 40, 50)
    # dragging its bottom-right handle resizes it; Alt+arrows resize from the keyboard
    qtbot.mousePress(canvas, Qt.MouseButton.LeftButton, pos=at(194, 85))
    qtbot.mouseMove(canvas, at(204, 95))
    qtbot.mouseRelease(canvas, Qt.MouseButton.LeftButton, pos=at(204, 95))
    h.key(qtbot, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier, widget=canvas)
    box = next(b for b in load_sample(curate_project, "s2").images[0].boxes
               if b.row_id == new.row_id)
    assert box.rect == (154, 35, 51, 60)
    crop = dict(ws.view.images.preview.crops)["input 2"]
    assert np.array_equal(_qimage_array(crop), shot[35:95, 154:205])
    # O relabels the selected box, Delete removes it, undo brings it back
    h.key(qtbot, Qt.Key.Key_O, widget=canvas)
    assert next(b for b in load_sample(curate_project, "s2").images[0].boxes
                if b.row_id == new.row_id).role == "output"
    h.key(qtbot, Qt.Key.Key_Delete, widget=canvas)
    assert len(load_sample(curate_project, "s2").images[0].boxes) == 2
    h.key(qtbot, Qt.Key.Key_Z, CTRL)
    assert len(load_sample(curate_project, "s2").images[0].boxes) == 3
    # the export writes exactly that crop
    import json

    from core.curate.export import export_benchmark

    export_benchmark(curate_project, tmp_path / "x", qualities=(), splits=("i2i",),
                     selection=SampleFilter(ids=("s2",)))
    line = json.loads((tmp_path / "x" / "samples.jsonl").read_text())
    k = line["output_bboxs"].index([154, 35, 51, 60])
    written = np.asarray(Image.open(tmp_path / "x" / line["output_images"][k]).convert("RGB"))
    assert np.array_equal(written, shot[35:95, 154:205])


def test_missing_and_corrupt_images_show_placeholders(qtbot, h, curate_project) -> None:
    ws = h.ws
    h.select("s4")
    assert ws.view.images.canvas.image is None
    assert "never fetched" in ws.view.images.canvas.message
    assert "missing.png: file not found" in ws.view.images.canvas.message
    assert "missing.png: file not found" in ws.view.images.strip.item(0).toolTip()
    victim = image_path(curate_project, load_sample(curate_project, "s1").images[1].sha256)
    os.chmod(victim, stat.S_IWUSR | stat.S_IRUSR)
    victim.write_bytes(b"\x89PNG\r\n\x1a\nbroken")
    ws.store.clear()
    h.select("s1")
    h.key(qtbot, Qt.Key.Key_2)
    assert ws.view.images.canvas.image is None
    assert "no longer matches" in ws.view.images.canvas.message  # its bytes changed (ADR 176)
    ws.view.images.canvas.grab()  # paints the message without crashing
    h.key(qtbot, Qt.Key.Key_1)
    assert ws.view.images.canvas.image is not None


def test_post_text_is_plain_and_url_is_copyable_text(qtbot, h) -> None:
    ws = h.ws
    h.select("s1")
    post = ws.view.post
    assert post.text.toPlainText() == "turn my cat green <b>bold</b> please"
    assert post.header.textFormat() == Qt.TextFormat.PlainText
    assert "12 likes" in post.header.text() and "@alice" in post.header.text()
    assert post.url.text() == "https://x.example/alice/1" and post.url.isReadOnly()
    top = [post.tree.topLevelItem(k) for k in range(post.tree.topLevelItemCount())]
    assert [t.data(0, Qt.ItemDataRole.UserRole) for t in top] == ["ctx", "p1"]
    main = top[1]
    assert main.text(1) == "turn my cat green <b>bold</b> please"
    replies = [main.child(k).data(0, Qt.ItemDataRole.UserRole) for k in range(main.childCount())]
    assert replies == ["r1", "r2"] and main.child(0).child(0).text(1).startswith("agreed")
    assert ws.view.feedback.item(0).text() == "the green looks yellowish"
    assert not post.fill.isVisible()
    ws.view.tabs.setCurrentWidget(ws.view.history)
    assert ws.view.history.topLevelItemCount() >= 1


def test_fill_in_the_blank_from_a_reply(qtbot, h, curate_project) -> None:
    ws = h.ws
    h.select("s3")
    post = ws.view.post
    assert post.fill.isVisibleTo(ws) and not post.fill.isEnabled()
    main = post.tree.topLevelItem(0)
    post.tree.setCurrentItem(main.child(0))
    assert post.fill.isEnabled()
    h.key(qtbot, Qt.Key.Key_F)
    dialog = ws._dialogs[-1]
    assert dialog.prompt.toPlainText() == "Design a soda can called FIZZ POP"
    dialog.accept()
    new_id = "s3~fill~r3"
    assert ws.current_id() == new_id and ws.model.row_of(new_id) is not None
    assert "fill-in-the-blank from s3" in ws.view.link.text()
    h.key(qtbot, Qt.Key.Key_Z, CTRL)
    assert ws.model.row_of(new_id) is None


def test_export_from_the_menu(qtbot, h, tmp_path: Path) -> None:
    import pandas as pd

    ws = h.ws
    menu = ws.workspace_menu()
    assert menu.title() == "&Curate"
    texts = [a.text() for a in menu.actions()]
    assert "&Export Benchmark…" in texts and any(t.startswith("&Undo") for t in texts)
    ws.page_actions.export.trigger()
    dialog = ws._dialogs[-1]
    dialog.folder.setText(str(tmp_path / "out"))
    dialog.quality["Analysis"].setChecked(True)
    dialog.accept()
    df = pd.read_json(tmp_path / "out" / "samples.jsonl", lines=True)
    assert list(df["id"]) == ["s1", "s3"]  # s4 (Analysis) is left out: image missing
    assert any("s4" in m and "never fetched" in m for m in h.messages)
    for paths in df["output_images"]:
        assert all((tmp_path / "out" / p).is_file() for p in paths)


def test_list_model_pages_from_sqlite(qtbot, project) -> None:
    from core.store import now_iso
    from ui.curate.list_model import MAX_PAGES, PAGE, SampleListModel

    stamp = now_iso()
    with project.transaction() as conn:
        conn.executemany(
            "INSERT INTO samples(id, prompt, original_prompt, created_at, modified_at) "
            "VALUES (?, ?, ?, ?, ?)",
            [(f"x{k:05d}", f"prompt {k}", f"prompt {k}", stamp, stamp) for k in range(12_000)])
    model = SampleListModel()
    model.set_project(project)
    assert model.rowCount() == 12_000
    assert model.index(11_999, 1).data() == "prompt 11999"
    assert len(model._pages) == 1
    for row in range(0, 12_000, PAGE):
        model.index(row, 0).data()
    assert len(model._pages) == MAX_PAGES


def test_e_puts_the_caret_at_the_end_of_the_prompt(qtbot, h, curate_project) -> None:
    h.select("s3")
    h.key(qtbot, Qt.Key.Key_E)
    edit = h.ws.view.prompt.edit
    assert edit.hasFocus()
    qtbot.keyClicks(edit, " FIZZ")
    qtbot.keyClick(edit, Qt.Key.Key_Escape)  # saves and hands the keys back to the list
    assert h.ws.table.hasFocus()
    assert load_sample(curate_project, "s3").prompt == "Design a soda can called ___ FIZZ"


def test_a_long_sample_id_is_elided_not_widening_the_window(qtbot, h) -> None:
    h.select("s1")
    view = h.ws.view
    short = h.ws.minimumSizeHint().width()
    long_id = "x-post-1904765887182237123-sample-0004-" + "9" * 30
    view.title.setText(long_id)
    assert h.ws.minimumSizeHint().width() <= short
    h.ws.resize(1000, 700)
    qtbot.waitUntil(lambda: "…" in view.title.text())
    assert view.title.toolTip() == long_id and view.title.full_text() == long_id


def test_search_return_and_escape_hand_the_keyboard_back_to_the_list(qtbot, h,
                                                                      curate_project) -> None:
    """Return keeps the search and gives the list the keyboard (label keys work at once);
    Esc clears a non-empty search, and Esc in an empty one returns to the list."""
    ws = h.ws
    h.key(qtbot, Qt.Key.Key_F, CTRL)
    assert ws.filters.search.hasFocus()
    qtbot.keyClicks(ws.filters.search, "yellowish")
    qtbot.keyClick(ws.filters.search, Qt.Key.Key_Return)
    assert ws.model.ids == ["s1"] and ws.current_id() == "s1"
    assert ws.table.hasFocus()
    assert ws.table.currentIndex().row() == 0
    qtbot.keyClick(ws.table, Qt.Key.Key_T)          # a label key acts straight away
    assert load_sample(curate_project, "s1").quality == "Trash"
    h.key(qtbot, Qt.Key.Key_F, CTRL)
    assert ws.filters.search.text() == "yellowish"
    qtbot.keyClick(ws.filters.search, Qt.Key.Key_Escape)  # clears, list shows everything
    assert ws.filters.search.text() == ""
    assert ws.model.ids == ["s1", "s2", "s3", "s4", "s5"]
    assert h.context.selection.text == ""
    assert ws.filters.search.hasFocus()
    qtbot.keyClick(ws.filters.search, Qt.Key.Key_Escape)  # empty: back to the list
    assert ws.table.hasFocus()
    assert ws.current_id() == "s1"
