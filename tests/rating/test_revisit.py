"""Which answered task the rater view goes back or forward to (ADR 229), without Qt."""

from __future__ import annotations

from pathlib import Path

from rating_helpers import MODELS, make_session

from core.rating.revisit import (
    change_time_s,
    earlier_answered,
    later_answered,
    reachable,
    task_number,
)
from core.rating.session_file import RatingSession


def test_back_and_forward_walk_answered_tasks_only(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = make_session(rproject, tmp_path / "o", "side_by_side", raters=1,
                        sample_ids=("s000",), models=MODELS)[0]
    s = RatingSession.open(path)
    s.set_rater("Ada")
    t = s.tasks
    assert earlier_answered(s, t[0]) is None and earlier_answered(s, None) is None
    for task in t[:3]:
        s.submit(task.task_id, {"winner": "left"}, time_ms=2000)
    assert [task_number(s, task) for task in t[:3]] == [1, 2, 3]
    assert earlier_answered(s, t[3]) is t[2] and earlier_answered(s, t[1]) is t[0]
    assert earlier_answered(s, t[0]) is None
    assert earlier_answered(s, None) is t[2]  # from the done page: the last answered one
    assert later_answered(s, t[0]) is t[1] and later_answered(s, t[1]) is t[2]
    assert later_answered(s, t[2]) is None  # t[3] is unanswered: never skipped ahead to
    assert later_answered(s, t[-1]) is None
    # by number: an answered task or the first unanswered one, nothing past it
    assert reachable(s, 2) == (t[1], "") and reachable(s, 4) == (t[3], "")
    assert reachable(s, 5)[0] is None and "first unanswered one is task 4" in reachable(s, 5)[1]
    assert reachable(s, 0)[0] is None and reachable(s, len(t) + 1)[0] is None
    assert f"numbered 1 to {len(t)}" in reachable(s, 0)[1]
    old = s.answer_for(t[0].task_id)
    assert old is not None
    # a change is timed with the answer it replaces (ADR 204); a new answer on its own
    assert change_time_s(old, old.uid, 1.5) == 3.5
    assert change_time_s(old, None, 1.5) == 1.5
    assert change_time_s(old, "another uid", 1.5) == 1.5
    new = s.submit(t[0].task_id, {"winner": "right"}, time_ms=3500, supersedes=old.uid)
    assert s.answer_for(t[0].task_id) == new and earlier_answered(s, t[1]) is t[0]
    s.close()
