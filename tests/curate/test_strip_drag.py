"""Drag-and-drop in the Curate image strip: real mouse press/move/release (offscreen)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PIL import Image  # noqa: E402
from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtGui import QColor  # noqa: E402

from core.curate.detail import Box, ImageItem, load_sample  # noqa: E402
from core.ingest.importer import import_jsonl  # noqa: E402
from core.store import Project  # noqa: E402
from ui.context import AppContext  # noqa: E402
from ui.curate.strip import ROLE_COLOURS, DropPlan, plan_drop  # noqa: E402
from ui.curate.workspace import CurateWorkspace  # noqa: E402

LEFT = Qt.MouseButton.LeftButton
COLOURS = {"a": (220, 40, 40), "b": (40, 200, 40), "c": (40, 40, 220), "d": (220, 220, 40),
           "e": (200, 40, 200)}


@pytest.fixture
def drag_project(tmp_path: Path):  # type: ignore[no-untyped-def]
    """One sample d1: inputs a, b, c; output d; post image e unused (no row)."""
    src = tmp_path / "src"
    (src / "img").mkdir(parents=True)
    for name, colour in COLOURS.items():
        Image.new("RGB", (30, 20), colour).save(src / "img" / f"{name}.png")
    lines = [
        {"id": "p1", "text": "five images", "author": "@a", "timestamp": "2025-03-26T10:00:00Z",
         "image_urls": [{"url": f"img/{n}.png", "alt": n} for n in COLOURS]},
        {"id": "d1", "post_id": "p1", "prompt": "combine them", "split": "i2i",
         "input_images": [0, 1, 2], "output_images": [3]},
    ]
    (src / "posts.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    project = Project.create(tmp_path / "d.winnow")
    report = import_jsonl(project, src / "posts.jsonl")
    assert not report.errors, report.errors
    yield project
    project.close()


@pytest.fixture
def ws(qtbot, drag_project):  # type: ignore[no-untyped-def]
    context = AppContext()
    context.messages = []
    context.bind(lambda *a: None, lambda t, m: context.messages.append(f"{t}: {m}"),
                 lambda text, ms: None)
    context.project = drag_project
    w = CurateWorkspace(context)
    qtbot.addWidget(w)
    w.resize(1400, 800)
    w.show()
    qtbot.waitExposed(w)
    w.select_row(0)
    assert w.current_id() == "d1"
    return w


def order(project: Project) -> list[tuple[str | None, str]]:
    """(role, alt) of the strip's images as stored."""
    return [(i.role, i.alt) for i in load_sample(project, "d1").images]


def audit_rows(project: Project) -> list[tuple[str, str, str]]:
    return project.conn.execute(
        "SELECT field, old, new FROM audit_log WHERE entity_id = 'd1' ORDER BY id").fetchall()


def spot(strip, row: int, side: str) -> QPoint:  # type: ignore[no-untyped-def]
    """A point inside thumbnail ``row``'s left or right half (viewport coordinates)."""
    rect = strip.visualItemRect(strip.item(row))
    assert visible(strip, row), "the thumbnail must be visible for the test"
    return QPoint(rect.left() + rect.width() // 4 if side == "left"
                  else rect.right() - rect.width() // 4, rect.center().y())


def visible(strip, row: int) -> bool:  # type: ignore[no-untyped-def]
    """Thumbnail ``row`` lies within the strip's viewport (a pixel of rounding allowed)."""
    return strip.viewport().rect().adjusted(-2, -2, 2, 2).contains(
        strip.visualItemRect(strip.item(row)))


def drag(qtbot, strip, row: int, to: QPoint, release: bool = True) -> None:  # type: ignore[no-untyped-def]
    """Press on thumbnail ``row`` (scrolled into view), move in steps to ``to``."""
    strip.scrollToItem(strip.item(row))
    assert visible(strip, row)
    start = strip.visualItemRect(strip.item(row)).center()
    qtbot.mousePress(strip.viewport(), LEFT, pos=start)
    qtbot.mouseMove(strip.viewport(), start + QPoint(6, 3))
    qtbot.mouseMove(strip.viewport(), (start + to) / 2)
    qtbot.mouseMove(strip.viewport(), to)
    if release:
        qtbot.mouseRelease(strip.viewport(), LEFT, pos=to)


def drag_far(qtbot, strip, row: int, target: int, side: str) -> None:  # type: ignore[no-untyped-def]
    """Drag ``row`` to the edge until the strip scrolls ``target`` into view, drop there."""
    strip.scrollToItem(strip.item(row))
    start = strip.visualItemRect(strip.item(row)).center()
    edge = QPoint(3 if target < row else strip.viewport().width() - 3, start.y())
    drag(qtbot, strip, row, edge, release=False)
    qtbot.waitUntil(lambda: visible(strip, target), timeout=5000)
    qtbot.mouseMove(strip.viewport(), spot(strip, target, side))
    qtbot.mouseRelease(strip.viewport(), LEFT, pos=spot(strip, target, side))


def test_drag_image_1_to_position_3_then_undo(qtbot, ws, drag_project) -> None:
    strip = ws.view.images.strip
    start = [("input", "a"), ("input", "b"), ("input", "c"), ("output", "d"), (None, "e")]
    assert order(drag_project) == start and strip.count() == 5
    before = len(audit_rows(drag_project))
    drag(qtbot, strip, 0, spot(strip, 2, "right"), release=False)
    # while dragging: the indicator says where it goes and is painted in the input colour
    assert strip.dragging and strip.plan == DropPlan("move", "input", 2, 2,
                                                     strip.images[0].row_id)
    x = strip.indicator_x()
    rect_c, rect_d = (strip.visualItemRect(strip.item(k)) for k in (2, 3))
    assert rect_c.right() < x < rect_d.left()
    shot = strip.viewport().grab().toImage()
    ratio = shot.width() / strip.viewport().width()
    y = int(strip.viewport().height() * 0.2 * ratio)
    assert shot.pixelColor(int(x * ratio), y) == QColor(ROLE_COLOURS["input"])
    assert order(drag_project) == start  # nothing saved before the drop
    qtbot.mouseRelease(strip.viewport(), LEFT, pos=spot(strip, 2, "right"))
    assert not strip.dragging and strip.indicator_x() is None
    moved = [("input", "b"), ("input", "c"), ("input", "a"), ("output", "d"), (None, "e")]
    assert order(drag_project) == moved
    assert ["ALT: b" in strip.item(0).toolTip(), "ALT: a" in strip.item(2).toolTip()] == [
        True, True]  # the strip shows the new order
    assert ws.view.images.current_item().alt == "a"  # the dragged image stays selected
    rows = audit_rows(drag_project)
    assert len(rows) == before + 1 and rows[-1][0] == "images"
    new = json.loads(rows[-1][2])["images"]
    assert [(e["role"], e["position"]) for e in new][:3] == [("input", k) for k in range(3)]
    assert ws.undo_stack is not None and ws.undo_stack.undo_label() == "Reorder images"
    assert len(ws.undo_stack._done) == 1
    strip.setFocus()
    qtbot.keyClick(strip, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert order(drag_project) == start
    assert len(audit_rows(drag_project)) == before + 2 and not ws.undo_stack.can_undo()


def test_drop_in_the_same_place_changes_nothing(qtbot, ws, drag_project) -> None:
    strip = ws.view.images.strip
    start = order(drag_project)
    before = len(audit_rows(drag_project))
    for target in (spot(strip, 1, "right"), spot(strip, 2, "left"), spot(strip, 1, "left")):
        drag(qtbot, strip, 1, target, release=False)
        assert strip.dragging and strip.plan is None  # indicator says "no change"
        qtbot.mouseRelease(strip.viewport(), LEFT, pos=target)
    assert order(drag_project) == start
    assert len(audit_rows(drag_project)) == before
    assert ws.undo_stack is not None and not ws.undo_stack.can_undo()


def test_escape_and_dropping_off_the_strip_cancel(qtbot, ws, drag_project) -> None:
    strip = ws.view.images.strip
    start = order(drag_project)
    drag(qtbot, strip, 0, spot(strip, 2, "right"), release=False)
    qtbot.keyClick(strip, Qt.Key.Key_Escape)
    assert not strip.dragging
    qtbot.mouseRelease(strip.viewport(), LEFT, pos=spot(strip, 2, "right"))
    below = QPoint(spot(strip, 2, "right").x(), strip.viewport().height() + 200)
    drag(qtbot, strip, 0, below)
    assert order(drag_project) == start and not ws.undo_stack.can_undo()
    # a short wobble below the drag distance is a click, not a drag
    start_pos = strip.visualItemRect(strip.item(2)).center()
    qtbot.mousePress(strip.viewport(), LEFT, pos=start_pos)
    qtbot.mouseMove(strip.viewport(), start_pos + QPoint(2, 1))
    assert not strip.dragging
    qtbot.mouseRelease(strip.viewport(), LEFT, pos=start_pos + QPoint(2, 1))
    assert ws.view.images.current_item().alt == "c" and order(drag_project) == start


def test_drag_onto_another_role_group(qtbot, ws, drag_project) -> None:
    strip = ws.view.images.strip
    before = len(audit_rows(drag_project))
    # the unused post image e, dragged left until b shows, dropped before b: input 2
    assert not visible(strip, 1) or not visible(strip, 4)  # the strip has to scroll
    drag_far(qtbot, strip, 4, 1, "left")
    assert order(drag_project) == [("input", "a"), ("input", "e"), ("input", "b"),
                                   ("input", "c"), ("output", "d")]
    assert ws.undo_stack.undo_label() == "Move image to input 2"
    # the output d, dropped after a: input 2 (now no outputs)
    drag_far(qtbot, strip, 4, 0, "right")
    assert order(drag_project) == [("input", "a"), ("input", "d"), ("input", "e"),
                                   ("input", "b"), ("input", "c")]
    # the last thumbnail dropped right of itself: no change
    strip.scrollToItem(strip.item(4))
    drag(qtbot, strip, 4, spot(strip, 4, "right") + QPoint(8, 0))
    assert len(audit_rows(drag_project)) == before + 2
    # the same role command as the U key: drag b then press U; undo both, then the drags
    qtbot.keyClick(strip, Qt.Key.Key_4)
    qtbot.keyClick(strip, Qt.Key.Key_U)
    assert order(drag_project)[-1] == ("unused", "b")
    for _ in range(3):
        qtbot.keyClick(strip, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert order(drag_project) == [("input", "a"), ("input", "b"), ("input", "c"),
                                   ("output", "d"), (None, "e")]
    assert len(audit_rows(drag_project)) == before + 6


def _item(key: str, role: str | None, pos: int = 0, row: int | None = None,
          boxes: list[Box] | None = None) -> ImageItem:
    return ImageItem(key=key, sha256=key, ref=None, role=role, row_id=row, position=pos,
                     boxes=boxes or [])


def test_plan_drop_rules() -> None:
    a, b = _item("a", "input", 0, 1), _item("b", "input", 1, 2)
    out = _item("o", "output", 0, 3)
    shot = _item("s", None, boxes=[Box(4, "output", 1, 0, 0, 5, 5),
                                   Box(5, "output", 2, 5, 5, 5, 5)])
    post = _item("p", None)
    items = [a, b, out, shot, post]
    assert plan_drop(items, 0, 1, True) == DropPlan("move", "input", 1, 1, 1)
    assert plan_drop(items, 1, 0, False) == DropPlan("move", "input", 0, -1, 2)
    assert plan_drop(items, 0, 0, True) is None and plan_drop(items, 0, 1, False) is None
    # after a screenshot means after all of its boxes of that role
    assert plan_drop(items, 2, 3, True) == DropPlan("move", "output", 2, 2, 3)
    assert plan_drop(items, 3, 2, False) == DropPlan("move", "output", 0, -1, 4)
    refused = plan_drop(items, 3, 0, False)
    assert refused is not None and refused.kind == "refuse" and "box" in refused.reason
    assert plan_drop(items, 4, 2, True) == DropPlan("role", "output", 1, 0, None)
    assert plan_drop(items, 0, 4, False) == DropPlan("role", "unused", 0, 0, 1)
    assert plan_drop(items + [_item("q", None)], 4, 5, True) is None
    assert plan_drop(items, 0, 9, True) is None
