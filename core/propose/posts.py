"""The Posts view's queries: which posts to list, and one display row per post."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from core.propose.store import select_posts
from core.store.errors import ProjectError
from core.store.project import Project

#: (key, label) of the lists the Posts view offers
LISTS = (("raw", "Main posts without an imported sample"), ("all", "All main posts"),
         ("replies", "Every post, replies too"))


@dataclass(frozen=True)
class PostRow:
    """What one line of the Posts view shows."""

    id: str
    author: str
    timestamp: str
    text: str
    images: int
    replies: int
    samples: int


def post_ids(project: Project, which: str = "raw", text: str = "") -> list[str]:
    """Ids of the posts the view lists (``which`` from :data:`LISTS`), filtered by words;
    :class:`ProjectError` when the project cannot be read (closed meanwhile)."""
    try:
        return _post_ids(project, which, text)
    except sqlite3.Error as exc:
        raise ProjectError(f"{project.path.name}: cannot read the posts ({exc})") from exc


def _post_ids(project: Project, which: str, text: str) -> list[str]:
    if which == "replies":
        if text.strip():
            from core.curate.search import parse

            q = parse(text)
            if q.empty:
                return []
            sql, params = q.post_sql()
            return [r[0] for r in project.conn.execute(
                f"SELECT id FROM posts WHERE rowid IN ({sql}) ORDER BY id", params)]
        return [r[0] for r in project.conn.execute("SELECT id FROM posts ORDER BY id")]
    ids = select_posts(project, which)
    if text.strip():
        try:
            found = set(select_posts(project, text))
        except ValueError:
            return []
        ids = [i for i in ids if i in found]
    return ids


def fetch_posts(project: Project, ids: list[str]) -> dict[str, PostRow]:
    """Display rows for ``ids`` (a page at a time); ProjectError when unreadable."""
    try:
        return _fetch_posts(project, ids)
    except sqlite3.Error as exc:
        raise ProjectError(f"{project.path.name}: cannot read the posts ({exc})") from exc


def _fetch_posts(project: Project, ids: list[str]) -> dict[str, PostRow]:
    out: dict[str, PostRow] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ",".join("?" * len(chunk))
        for r in project.conn.execute(
                "SELECT p.id, coalesce(p.author, ''), coalesce(p.timestamp, ''), "
                "substr(p.text, 1, 300), "
                "(SELECT count(*) FROM post_images i WHERE i.post_id = p.id), "
                "(SELECT count(*) FROM posts c WHERE c.parent_id = p.id), "
                "(SELECT count(*) FROM samples s WHERE s.post_id = p.id) "
                f"FROM posts p WHERE p.id IN ({marks})", chunk):
            out[r[0]] = PostRow(*r)
    return out


def samples_of(project: Project, post_id: str) -> list[str]:
    """The samples made from ``post_id``, oldest first."""
    return [r[0] for r in project.conn.execute(
        "SELECT id FROM samples WHERE post_id = ? ORDER BY created_at, id", (post_id,))]


def count_posts(project: Project) -> int:
    """How many posts (replies included) the project holds."""
    return int(project.conn.execute("SELECT count(*) FROM posts").fetchone()[0])
