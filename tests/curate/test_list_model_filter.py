"""A search keystroke that narrows nothing resets nothing (issue 18): the list keeps its
rows, pages and selection and is not repainted; one that changes the list resets it."""

from __future__ import annotations

from core.curate.commands import SetField, UndoStack
from core.curate.queries import COLUMN_KEYS
from core.selection import SampleFilter
from core.store import Project, now_iso


def _fill(project: Project) -> None:
    stamp = now_iso()
    with project.transaction() as conn:
        conn.executemany(
            "INSERT INTO samples(id, prompt, original_prompt, created_at, modified_at) "
            "VALUES (?, ?, ?, ?, ?)",
            [(f"x{k:03d}", f"orange cat {k}" if k % 2 else f"grey dog {k}", "p", stamp, stamp)
             for k in range(40)])


def test_same_ids_no_reset_other_ids_reset(qtbot: object, project: Project) -> None:
    from ui.curate.list_model import SampleListModel

    _fill(project)
    model = SampleListModel()
    model.set_project(project)
    resets: list[int] = []
    model.modelReset.connect(lambda: resets.append(1))
    model.set_filter(SampleFilter(text="cat"))
    assert len(resets) == 1 and model.rowCount() == 20
    model.index(0, 1).data()  # a page read
    for text in ("cat ", " cat", "orange", "orange cat"):  # the same 20 samples
        model.set_filter(SampleFilter(text=text))
        assert model.selection.text == text
    assert len(resets) == 1 and model.rowCount() == 20 and model._pages
    model.set_filter(SampleFilter(text="dog"))
    assert len(resets) == 2 and model.ids == [f"x{k:03d}" for k in range(0, 40, 2)]
    assert not model._pages  # forgotten with the old list
    model.set_filter(SampleFilter())
    assert len(resets) == 3 and model.rowCount() == 40


def test_an_edit_still_shows_after_a_keystroke_that_narrows_nothing(
        qtbot: object, project: Project) -> None:
    from ui.curate.list_model import SampleListModel

    _fill(project)
    model = SampleListModel()
    model.set_project(project)
    model.set_filter(SampleFilter(text="cat"))
    quality = COLUMN_KEYS.index("quality")
    assert model.index(0, quality).data() in (None, "")
    command = SetField(["x001"], "quality", "Trash")
    UndoStack(project).push(command)
    model.refresh_ids(command.sample_ids)  # as the workspace does after every command
    model.set_filter(SampleFilter(text="cat "))  # same ids: no reset
    assert model.index(0, quality).data() == "Trash"
