"""Merge raters' returned session files into the project: idempotent, refusing foreign
or conflicting files with a message that says why.

A file is *foreign* when its session or file id is not one this project created, or
its tasks/options differ from what the project wrote.  It *conflicts* when another
copy of the same rater file was already merged (two people rated the same slot), or
a judgment id is already in the project with different content.  Nothing from a
refused file is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from core.jobs import JobState
from core.rating import session_file as sf
from core.rating.protocols import AnswerError, validate_answer
from core.store.project import Project, now_iso


class MergeError(ValueError):
    """A session file cannot be merged (foreign or conflicting); nothing was written."""


@dataclass(frozen=True)
class MergeResult:
    """What merging one file did."""

    path: str
    session: str
    slot: str
    rater: str | None
    added: int
    already: int

    def summary(self) -> str:
        who = self.rater or "no rater yet"
        return (f"{Path(self.path).name}: session {self.session}, {self.slot} ({who}): "
                f"{self.added} new judgment(s), {self.already} already merged")


def merge_files(project: Project, paths: list[str | Path], *,
                state: JobState | None = None) -> tuple[list[MergeResult], list[str]]:
    """Merge each file; returns (results, errors) — one bad file does not stop the rest."""
    state = state or JobState(title="Merge session files")
    state.set_total(len(paths))
    results, errors = [], []
    for path in paths:
        state.check()
        try:
            results.append(merge_file(project, path))
        except (MergeError, sf.SessionFileError, FileNotFoundError) as exc:
            errors.append(str(exc))
        state.advance()
    return results, errors


def merge_file(project: Project, path: str | Path) -> MergeResult:
    """Merge one returned session file (one transaction).  Merging it again adds nothing."""
    path = Path(path)
    conn = sf.connect(path)
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        rater_row = conn.execute("SELECT name, copy_uid FROM rater").fetchone()
        tasks = {tid: [tuple(o) for o in json.loads(opts)] for tid, opts in
                 conn.execute("SELECT task_id, options FROM tasks")}
        judgments = [sf._judgment(r) for r in conn.execute("SELECT * FROM judgments "
                                                           "ORDER BY seq")]
    finally:
        conn.close()
    name = path.name
    row = project.conn.execute("SELECT id, name, protocol, design FROM rating_sessions "
                               "WHERE uid = ?", (meta.get("session_uid"),)).fetchone()
    if row is None:
        raise MergeError(f"{name} belongs to session {meta.get('session_name')!r}, which was "
                         "not created in this project (a foreign file); nothing merged")
    sid, session_name, protocol, design_json = row
    design = json.loads(design_json)
    slot = meta.get("slot", "?")
    frow = project.conn.execute("SELECT slot, copy_uid, rater FROM rating_files WHERE "
                                "session_id = ? AND file_uid = ?",
                                (sid, meta.get("file_uid"))).fetchone()
    if frow is None or frow[0] != slot:
        raise MergeError(f"{name}: not one of the files written for session {session_name!r} "
                         "(a foreign file); nothing merged")
    expected = _expected_tasks(project, sid, slot)
    if expected != {t: [tok for tok, _ in opts] for t, opts in tasks.items()}:
        raise MergeError(f"{name}: its tasks differ from those the project wrote for "
                         f"{session_name!r} {slot} (edited or foreign file); nothing merged")
    rater, copy_uid = rater_row if rater_row else (None, None)
    if frow[1] is not None and copy_uid is not None and frow[1] != copy_uid:
        raise MergeError(f"{name}: {session_name!r} {slot} was already merged from another "
                         f"copy of this file, rated by {frow[2]!r}; this copy is rated by "
                         f"{rater!r}. Two people rated the same file: nothing merged")
    existing = {r[0]: r[1:] for r in project.conn.execute(
        "SELECT uid, task_id, answer, flag, supersedes, time_ms FROM rating_judgments "
        "WHERE session_id = ?", (sid,))}
    new = []
    already = 0
    for j in judgments:
        key = (j.task_id, json.dumps(j.answer, sort_keys=True), j.flag, j.supersedes, j.time_ms)
        if j.uid in existing:
            if tuple(existing[j.uid]) != key:
                raise MergeError(f"{name}: judgment {j.uid[:8]} differs from the copy already "
                                 "in the project (conflicting file); nothing merged")
            already += 1
            continue
        try:
            validate_answer(protocol, tuple(tasks[j.task_id]), j.answer, flag=j.flag,
                            reason=j.reason, allow_ties=bool(design.get("allow_ties")),
                            allow_tie=bool(design.get("allow_tie", True)))
        except AnswerError as exc:
            raise MergeError(f"{name}: judgment {j.seq} on task {j.task_id}: {exc}; "
                             "nothing merged") from None
        new.append(j)
    if new:
        with project.transaction() as pconn:
            if frow[1] is None and copy_uid is not None:
                pconn.execute("UPDATE rating_files SET copy_uid = ?, rater = ? WHERE "
                              "session_id = ? AND slot = ?", (copy_uid, rater, sid, slot))
            at = now_iso()
            pconn.executemany(
                "INSERT INTO rating_judgments(session_id, uid, seq, file_uid, task_id, rater, "
                "answer, flag, reason, supersedes, time_ms, penalty_ms, shown_at, "
                "submitted_at, merged_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [(sid, j.uid, j.seq, meta["file_uid"], j.task_id, rater or "", json.dumps(
                    j.answer, sort_keys=True), j.flag, j.reason or None, j.supersedes,
                  j.time_ms, j.penalty_ms, j.shown_at, j.submitted_at, at) for j in new])
            pconn.execute("INSERT INTO rating_merges(session_id, file_uid, path, rater, added, "
                          "already, merged_at, actor) VALUES (?,?,?,?,?,?,?,?)",
                          (sid, meta["file_uid"], str(path), rater, len(new), already, at,
                           project.actor))
            project.audit("merge", "rating_session", session_name, slot, None,
                          {"file": str(path), "rater": rater, "added": len(new)})
    return MergeResult(str(path), session_name, slot, rater, len(new), already)


def _expected_tasks(project: Project, sid: int, slot: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for tid, tok in project.conn.execute(
            "SELECT b.task_id, b.token FROM rating_blinding b JOIN rating_tasks t "
            "ON t.session_id = b.session_id AND t.task_id = b.task_id "
            "WHERE b.session_id = ? AND t.slot = ? ORDER BY b.task_id, b.position", (sid, slot)):
        out.setdefault(tid, []).append(tok)
    return out
