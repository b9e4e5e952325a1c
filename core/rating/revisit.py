"""Going back to an answered task in the rater view, and forward again (ADR 229).

A rater moves back one answered task at a time and forward again, never past the first
unanswered task: the tasks they may reopen are the answered ones; "forward" from the
last of them is the first unanswered task (where the rater was).  A reopened task is the
file's own :class:`TaskView`, so it shows exactly as it was shown (same option order,
same left/right, same images).  Changing its answer appends a judgment superseding the
task's current one (:meth:`RatingSession.submit` checks that inside its transaction).
"""

from __future__ import annotations

from core.rating.protocols import TaskView
from core.rating.session_file import Judgment, RatingSession


def task_number(session: RatingSession, task: TaskView) -> int:
    """The task's place as the rater sees it: 1 … len(tasks)."""
    return session.tasks.index(task) + 1


def earlier_answered(session: RatingSession, task: TaskView | None) -> TaskView | None:
    """The answered task just before ``task`` (before the end of the list when ``task``
    is None, as on the done page); None when there is none."""
    end = len(session.tasks) if task is None else session.tasks.index(task)
    for t in reversed(session.tasks[:end]):
        if session.answer_for(t.task_id) is not None:
            return t
    return None


def later_answered(session: RatingSession, task: TaskView) -> TaskView | None:
    """The task right after ``task`` when it is answered (it may be reopened); None when
    the next one is unanswered or there is none: forward then means the first unanswered
    task, so no unanswered task is ever skipped."""
    at = session.tasks.index(task) + 1
    if at < len(session.tasks) and session.answer_for(session.tasks[at].task_id) is not None:
        return session.tasks[at]
    return None


def reachable(session: RatingSession, number: int) -> tuple[TaskView | None, str]:
    """The task numbered ``number`` if the rater may open it (an answered task, or the
    first unanswered one), else None and why not."""
    total = len(session.tasks)
    if not 1 <= number <= total:
        return None, f"There is no task {number}: the tasks are numbered 1 to {total}."
    task, first = session.tasks[number - 1], session.next_task()
    if session.answer_for(task.task_id) is not None or task is first:
        return task, ""
    where = "" if first is None else f"; the first unanswered one is task {task_number(session, first)}"
    return None, f"Task {number} is not answered yet: tasks open one by one{where}."


def change_time_s(replaced: Judgment | None, superseding: str | None,
                  elapsed_s: float) -> float:
    """Time on task of a changed answer (ADR 204): the time of the answer it replaces plus
    the time since the task was reopened; a new answer's is its own time."""
    if superseding is not None and replaced is not None and replaced.uid == superseding:
        return elapsed_s + replaced.time_ms / 1000
    return elapsed_s
