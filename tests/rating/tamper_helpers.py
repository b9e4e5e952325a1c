"""Edit rater files the way a curious rater would: sqlite3 on the file, triggers dropped."""

from __future__ import annotations

import json
import shutil
import sqlite3
import uuid
from collections.abc import Callable
from pathlib import Path

from rating_helpers import simple_answer

from core.rating.session_file import RatingSession
from core.store import Project

LEGACY = Path(__file__).parent / "fixtures" / "legacy_v1"


def edit(path: Path, *statements: str, params: tuple = ()) -> None:  # type: ignore[type-arg]
    """Run SQL on ``path`` with every trigger dropped (what anyone with sqlite3 can do)."""
    conn = sqlite3.connect(path)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                ).fetchall():
        conn.execute(f"DROP TRIGGER {name}")
    for sql in statements:
        conn.execute(sql, params if "?" in sql else ())
    conn.commit()
    conn.close()


def rows(path: Path, sql: str, params: tuple = ()) -> list[tuple]:  # type: ignore[type-arg]
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def rate_all(path: Path, name: str = "Ada", change_first: bool = True) -> None:
    """Answer every task of ``path`` through the rater API (one answer changed)."""
    s = RatingSession.open(path)
    if s.rater is None:
        s.set_rater(name)
    first = change_first
    while (t := s.next_task()) is not None:
        j = s.submit(t.task_id, simple_answer(t), time_ms=1500)
        if first:
            s.submit(t.task_id, simple_answer(t), time_ms=700, supersedes=j.uid)
            first = False
    s.close()


def legacy_copy(tmp: Path) -> tuple[Project, Path, Path]:
    """A copy of the format-1 fixture: (project opened, R1 answered, R2 untouched)."""
    shutil.copytree(LEGACY, tmp, ignore=shutil.ignore_patterns("*.py", "*.md"))
    project = Project.open(tmp / "legacy.winnow")
    return (project, tmp / "side_by_side-R1.winnow-session",
            tmp / "side_by_side-R2.winnow-session")


# -- the tampering of issue #12 item 3, each a function of the file ---------------------------
def _append(path: Path, task: str, answer: str, supersedes: str | None = None) -> None:
    """One judgment row added by hand after the last one (no MAC: sqlite3 has no key)."""
    top = rows(path, "SELECT max(seq) FROM judgments")[0][0]
    edit(path, "INSERT INTO judgments(seq, uid, task_id, answer, supersedes, time_ms, "
               "penalty_ms, submitted_at) VALUES (?, ?, ?, ?, ?, 900, 0, "
               "'2024-01-01T00:00:00')",
         params=(top + 1, uuid.uuid4().hex, task, answer, supersedes))


def duplicates(path: Path) -> None:
    """Five more judgments for the first answered task, none superseding."""
    task, answer = rows(path, "SELECT task_id, answer FROM judgments WHERE seq = 1")[0]
    for _ in range(5):
        _append(path, task, answer)


def supersede_other_task(path: Path) -> None:
    """A new answer to task A that claims to replace the answer to task B."""
    a_task, a_answer = rows(path, "SELECT task_id, answer FROM judgments ORDER BY seq DESC "
                                  "LIMIT 1")[0]
    (b_uid,) = rows(path, "SELECT uid FROM judgments WHERE task_id != ? ORDER BY seq DESC "
                          "LIMIT 1", (a_task,))[0]
    _append(path, a_task, a_answer, supersedes=b_uid)


def extra_keys(path: Path) -> None:
    answer = json.loads(rows(path, "SELECT answer FROM judgments WHERE seq = 1")[0][0])
    answer["model"] = "pixelforge"
    edit(path, "UPDATE judgments SET answer = ? WHERE seq = 1", params=(json.dumps(answer),))


def negative_time(path: Path) -> None:
    edit(path, "UPDATE judgments SET time_ms = -5000 WHERE seq = 1")


def text_time(path: Path) -> None:
    edit(path, "UPDATE judgments SET time_ms = 'slow' WHERE seq = 1")


def missing_rater(path: Path) -> None:
    edit(path, "DELETE FROM rater")


def huge_seq(path: Path) -> None:
    edit(path, "UPDATE judgments SET seq = 9223372036854775000 WHERE seq = "
               "(SELECT max(seq) FROM judgments)")


def huge_name(path: Path) -> None:
    edit(path, "UPDATE rater SET name = ?", params=("A" * 5_000_000,))


def renamed(path: Path) -> None:
    edit(path, "UPDATE rater SET name = 'Eve'")


def edited_answer(path: Path) -> None:
    """The answer that counts for the last task is turned around."""
    seq, answer = rows(path, "SELECT seq, answer FROM judgments ORDER BY seq DESC LIMIT 1")[0]
    flipped = answer.replace("left", "@").replace("right", "left").replace("@", "right")
    if flipped == answer:
        flipped = json.dumps({**json.loads(answer), "VQ": 5} if "VQ" in answer else
                             {"winner": "right"})
    edit(path, f"UPDATE judgments SET answer = ? WHERE seq = {seq}", params=(flipped,))


def unparsable_answer(path: Path) -> None:
    edit(path, "UPDATE judgments SET answer = '{\"winner\": ' WHERE seq = 1")


def unknown_task(path: Path) -> None:
    edit(path, "UPDATE judgments SET task_id = 'tNOSUCHTASK' WHERE seq = 1")


def bad_format_version(path: Path) -> None:
    edit(path, "UPDATE meta SET value = 'abc' WHERE key = 'format_version'")


TAMPERING: dict[str, Callable[[Path], None]] = {
    "duplicates": duplicates, "supersede_other_task": supersede_other_task,
    "extra_keys": extra_keys, "negative_time": negative_time, "missing_rater": missing_rater,
    "huge_seq": huge_seq, "huge_name": huge_name,
}
