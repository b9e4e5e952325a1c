"""Proposal records: runs, answers (ok or failed, append-only), the cache, post lists."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from core.curate.search import parse
from core.propose.kinds import MAX_RAW_CHARS
from core.store.project import Project, now_iso


@dataclass
class Outcome:
    """What one request came to, ready to be recorded."""

    post_id: str
    kind: str
    template_id: int
    input_hash: str
    status: str                   # ok | failed
    error: str | None = None
    raw: str | None = None
    value: dict[str, Any] | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    latency_ms: int | None = None


def start_run(project: Project, model: str, endpoint: dict[str, Any], kinds: Iterable[str],
              posts: str) -> int:
    """Record the start of a run; its id."""
    with project.transaction() as conn:
        cur = conn.execute(
            "INSERT INTO proposal_runs(started_at, actor, model, endpoint, kinds, posts) "
            "VALUES (?, ?, ?, ?, ?, ?)", (now_iso(), project.actor, model,
                                          json.dumps(endpoint), ",".join(kinds), posts))
        return int(cur.lastrowid or 0)


def finish_run(project: Project, run_id: int, outcome: str, totals: dict[str, Any]) -> None:
    """Record how a run ended (done, cancelled, stopped: reason) and its totals."""
    with project.transaction() as conn:
        conn.execute("UPDATE proposal_runs SET finished_at = ?, outcome = ?, totals = ? "
                     "WHERE id = ?", (now_iso(), outcome, json.dumps(totals), run_id))


def cached(project: Project, post_id: str, kind: str, template_id: int, model: str,
           input_hash: str) -> tuple[int, dict[str, Any], bool] | None:
    """(id, value, applied yet) of an earlier successful answer to the same request."""
    row = project.conn.execute(
        "SELECT id, value, applied IS NOT NULL FROM proposals WHERE post_id = ? AND kind = ? AND template_id = ? "
        "AND model = ? AND input_hash = ? AND status = 'ok'",
        (post_id, kind, template_id, model, input_hash)).fetchone()
    return None if row is None else (int(row[0]), json.loads(row[1]), bool(row[2]))


def insert(project: Project, o: Outcome, model: str, run_id: int | None) -> int:
    """Append one answer (inside a transaction); its id."""
    raw = None if o.raw is None else o.raw[:MAX_RAW_CHARS]
    cur = project.conn.execute(
        "INSERT INTO proposals(post_id, kind, template_id, model, input_hash, status, error, "
        "raw, value, prompt_tokens, completion_tokens, cost, latency_ms, run_id, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (o.post_id, o.kind, o.template_id, model, o.input_hash, o.status, o.error, raw,
         None if o.value is None else json.dumps(o.value, ensure_ascii=False),
         o.prompt_tokens, o.completion_tokens, o.cost, o.latency_ms, run_id, now_iso()))
    return int(cur.lastrowid or 0)


def set_applied(project: Project, proposal_id: int, applied: dict[str, Any]) -> None:
    """Note what a proposal changed (and what it left to the curator)."""
    project.conn.execute("UPDATE proposals SET applied = ? WHERE id = ?",
                         (json.dumps(applied, ensure_ascii=False), proposal_id))


# -- which posts --------------------------------------------------------------------------
QUERY_HELP = ("QUERY: 'raw' (the default: main posts with no imported sample; samples made "
              "from a post in Winnow, by hand or by a proposal, do not count), 'all' (every "
              "main post), 'ids:ID,ID,…', or words that must all occur in the post's text "
              "(main posts are posts that are not replies)")


def select_posts(project: Project, query: str = "raw") -> list[str]:
    """Post ids a run works on, in id order (see :data:`QUERY_HELP`)."""
    q = query.strip()
    conn = project.conn
    top = "p.parent_id IS NULL"
    if q in ("", "raw"):
        sql = (f"SELECT p.id FROM posts p WHERE {top} AND NOT EXISTS (SELECT 1 FROM samples s "
               "WHERE s.post_id = p.id AND s.id NOT IN (SELECT sample_id FROM "
               "proposal_samples)) ORDER BY p.id")
        return [r[0] for r in conn.execute(sql)]
    if q == "all":
        return [r[0] for r in conn.execute(f"SELECT p.id FROM posts p WHERE {top} "
                                           "ORDER BY p.id")]
    if q.startswith("ids:"):
        wanted = list(dict.fromkeys(t.strip() for t in q[4:].split(",") if t.strip()))
        found: set[str] = set()
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            found |= {r[0] for r in conn.execute(
                f"SELECT id FROM posts WHERE id IN ({','.join('?' * len(chunk))})", chunk)}
        missing = [w for w in wanted if w not in found]
        if missing:
            raise ValueError(f"no post with id {', '.join(missing[:5])}"
                             + (f" (and {len(missing) - 5} more)" if len(missing) > 5 else ""))
        return wanted
    text = parse(q)
    if text.empty:
        raise ValueError(f"the post query {query!r} has no word to search for; {QUERY_HELP}")
    sql, params = text.post_sql()
    return [r[0] for r in conn.execute(
        f"SELECT p.id FROM posts p WHERE {top} AND p.rowid IN ({sql}) ORDER BY p.id", params)]


def failures(project: Project, limit: int = 200) -> list[dict[str, Any]]:
    """The latest failed answers that no later answer replaced, newest first."""
    rows = project.conn.execute(
        "SELECT p.post_id, p.kind, p.model, p.error, p.created_at FROM proposals p "
        "WHERE p.status = 'failed' AND NOT EXISTS (SELECT 1 FROM proposals q WHERE "
        "q.post_id = p.post_id AND q.kind = p.kind AND q.model = p.model AND q.id > p.id) "
        "ORDER BY p.id DESC LIMIT ?", (limit,)).fetchall()
    return [{"post": r[0], "kind": r[1], "model": r[2], "reason": r[3], "at": r[4]}
            for r in rows]


def has_proposal_tables(project: Project) -> bool:
    """Whether the project's schema has the proposal tables (a read-only project opened
    from an older Winnow has not been migrated and lacks them)."""
    return project.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                "name = 'proposals'").fetchone() is not None
