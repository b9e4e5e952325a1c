"""Merge raters' returned session files into the project, one file at a time (ADR 059).

Each file is merged or refused *as a whole*, in its own transaction, with its name and
every reason; the next file goes on either way.  Merging the same file again adds
nothing.  A file is refused when:

- it cannot be read as a session file (names what is wrong: a folder, unreadable,
  another format, a format_version that is not a number, a newer Winnow);
- it is *foreign*: its session or file id is not one this project created, or its
  tasks are not the ones the project wrote;
- it was *edited outside the rater view*: its MACs do not verify (ADR 058), or it breaks
  a rule the rater view keeps (:mod:`core.rating.returned`: duplicate or out-of-task
  judgments, a supersede aimed at another task, extra answer keys, negative or text
  times, renumbered rows, a missing or oversized rater name);
- it *conflicts*: another copy of the same rater file was merged already (two people
  rated one slot), the rater's name changed since the last merge, a judgment id is
  already in the project with other content, or a judgment number already merged from
  this file holds another judgment (a copy answered again from an earlier point).

A file from before tamper evidence (format 1) is merged after all the other checks,
with the warning that it is not tamper-evident.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.jobs import JobState
from core.per_file import merge_each
from core.rating import integrity
from core.rating import session_file as sf
from core.rating.returned import ReturnedFile, read_returned
from core.store.project import Project, now_iso

LEGACY_WARNING = ("made by an earlier version of Winnow: not tamper-evident (its answers "
                  "were checked for consistency only)")


class MergeError(ValueError):
    """A session file cannot be merged; nothing from it was written."""


@dataclass(frozen=True)
class MergeResult:
    """What merging one file did."""

    path: str
    session: str
    slot: str
    rater: str | None
    added: int
    already: int
    warnings: tuple[str, ...] = field(default=())
    tasks: int | None = None       # the file's tasks, and how many of them have an answer
    answered: int | None = None

    def summary(self) -> str:
        who = self.rater or "no rater yet"
        text = (f"{Path(self.path).name}: session {self.session}, {self.slot} ({who}): "
                f"{self.added} new judgment(s), {self.already} already merged")
        if self.tasks is not None and self.answered == 0:
            text += (f"; not started: none of its {self.tasks} task(s) answered (merge it "
                     "when the rater sends it back rated)")
        elif self.tasks is not None and self.answered is not None and \
                self.answered < self.tasks:
            # a half-finished file merges what it has; the lead is told it is not all
            text += (f"; not finished: {self.answered} of {self.tasks} task(s) answered "
                     "(merge the file again when the rater sends it back finished)")
        return text + "".join(f"; warning: {w}" for w in self.warnings)


def merge_files(project: Project, paths: list[str | Path], *,
                state: JobState | None = None) -> tuple[list[MergeResult], list[str]]:
    """Merge each file; returns (results, refusals) — one bad file does not stop the rest.

    Each refusal is one line: the file's name and why it was refused.
    """
    state = state or JobState(title="Merge session files")
    return merge_each(paths, lambda path: merge_file(project, path),
                      (MergeError, sf.SessionFileError), state)


def merge_file(project: Project, path: str | Path) -> MergeResult:
    """Merge one returned session file (one transaction).  Merging it again adds nothing."""
    path = Path(path)
    name = path.name
    found = read_returned(path)
    row = project.conn.execute("SELECT id, name, protocol, design FROM rating_sessions "
                               "WHERE uid = ?", (found.meta.get("session_uid"),)).fetchone()
    if row is None:
        raise MergeError(f"{name} belongs to session {str(found.meta.get('session_name'))[:80]!r}"
                         ", which was not created in this project (a foreign file); nothing "
                         "merged")
    sid, session_name, protocol, design_json = row
    design = json.loads(design_json)
    ties, tie = bool(design.get("allow_ties")), bool(design.get("allow_tie", True))
    if (ties, tie) != (found.allow_ties, found.allow_tie):  # judge by the project's rules
        found = read_returned(path, allow_ties=ties, allow_tie=tie)
    slot = str(found.meta.get("slot", "?"))
    frow = project.conn.execute("SELECT slot, copy_uid, rater, tasks_mac, legacy_file FROM "
                                "rating_files WHERE session_id = ? AND file_uid = ?",
                                (sid, found.meta.get("file_uid"))).fetchone()
    if frow is None or frow[0] != slot or found.meta.get("protocol") != protocol:
        raise MergeError(f"{name}: not one of the files written for session {session_name!r} "
                         "(a foreign file); nothing merged")
    if _expected_tasks(project, sid, slot) != {t: [tok for tok, _ in opts]
                                               for t, opts in found.options.items()}:
        raise MergeError(f"{name}: its tasks differ from those the project wrote for "
                         f"{session_name!r} {slot} (edited or foreign file); nothing merged")
    reasons, warnings = _integrity(project, sid, found, frow[3], bool(frow[4]))
    if found.changed_images:
        reasons.append(f"{len(found.changed_images)} image(s) were changed (their bytes do "
                       "not match their digest)")
    reasons += found.problems
    if reasons:
        raise MergeError(f"{name}: edited outside the rater view, nothing merged: "
                         + "; ".join(reasons))
    return _merge(project, path, found, sid, session_name, slot, tuple(warnings))


def _integrity(project: Project, sid: int, found: ReturnedFile, tasks_mac: str | None,
               legacy_file: bool) -> tuple[list[str], list[str]]:
    """(reasons to refuse, warnings) from the file's MACs.  ``legacy_file``: an earlier
    version wrote this slot's file (so a file without MACs may be genuine)."""
    secret = integrity.stored_secret(project.conn, sid)
    if not found.chained and found.version <= sf.LEGACY_FORMAT_VERSION:
        if tasks_mac is not None and not legacy_file:
            return ["it was written with tamper evidence, but its MACs were removed"], []
        return [], [LEGACY_WARNING]
    if secret is None or tasks_mac is None:
        return ["it carries MACs, but this project did not write it with them (a foreign "
                "or forged file)"], []
    if found.meta.get("tasks_mac") != tasks_mac:
        return ["its task list is not the one the project signed (tasks MAC differs)"], []
    file_uid = str(found.meta.get("file_uid"))
    return integrity.verify(secret, file_uid, found.document(), found.meta.get("tasks_mac"),
                            found.entries(), found.chain), []


def _merge(project: Project, path: Path, found: ReturnedFile, sid: int, session_name: str,
           slot: str, warnings: tuple[str, ...]) -> MergeResult:
    # the name as the rater view keeps it now: a file from an earlier view (or a rater
    # with Winnow's code) may hold control or direction characters, never shown or stored
    rater, copy_uid = ((sf.clean_name(str(found.rater[0])), found.rater[1]) if found.rater
                       else (None, None))
    new, already = _new_judgments(project.conn, path.name, found, sid, session_name, slot,
                                  rater, copy_uid)
    if new:
        with project.transaction() as pconn:
            # checked again inside the write: a merge in another job may have committed
            # since (another copy of this slot, or this very file)
            new, already = _new_judgments(pconn, path.name, found, sid, session_name, slot,
                                          rater, copy_uid)
            if new:
                _insert(project, pconn, path, found, sid, session_name, slot, rater,
                        copy_uid, new, already, warnings)
    return MergeResult(str(path), session_name, slot, rater, len(new), already, warnings,
                       tasks=len(found.task_rows),
                       answered=len({j.task_id for j in found.judgments}))


def _new_judgments(conn: Any, name: str, found: ReturnedFile, sid: int, session_name: str,
                   slot: str, rater: str | None,
                   copy_uid: str | None) -> tuple[list[tuple[Any, str]], int]:
    """(judgments not in the project yet with their answers as JSON, how many are);
    MergeError when the file conflicts with what was merged before."""
    merged_copy, merged_rater = conn.execute(
        "SELECT copy_uid, rater FROM rating_files WHERE session_id = ? AND slot = ?",
        (sid, slot)).fetchone()
    if merged_copy is not None and copy_uid is not None and merged_copy != copy_uid:
        raise MergeError(f"{name}: {session_name!r} {slot} was already merged from another "
                         f"copy of this file, rated by {merged_rater!r}; this copy is rated by "
                         f"{rater!r}. Two people rated the same file: nothing merged")
    if merged_copy is not None and merged_copy == copy_uid and \
            sf.clean_name(str(merged_rater)) != rater:
        raise MergeError(f"{name}: its rater was {merged_rater!r} when it was merged before "
                         f"and is now {str(rater)[:80]!r} (renamed outside the rater view); "
                         "nothing merged")
    before = dict(conn.execute("SELECT seq, uid FROM rating_judgments WHERE "
                               "session_id = ? AND file_uid = ?",
                               (sid, found.meta.get("file_uid"))))
    forked = [j.seq for j in found.judgments if before.get(j.seq, j.uid) != j.uid]
    if forked:  # each copy verifies on its own; one file has one history
        raise MergeError(f"{name}: judgment {forked[0]} is not the one merged before from "
                         f"this file ({len(forked)} differ): a copy of the file was answered "
                         "again from an earlier point, and two histories of one file cannot "
                         "both count; nothing merged")
    existing = {r[0]: r[1:] for r in conn.execute(
        "SELECT uid, task_id, answer, flag, supersedes, time_ms FROM rating_judgments "
        "WHERE session_id = ?", (sid,))}
    new = []
    for j in found.judgments:
        answer = json.dumps(found.answers[j.seq], sort_keys=True)
        if j.uid in existing:
            if tuple(existing[j.uid]) != (j.task_id, answer, j.flag, j.supersedes, j.time_ms):
                raise MergeError(f"{name}: judgment {j.uid[:8]} differs from the copy already "
                                 "in the project (conflicting file); nothing merged")
            continue
        new.append((j, answer))
    return new, len(found.judgments) - len(new)


def _insert(project: Project, pconn: Any, path: Path, found: ReturnedFile, sid: int,
            session_name: str, slot: str, rater: str | None, copy_uid: str | None,
            new: list[tuple[Any, str]], already: int, warnings: tuple[str, ...]) -> None:
    """Write the new judgments and the merge's record (inside the caller's transaction)."""
    merged_copy = pconn.execute("SELECT copy_uid FROM rating_files WHERE session_id = ? AND "
                                "slot = ?", (sid, slot)).fetchone()[0]
    if merged_copy is None and copy_uid is not None:
        pconn.execute("UPDATE rating_files SET copy_uid = ?, rater = ? WHERE "
                      "session_id = ? AND slot = ?", (copy_uid, rater, sid, slot))
    at = now_iso()
    file_uid = found.meta["file_uid"]
    pconn.executemany(
        "INSERT INTO rating_judgments(session_id, uid, seq, file_uid, task_id, rater, "
        "answer, flag, reason, supersedes, time_ms, penalty_ms, shown_at, "
        "submitted_at, merged_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [(sid, j.uid, j.seq, file_uid, j.task_id, rater or "", answer, j.flag,
          j.reason or None, j.supersedes, j.time_ms, j.penalty_ms, j.shown_at,
          j.submitted_at, at) for j, answer in new])
    pconn.execute("INSERT INTO rating_merges(session_id, file_uid, path, rater, added, "
                  "already, merged_at, actor) VALUES (?,?,?,?,?,?,?,?)",
                  (sid, file_uid, str(path), rater, len(new), already, at, project.actor))
    project.audit("merge", "rating_session", session_name, slot, None,
                  {"file": str(path), "rater": rater, "added": len(new),
                   "warnings": list(warnings)})


def _expected_tasks(project: Project, sid: int, slot: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for tid, tok in project.conn.execute(
            "SELECT b.task_id, b.token FROM rating_blinding b JOIN rating_tasks t "
            "ON t.session_id = b.session_id AND t.task_id = b.task_id "
            "WHERE b.session_id = ? AND t.slot = ? ORDER BY b.task_id, b.position", (sid, slot)):
        out.setdefault(tid, []).append(tok)
    for (tid,) in project.conn.execute("SELECT task_id FROM rating_tasks WHERE session_id = ? "
                                       "AND slot = ?", (sid, slot)):
        out.setdefault(tid, [])
    return out
