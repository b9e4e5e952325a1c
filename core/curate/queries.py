"""Sample-list queries for Curate: ordered ids of a filter, row pages, navigation.

The list keeps the full ordered id list of the current filter (a few hundred KB for
31,000 samples, one indexed query) and fetches display rows by page, so any row
can be reached in constant time and the list never holds one object per sample.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from core.curate.search import parse
from core.selection import SampleFilter
from core.store.errors import ProjectError
from core.store.project import Project

#: list columns: (key, header, SQL expression over ``samples s``)
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("id", "ID", "s.id"),
    ("prompt", "Prompt", "s.prompt"),
    ("quality", "Quality", "coalesce(s.quality, '')"),
    ("split", "Split", "coalesce(s.split, '')"),
    ("review_status", "Rev.", "s.review_status"),
    ("n_inputs", "#In", "(SELECT count(*) FROM sample_images i WHERE i.sample_id = s.id "
                        "AND i.role = 'input')"),
    ("n_outputs", "#Out", "(SELECT count(*) FROM sample_images i WHERE i.sample_id = s.id "
                          "AND i.role = 'output')"),
    ("modified", "Ed.", "(s.prompt != s.original_prompt)"),
)
COLUMN_KEYS = tuple(c[0] for c in COLUMNS)
_EXPR = {key: expr for key, _h, expr in COLUMNS}
PREVIEW_CHARS = 160


@dataclass(frozen=True)
class SampleRow:
    """What one line of the sample list shows."""

    id: str
    prompt: str
    quality: str | None
    split: str | None
    review_status: str
    n_inputs: int
    n_outputs: int
    modified: bool

    def value(self, key: str) -> Any:
        """The cell value for column ``key``."""
        return getattr(self, key)


def ordered_ids(project: Project, selection: SampleFilter, sort: str = "id",
                descending: bool = False) -> list[str]:
    """Ids of the samples ``selection`` selects, ordered by column ``sort``."""
    where, params = selection.where()
    sql = f"SELECT s.id FROM samples s WHERE {where} ORDER BY {_order(sort, descending)}"
    return [row[0] for row in project.conn.execute(sql, params)]


def _order(sort: str, descending: bool) -> str:
    if sort not in _EXPR:
        raise ValueError(f"unknown sort column {sort!r}; choose one of {', '.join(COLUMN_KEYS)}")
    direction = "DESC" if descending else "ASC"
    if sort == "prompt":
        return f"s.prompt COLLATE NOCASE {direction}, s.id {direction}"
    return f"{_EXPR[sort]} {direction}, s.id {direction}" if sort != "id" else f"s.id {direction}"


class SampleLister:
    """:func:`ordered_ids` for a list that re-filters on every keystroke (ADR 032).

    The list without its search text (the other filters, in sort order) is kept as
    arrays of rowids and ids until the project changes (this connection's
    ``total_changes`` or, for other connections, ``PRAGMA data_version``); a search
    then costs one FTS5 query for the matching rowids and an array lookup, instead of
    joining the full-text hits back to ``samples`` and sorting them every time.
    """

    def __init__(self, project: Project) -> None:
        self.project = project
        self._key: tuple[Any, ...] | None = None
        self._rowids = np.zeros(0, dtype=np.int64)
        self._ids = np.zeros(0, dtype=object)

    def ordered_ids(self, selection: SampleFilter, sort: str = "id",
                    descending: bool = False) -> list[str]:
        """Ids of the samples ``selection`` selects, ordered by column ``sort``."""
        text = parse(selection.text)
        base = replace(selection, text="")
        rowids, ids = self._base(base, sort, descending)
        if text.empty:
            return _as_list(ids)
        sql, params = text.sql()
        found = self.project.conn.execute(
            f"SELECT group_concat(rowid) FROM ({sql})", params).fetchone()[0]
        if not found or not len(rowids):
            return []
        hits = np.fromstring(found, dtype=np.int64, sep=",")  # parsed in C: 5× a split
        top = int(max(rowids.max(), hits.max()))
        if top > 64 * len(rowids) + 1_000_000:  # sparse rowids (set by hand): no bitmap
            return _as_list(ids[np.isin(rowids, hits)])
        flag = np.zeros(top + 1, dtype=bool)
        flag[hits] = True
        return _as_list(ids[flag[rowids]])

    def _base(self, selection: SampleFilter, sort: str,
              descending: bool) -> tuple[np.ndarray, np.ndarray]:
        conn = self.project.conn
        key = (selection, sort, descending, conn.total_changes,
               conn.execute("PRAGMA data_version").fetchone()[0])
        if key != self._key:
            where, params = selection.where()
            rows = conn.execute(f"SELECT s.rowid, s.id FROM samples s WHERE {where} "
                                f"ORDER BY {_order(sort, descending)}", params).fetchall()
            self._rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            self._ids = np.empty(len(rows), dtype=object)
            self._ids[:] = [r[1] for r in rows]
            self._key = key
        return self._rowids, self._ids


def fetch_rows(project: Project, ids: list[str]) -> dict[str, SampleRow]:
    """Display rows for ``ids`` (any order; at most a page at a time)."""
    rows: dict[str, SampleRow] = {}
    try:
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            sql = (f"SELECT s.id, substr(s.prompt, 1, {PREVIEW_CHARS}), s.quality, s.split, "
                   f"s.review_status, {_EXPR['n_inputs']}, {_EXPR['n_outputs']}, "
                   f"{_EXPR['modified']} FROM samples s WHERE s.id IN ({marks})")
            for r in project.conn.execute(sql, chunk):
                rows[r[0]] = SampleRow(r[0], r[1], r[2], r[3], r[4], int(r[5]), int(r[6]),
                                       bool(r[7]))
    except sqlite3.Error as exc:  # e.g. the project was closed under a repaint
        raise ProjectError(f"{project.path.name}: cannot read the sample list ({exc})") from exc
    return rows


def distinct_tags(project: Project) -> list[str]:
    """Every tag in use, sorted."""
    return [r[0] for r in project.conn.execute(
        "SELECT DISTINCT tag FROM sample_tags ORDER BY tag COLLATE NOCASE")]


def next_unreviewed(project: Project, ids: list[str], after: int) -> int | None:
    """Index in ``ids`` of the first unreviewed sample after position ``after`` (wrapping)."""
    n = len(ids)
    if not n:
        return None
    order = [(after + step) % n for step in range(1, n + 1)]
    for start in range(0, n, 400):
        positions = order[start:start + 400]
        chunk = [ids[k] for k in positions]
        marks = ",".join("?" * len(chunk))
        found = {r[0] for r in project.conn.execute(
            f"SELECT id FROM samples WHERE review_status = 'unreviewed' AND id IN ({marks})",
            chunk)}
        for k in positions:
            if ids[k] in found:
                return k
    return None


def count_samples(project: Project) -> int:
    """How many samples the project holds."""
    return int(project.conn.execute("SELECT count(*) FROM samples").fetchone()[0])


def _as_list(ids: np.ndarray) -> list[str]:
    """The sample ids of an object array, as a list."""
    out: list[str] = ids.tolist()
    return out
