"""Housekeeping of rating sessions: which samples a new one takes, deleting or archiving
one, and where its rater files are (ADR 037).

A session nobody has answered yet (no merged judgment, no merge) is **deleted**: its
rows go in one transaction, then each of its rater files that Winnow can prove it
wrote and nobody has opened is removed.  A session with merged judgments is
**archived** instead: judgments are append-only and stay, the session is only hidden
from the list until it is restored.  Either way the audit log says who did it.

A rater file counts as Winnow's and untouched when, at the path the project recorded:
it is a regular file (not a symlink), no ``-wal``/``-shm``/``-journal`` lies beside it
(nobody has it open), its SQLite application id and ``meta`` name this session and this
file's uid, and it holds no rater name, no judgment and no event (a rater who opened it
has made it theirs).  Anything else is kept and reported.  Folders are never removed.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.rating import session_file as sf
from core.readonly_db import schema_problem
from core.selection import SampleFilter
from core.store.project import Project, now_iso

_ARCHIVED = "rating_session_archived:"
SOURCES = ("filter", "benchmark", "tag", "ids")


# -- which samples a new session takes ----------------------------------------------------------
@dataclass(frozen=True)
class SampleChoice:
    """The samples a source gives, and what could not be used (unknown ids)."""

    ids: tuple[str, ...]
    problems: tuple[str, ...] = ()


def choose_samples(project: Project, source: str, value: Any = None) -> SampleChoice:
    """Sample ids for a new session: ``"filter"`` (``value`` a SampleFilter, e.g. Curate's),
    ``"benchmark"`` (every sample labelled Benchmark), ``"tag"`` (``value`` a tag: a saved
    list), ``"ids"`` (``value`` text of ids separated by spaces, commas or new lines; the
    unknown ones are named)."""
    if source == "filter":
        selection = value if isinstance(value, SampleFilter) else SampleFilter()
        return SampleChoice(tuple(selection.sample_ids(project)))
    if source == "benchmark":
        return SampleChoice(tuple(SampleFilter(quality=("Benchmark",)).sample_ids(project)))
    if source == "tag":
        if not str(value or "").strip():
            return SampleChoice((), ("choose a tag",))
        return SampleChoice(tuple(SampleFilter(tag=str(value)).sample_ids(project)))
    if source == "ids":
        wanted = list(dict.fromkeys(t for t in re.split(r"[\s,;]+", str(value or "")) if t))
        known: set[str] = set()
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            known.update(r[0] for r in project.conn.execute(
                f"SELECT id FROM samples WHERE id IN ({','.join('?' * len(chunk))})", chunk))
        unknown = [w for w in wanted if w not in known]
        problems = (f"no sample {', '.join(unknown[:10])}"
                    + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""),
                    ) if unknown else ()
        return SampleChoice(tuple(w for w in wanted if w in known), problems)
    raise ValueError(f"unknown sample source {source!r}; choose one of {', '.join(SOURCES)}")


# -- archived sessions ----------------------------------------------------------------------------
def archived(project: Project) -> dict[str, dict[str, Any]]:
    """``{session uid: {"at", "by", "name"}}`` of the archived (hidden) sessions."""
    rows = project.conn.execute("SELECT key, value FROM project_meta WHERE key LIKE ?",
                                (_ARCHIVED + "%",)).fetchall()
    return {key[len(_ARCHIVED):]: json.loads(value) for key, value in rows}


def restore_session(project: Project, name: str) -> bool:
    """Show an archived session again; False when it was not archived."""
    row = _session(project, name)
    key = _ARCHIVED + row["uid"]
    with project.transaction() as conn:
        if conn.execute("DELETE FROM project_meta WHERE key = ?", (key,)).rowcount == 0:
            return False
        project.audit("restore", "rating_session", name, "archived", True, False)
    return True


# -- deleting -------------------------------------------------------------------------------------
@dataclass
class Removal:
    """What :func:`remove_session` will do (``plan``) or did."""

    name: str
    action: str  # "delete" | "archive"
    judgments: int
    merges: int
    delete_files: list[Path] = field(default_factory=list)
    keep_files: list[tuple[Path, str]] = field(default_factory=list)  # (path, why kept)
    deleted_files: list[Path] = field(default_factory=list)

    def summary(self) -> str:
        """One paragraph for the confirmation and the report."""
        if self.action == "archive":
            return (f"{self.name} has {self.judgments:,} merged judgment(s) from "
                    f"{self.merges} returned file(s). Judgments are never deleted, so the "
                    "session will be archived: hidden from the list, restorable, nothing "
                    "removed.")
        lines = [f"{self.name} has no merged judgment: it will be deleted from the project."]
        if self.delete_files:
            lines.append(f"{len(self.delete_files)} unopened rater file(s) Winnow wrote will "
                         "be deleted.")
        for path, why in self.keep_files:
            lines.append(f"Kept: {path} ({why}).")
        return "\n".join(lines)


def plan_removal(project: Project, name: str) -> Removal:
    """Decide delete or archive, and which rater files may go (nothing is changed)."""
    row = _session(project, name)
    judgments, merges = project.conn.execute(
        "SELECT (SELECT count(*) FROM rating_judgments WHERE session_id = ?), "
        "(SELECT count(*) FROM rating_merges WHERE session_id = ?)",
        (row["id"], row["id"])).fetchone()
    removal = Removal(name, "archive" if judgments or merges else "delete", judgments, merges)
    if removal.action == "delete":
        for file_uid, path in project.conn.execute(
                "SELECT file_uid, path FROM rating_files WHERE session_id = ? AND path IS NOT "
                "NULL ORDER BY slot", (row["id"],)):
            why = why_keep(Path(path), row["uid"], file_uid)
            if why is None:
                removal.delete_files.append(Path(path))
            elif why != "not there any more":
                removal.keep_files.append((Path(path), why))
    return removal


def remove_session(project: Project, name: str) -> Removal:
    """Delete session ``name`` (and its proven, unopened rater files) or, when judgments
    were merged into it, archive it.  Returns what was done."""
    removal = plan_removal(project, name)
    row = _session(project, name)
    with project.transaction() as conn:
        if removal.action == "archive":
            conn.execute("INSERT OR REPLACE INTO project_meta(key, value) VALUES (?, ?)",
                         (_ARCHIVED + row["uid"], json.dumps(
                             {"at": now_iso(), "by": project.actor, "name": name})))
            project.audit("archive", "rating_session", name, "archived", False, True)
            return removal
        conn.execute("DELETE FROM rating_sessions WHERE id = ?", (row["id"],))  # cascades
        project.audit("delete", "rating_session", name, None,
                      {"uid": row["uid"], "protocol": row["protocol"],
                       "design": json.loads(row["design"]),
                       "files": [str(p) for p in removal.delete_files]}, None)
    for path in removal.delete_files:  # after the commit: a failure leaves only the file
        if why_keep(path, row["uid"], None) is not None:  # changed since the plan
            removal.keep_files.append((path, "changed while deleting"))
            continue
        try:
            path.unlink()
            removal.deleted_files.append(path)
        except OSError as exc:
            removal.keep_files.append((path, f"could not delete: {exc.strerror or exc}"))
    return removal


def why_keep(path: Path, session_uid: str, file_uid: str | None) -> str | None:
    """None when ``path`` is a rater file of this session that Winnow wrote and nobody has
    opened (so it may be deleted); otherwise the reason to keep it."""
    if path.is_symlink():
        return "a symbolic link"
    if not path.exists():
        return "not there any more"
    if not path.is_file():
        return "not a file"
    for suffix in ("-wal", "-shm", "-journal"):
        if Path(str(path) + suffix).exists():
            return "open in a rater's Winnow, or not closed cleanly"
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error as exc:
        return f"cannot be read ({exc})"
    try:
        if conn.execute("PRAGMA application_id").fetchone()[0] != sf.APPLICATION_ID:
            return "not a Winnow session file"
        problem = schema_problem(conn, sf.TABLES)  # a view may hide answers, or never end
        if problem:
            return problem
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("format") != sf.FORMAT or meta.get("session_uid") != session_uid:
            return "not a file of this session"
        if file_uid is not None and meta.get("file_uid") != file_uid:
            return "another rater slot's file"
        used = conn.execute("SELECT (SELECT count(*) FROM judgments) + (SELECT count(*) FROM "
                            "events) + (SELECT count(*) FROM rater)").fetchone()[0]
        if used:
            return "a rater has opened or answered it"
    except sqlite3.Error as exc:
        return f"cannot be read ({exc})"
    finally:
        conn.close()
    return None


# -- where the files are -----------------------------------------------------------------------------
def session_folder(project: Project, name: str) -> Path | None:
    """The folder the session's rater files were written to (None if never written or
    the folder is gone)."""
    row = _session(project, name)
    for (path,) in project.conn.execute(
            "SELECT path FROM rating_files WHERE session_id = ? AND path IS NOT NULL "
            "ORDER BY slot", (row["id"],)):
        folder = Path(path).parent
        if folder.is_dir():
            return folder
    return None


def _session(project: Project, name: str) -> dict[str, Any]:
    row = project.conn.execute(
        "SELECT id, uid, protocol, design FROM rating_sessions WHERE name = ?",
        (name,)).fetchone()
    if row is None:
        raise ValueError(f"no rating session named {name!r}")
    return dict(zip(("id", "uid", "protocol", "design"), row, strict=True))


def model_output_counts(project: Project) -> dict[str, int]:
    """``{model: number of outputs}`` in the project, by model name."""
    return {m: int(n) for m, n in project.conn.execute(
        "SELECT model, count(*) FROM model_outputs GROUP BY model ORDER BY model")}


def rater_task_counts(project: Project, name: str) -> list[tuple[str, int, int]]:
    """``(slot, tasks, gold tasks)`` of each rater slot of session ``name``, by slot."""
    return [(str(slot), int(n), int(gold)) for slot, n, gold in project.conn.execute(
        "SELECT t.slot, count(*), count(t.gold) FROM rating_tasks t JOIN rating_sessions s "
        "ON s.id = t.session_id WHERE s.name = ? GROUP BY t.slot ORDER BY t.slot",
        (name,))]
