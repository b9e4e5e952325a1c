"""Labelling thousands of selected samples in the real window (ADR 036): the edit runs as
a background job, edits asked for meanwhile wait their turn, Undo waits for it, and the
whole selection is one undo step."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402

from core.store import Project, now_iso  # noqa: E402
from ui.curate.edits import BACKGROUND_AT  # noqa: E402

N = BACKGROUND_AT + 500


@pytest.fixture
def big(main_window, tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "big.winnow"
    project = Project.create(path)
    stamp = now_iso()
    with project.transaction() as conn:
        conn.executemany(
            "INSERT INTO samples(id, prompt, original_prompt, quality, created_at, modified_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(f"m{k:05d}", f"prompt {k}", f"prompt {k}", ("Analysis", None)[k % 2], stamp,
              stamp) for k in range(N)])
    project.close()
    assert main_window.open_project(path)
    main_window.nav.setCurrentRow(0)
    return main_window


def _quality(window, sid: str) -> str | None:  # type: ignore[no-untyped-def]
    return window.project.conn.execute("SELECT quality FROM samples WHERE id = ?",
                                       (sid,)).fetchone()[0]


def test_bulk_label_runs_in_the_background_and_is_one_undo_step(big, qtbot) -> None:  # type: ignore[no-untyped-def]
    win = big
    ws = win.pages["curate"]
    ws.table.setFocus()
    qtbot.keyClick(ws.table, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)  # select all
    assert len(ws.selected_ids()) == N
    audit0 = win.project.counts()["audit_entries"]
    qtbot.keyClick(ws.table, Qt.Key.Key_T)
    assert ws.editor.busy  # off the GUI thread: the key press returned at once
    ws.select_row(3)
    qtbot.keyClick(ws.table, Qt.Key.Key_B)  # asked for meanwhile: waits its turn
    assert not ws.page_actions.undo.isEnabled()  # Undo waits for the bulk edit to be saved
    qtbot.waitUntil(lambda: not ws.editor.busy, timeout=20_000)
    assert _quality(win, "m00000") == "Trash" and _quality(win, "m00003") == "Benchmark"
    assert win.project.conn.execute("SELECT count(*) FROM samples WHERE quality = 'Trash'"
                                    ).fetchone()[0] == N - 1
    assert win.project.counts()["audit_entries"] == audit0 + N + 1
    assert ws.undo_stack.undo_label() == "Set quality to Benchmark"
    assert ws.model.index(0, 2).data() == "Trash"  # the list shows it
    ws.undo()  # the single edit
    assert _quality(win, "m00003") == "Trash"
    ws.undo()  # the whole selection, as one step, in the background again
    assert ws.editor.busy and not ws.page_actions.undo.isEnabled()
    qtbot.waitUntil(lambda: not ws.editor.busy, timeout=20_000)
    assert _quality(win, "m00000") == "Analysis" and _quality(win, "m00001") is None
    assert not ws.undo_stack.can_undo() and ws.undo_stack.can_redo()
    assert ws.model.index(0, 2).data() == "Analysis"


def test_a_refused_background_edit_is_reported_and_not_booked(big, qtbot) -> None:  # type: ignore[no-untyped-def]
    win = big
    ws = win.pages["curate"]
    shown: list[str] = []
    win.error_shown.connect(lambda text: shown.append(text))
    ws.table.selectAll()
    with win.project.transaction() as conn:  # a sample vanishes under the selection
        conn.execute("DELETE FROM samples WHERE id = 'm00010'")
    ws.review.label("Trash")
    qtbot.waitUntil(lambda: not ws.editor.busy, timeout=20_000)
    assert shown and shown[-1].endswith("no sample 'm00010'")
    assert not ws.undo_stack.can_undo()
    assert _quality(win, "m00000") == "Analysis"  # nothing half-done


def test_selected_ids_in_list_order_once_each_from_disjoint_and_overlapping_ranges(
        big) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QItemSelection, QItemSelectionModel

    ws = big.pages["curate"]
    model, flag = ws.model, QItemSelectionModel.SelectionFlag.Select
    last = model.columnCount() - 1

    def select(*ranges: tuple[int, int]) -> list[str]:
        ws.select_row(0)
        ws.table.selectionModel().clearSelection()
        for top, bottom in ranges:
            ws.table.selectionModel().select(
                QItemSelection(model.index(top, 0), model.index(bottom, last)), flag)
        return ws.selected_ids()

    assert select((10, 19), (0, 4)) == model.ids[0:5] + model.ids[10:20]
    # overlapping selections (Qt splits them into disjoint ranges): each id once, in order
    got = select((0, 2000), (1500, 2400))
    assert got == model.ids[0:2401] and len(set(got)) == len(got)
