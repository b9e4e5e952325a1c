"""A curator package: a ``.winnow`` project restricted to one curator's samples (ADR 130),
tamper-evident like a rater file (ADR 131).

What makes a project file a package (written once, when the package is made):

- ``team_package``: its identity (split, package uid, curator, the project it came
  from) and ``base_mac``, the MAC of everything the project put in it;
- ``team_base``: each sample's fields as the project had them (the base of the merge);
- ``team_image_data``: the images it shows, stored once each by SHA-256;
- ``team_chain`` / ``team_chain_macs``: a forward-secure MAC chain over the audit log.
  A trigger MACs every audit row in the transaction that writes it
  (:func:`core.mac_chain.register_sql_functions`, registered on every connection
  Winnow opens), so each change made through Curate is an entry of the chain;
- guard triggers: a package takes no posts, images, photos, sessions, model outputs,
  metric results or splits, and keeps the samples it was given.

The project keeps the secret; the package holds only the chain's current key.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.mac_chain import MacChain, canonical, mac
from core.readonly_db import open_readonly, schema_problem
from core.store.errors import PACKAGE_REFUSAL, ProjectError
from core.store.schema import has_sample_raw
from core.teamwork.values import Values, read_values

FORMAT = "winnow-curator-package"
FORMAT_VERSION = 1
TEAM = MacChain("winnow-team/")
#: the end of every message about a change made without Winnow
WHERE = "outside Winnow's Curate"
#: the audit columns a chain entry covers, in order
AUDIT_COLUMNS = ("id", "at", "actor", "action", "entity", "entity_id", "field", "old", "new")
#: what the identity of a package holds (``base_mac`` is stored beside it)
META_KEYS = ("format", "format_version", "split_uid", "split_name", "package_uid",
             "curator", "project", "created_at", "created_by", "samples")

_GUARDS = {  # table → what a package cannot do with it
    "posts": "import or change posts",
    "post_images": "import or change post images",
    "images": "take new images",
    "photos": "import photos (anonymize in the project)",
    "rating_sessions": "hold rating sessions",
    "model_outputs": "import model outputs",
    "metric_results": "hold metric results",
    "team_splits": "be split again (split the project instead)",
}
_FIXED = ("team_package", "team_base", "team_image_data", "team_chain_macs")


def _sql() -> str:
    cols = ", ".join(f"new.{c}" for c in AUDIT_COLUMNS)
    parts = [f"""
CREATE TABLE team_package (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE team_base (sample_id TEXT PRIMARY KEY, doc TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE team_chain (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    position INTEGER NOT NULL,
    key TEXT NOT NULL,
    last_mac TEXT NOT NULL
);
CREATE TABLE team_chain_macs (audit_id INTEGER PRIMARY KEY, mac TEXT NOT NULL);
CREATE TRIGGER team_chain_audit AFTER INSERT ON audit_log BEGIN
  INSERT INTO team_chain_macs(audit_id, mac)
    SELECT new.id, winnow_chain_mac(key, last_mac, 'audit', {cols}) FROM team_chain;
  UPDATE team_chain SET position = position + 1,
    last_mac = (SELECT mac FROM team_chain_macs WHERE audit_id = new.id),
    key = winnow_chain_next('{TEAM.domain}', key);
END;
CREATE TRIGGER team_keep_samples BEFORE DELETE ON samples
WHEN old.id IN (SELECT sample_id FROM team_base) BEGIN
  SELECT RAISE(ABORT, '{PACKAGE_REFUSAL} delete the samples it was given');
END;
CREATE TRIGGER team_keep_identity BEFORE UPDATE OF id, post_id, original_prompt ON samples
WHEN old.id IN (SELECT sample_id FROM team_base) BEGIN
  SELECT RAISE(ABORT, '{PACKAGE_REFUSAL} change a sample''s id, post or original prompt');
END;
"""]
    for table, what in _GUARDS.items():
        for event in ("INSERT", "UPDATE", "DELETE"):
            parts.append(f"CREATE TRIGGER team_guard_{table}_{event.lower()} BEFORE {event} "
                         f"ON {table} BEGIN SELECT RAISE(ABORT, '{PACKAGE_REFUSAL} {what}'); "
                         "END;")
    for table in _FIXED:
        for event in ("UPDATE", "DELETE"):
            parts.append(f"CREATE TRIGGER team_fixed_{table}_{event.lower()} BEFORE {event} "
                         f"ON {table} BEGIN SELECT RAISE(ABORT, '{PACKAGE_REFUSAL} change "
                         "what the project put in it'); END;")
    return "\n".join(parts)


PACKAGE_SQL = _sql()


class PackageError(ValueError):
    """A file is not a curator package Winnow can read (names the file and why)."""


def base_key(secret: bytes, package_uid: str) -> bytes:
    """Signs what the project put in a package (never written into it)."""
    return TEAM.derive(secret, f"base/{package_uid}")


def chain_start(secret: bytes, package_uid: str) -> bytes:
    """``K0`` of a package's key chain (written into the fresh package)."""
    return TEAM.derive(secret, f"chain/{package_uid}")


def is_package(conn: sqlite3.Connection) -> bool:
    """Whether the open project is a curator package."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                        "AND name = 'team_package'").fetchone() is not None


def package_meta(conn: sqlite3.Connection) -> dict[str, str]:
    """A package's identity (empty for a project that is not a package)."""
    if not is_package(conn):
        return {}
    return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM team_package")}


def package_of(project: Any) -> dict[str, str] | None:
    """The open project's package identity (curator, project, …), None for a project."""
    return package_meta(project.conn) if is_package(project.conn) else None


def package_refusal(project: Any, takes: str = "imports",
                    instead: str = "Import into {project} and share again") -> str | None:
    """Why the open project refuses an action before it starts, when it is a curator
    package (its guard triggers refuse what the action writes, ADR 130): names the package,
    its curator and the project to do it in (``{project}`` in ``instead``).  None for a
    project, or with none open.  Every up-front refusal uses this (ADR 219, 222)."""
    meta = package_of(project) if project is not None else None
    if meta is None:
        return None
    origin = f"the project it was split from ({meta.get('project', '?')})"
    return (f"{project.path.name} is {meta.get('curator', 'a curator')}'s curator package: "
            f"it holds only the samples shared with them and takes no {takes}. "
            + instead.format(project=origin) + ".")


class PackageRefusal(ProjectError):
    """An action a curator package does not take, refused before it writes anything
    (the text is :func:`package_refusal`'s; the GUI and the CLI show it as it is)."""


def refuse_package(project: Any, takes: str = "imports",
                   instead: str = "Import into {project} and share again") -> None:
    """Raise :class:`PackageRefusal` when ``project`` is a curator package (the core's
    own check, so that the CLI and the GUI refuse the same actions in the same words)."""
    text = package_refusal(project, takes, instead)
    if text is not None:
        raise PackageRefusal(text)


# -- what the base MAC covers ----------------------------------------------------------------
_CONTEXT = (  # (label, query) over the package's own tables, in a fixed order
    ("base", "SELECT sample_id, doc FROM team_base ORDER BY sample_id"),
    ("samples", "SELECT s.id, s.post_id, s.original_prompt, s.created_at, r.raw, r.raw_hash "
                "FROM samples s LEFT JOIN sample_raw r ON r.sample_id = s.id "
                "WHERE s.id IN (SELECT sample_id FROM team_base) ORDER BY s.id"),
    ("posts", "SELECT id, parent_id, text, timestamp, keyword, url, author, engagement, raw, "
              "raw_hash, imported_at FROM posts ORDER BY id"),
    ("post_images", "SELECT post_id, position, url, alt, sha256, error FROM post_images "
                    "ORDER BY post_id, position"),
    ("feedback", "SELECT sample_id, position, post_id, text FROM feedback WHERE sample_id IN "
                 "(SELECT sample_id FROM team_base) ORDER BY sample_id, position"),
    ("links", "SELECT sample_id, kind, source_sample_id, template_post_id, completion_post_id, "
              "created_at FROM sample_links WHERE sample_id IN (SELECT sample_id FROM "
              "team_base) ORDER BY sample_id"),
    ("images", "SELECT sha256, ext, mime, width, height, bytes FROM images ORDER BY sha256"),
    ("image_data", "SELECT sha256 FROM team_image_data ORDER BY sha256"),
)

_SAMPLES_BEFORE_13 = ("SELECT id, post_id, original_prompt, created_at, raw, raw_hash FROM "
                      "samples WHERE id IN (SELECT sample_id FROM team_base) ORDER BY id")


def base_document(conn: sqlite3.Connection) -> bytes:
    """What the base MAC covers: the identity, every sample's base values, and everything
    the package shows that no merge brings back (posts, replies, feedback, images)."""
    meta = {k: v for k, v in conn.execute("SELECT key, value FROM team_package")
            if k != "base_mac"}
    digest = hashlib.sha256()
    # a package made before schema 13 (read as it is, never migrated) keeps a sample's
    # imported line in its row; the rows, and so the document, are the same either way
    split_raw = has_sample_raw(conn)
    for label, query in _CONTEXT:
        if label == "samples" and not split_raw:
            query = _SAMPLES_BEFORE_13
        digest.update(label.encode() + b"\n")
        # repr of SQLite's row tuples (text, integers, reals, blobs, None) is exact and
        # several times faster than JSON at 30,000 posts
        rows = conn.execute(query).fetchall()
        digest.update("\n".join(map(repr, rows)).encode("utf-8", "surrogatepass"))
        digest.update(b"\n")
    return canonical({"meta": meta, "content": digest.hexdigest()})


def install(conn: sqlite3.Connection, meta: dict[str, Any], base: dict[str, Values],
            secret: bytes) -> str:
    """Make the (filled) project on ``conn`` a package: identity, base values, key chain,
    guards; returns the base MAC.  Inside the caller's transaction."""
    from core.teamwork.values import dumps

    for statement in _statements(PACKAGE_SQL):
        conn.execute(statement)
    conn.executemany("INSERT INTO team_package(key, value) VALUES (?, ?)",
                     [(k, str(meta[k])) for k in META_KEYS])
    conn.executemany("INSERT INTO team_base(sample_id, doc) VALUES (?, ?)",
                     [(sid, dumps(v)) for sid, v in sorted(base.items())])
    uid = str(meta["package_uid"])
    base_mac = mac(base_key(secret, uid), base_document(conn))
    conn.execute("INSERT INTO team_package(key, value) VALUES ('base_mac', ?)", (base_mac,))
    conn.execute("INSERT INTO team_chain(id, position, key, last_mac) VALUES (1, 0, ?, ?)",
                 (chain_start(secret, uid).hex(), base_mac))
    return base_mac


def _statements(sql: str) -> Iterator[str]:
    from core.store.schema import split_statements

    yield from split_statements(sql)


# -- reading a returned package --------------------------------------------------------------
@dataclass
class PackageFile:
    """What a returned package holds, read once, read-only."""

    path: Path
    meta: dict[str, str]
    document: bytes
    base: dict[str, Values]
    current: dict[str, Values]
    audit: list[tuple[Any, ...]]            # rows of AUDIT_COLUMNS, in id order
    macs: dict[int, str]
    chain: tuple[Any, Any, Any] | None      # position, key hex, last mac
    links: dict[str, tuple[Any, ...]]       # derived sample → (kind, source, tpl post, reply)
    reply_images: dict[str, list[tuple[Any, ...]]]  # post → (position, url, sha256, error)
    post_text: dict[str, str]
    changed_images: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def uid(self) -> str:
        return self.meta.get("package_uid", "")

    @property
    def curator(self) -> str:
        return self.meta.get("curator", "")


def package_digest(path: Path) -> str | None:
    """SHA-256 over a package file's bytes and those of its ``-wal`` file beside it (if
    any): the same digest means the same content.  None when the file cannot be read or
    is no Winnow file (its header says so: a large stranger is not hashed)."""
    from core.store.project import APPLICATION_ID

    total = hashlib.sha256()
    try:
        for part in (path, path.with_name(path.name + "-wal")):
            try:
                # O_NONBLOCK: opening a pipe to read would wait for a writer for ever
                fd = os.open(part, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    os.close(fd)
                    return None  # a pipe, device or socket: read_package refuses it
                with os.fdopen(fd, "rb") as fh:
                    if part == path:
                        head = fh.read(100)
                        if (len(head) < 100 or not head.startswith(b"SQLite format 3\0")
                                or int.from_bytes(head[68:72], "big") != APPLICATION_ID):
                            return None
                        fh.seek(0)
                    total.update(hashlib.file_digest(fh, "sha256").digest())
            except FileNotFoundError:
                if part == path:
                    return None
                total.update(b"no wal")
    except OSError:
        return None
    return total.hexdigest()


#: the tables :func:`read_package` reads: plain tables, never views (ADR 177)
READ_TABLES = ("team_package", "team_base", "team_chain", "team_chain_macs", "team_image_data",
               "samples", "sample_raw", "sample_tags", "sample_images", "sample_links",
               "posts", "post_images", "feedback", "images", "audit_log")


def read_package(path: Path) -> PackageFile:
    """Read ``path`` read-only (nothing beside it is created or changed); PackageError when
    it is not a curator package Winnow can read."""
    with open_readonly(path, PackageError, "curator package") as conn:
        try:
            return _read(conn, path)
        except sqlite3.DatabaseError as exc:
            raise PackageError(f"{path.name} is not a curator package Winnow can read "
                               f"({exc}); nothing merged") from None


def _read(conn: sqlite3.Connection, path: Path) -> PackageFile:
    name = path.name
    try:
        head = conn.execute("PRAGMA application_id").fetchone()[0]
    except sqlite3.DatabaseError:
        head = None
    from core.store.project import APPLICATION_ID

    if head != APPLICATION_ID:
        raise PackageError(f"{name} is not a Winnow file (not a curator package)")
    problem = schema_problem(conn, READ_TABLES)  # a view may never end (ADR 177)
    if problem:
        raise PackageError(f"{name}: {problem} (the package was edited outside Winnow); "
                           "nothing merged")
    if not is_package(conn):
        raise PackageError(f"{name} is a Winnow project, not a curator package (packages "
                           "are made by Curate → Share Work… or `winnow curate split`)")
    meta = package_meta(conn)  # base_mac included
    if meta.get("format") != FORMAT:
        raise PackageError(f"{name}: its format is {meta.get('format', '')[:40]!r}, not a "
                           "curator package")
    try:
        version = int(meta.get("format_version", "0"))
    except ValueError:
        raise PackageError(f"{name}: its format_version "
                           f"{meta.get('format_version', '')[:20]!r} is not a number (the "
                           "file was edited or is damaged)") from None
    if version > FORMAT_VERSION:
        raise PackageError(f"{name} was written by a newer Winnow; update Winnow")
    from core.teamwork.values import loads

    base: dict[str, Values] = {}
    for sid, doc in conn.execute("SELECT sample_id, doc FROM team_base"):
        try:
            base[str(sid)] = loads(doc)
        except (TypeError, ValueError, RecursionError):
            base[str(sid)] = {}
    ids = [r[0] for r in conn.execute("SELECT id FROM samples")]
    found = PackageFile(
        path=path, meta=meta, document=base_document(conn), base=base,
        current=read_values(conn, ids),
        audit=[tuple(r) for r in conn.execute(
            f"SELECT {', '.join(AUDIT_COLUMNS)} FROM audit_log ORDER BY id")],
        macs={int(a): str(m) for a, m in conn.execute(
            "SELECT audit_id, mac FROM team_chain_macs")},
        chain=conn.execute("SELECT position, key, last_mac FROM team_chain").fetchone(),
        links={r[0]: tuple(r[1:]) for r in conn.execute(
            "SELECT sample_id, kind, source_sample_id, template_post_id, completion_post_id "
            "FROM sample_links")},
        reply_images={}, post_text={})
    for post, pos, url, sha, err in conn.execute(
            "SELECT post_id, position, url, sha256, error FROM post_images "
            "ORDER BY post_id, position"):
        found.reply_images.setdefault(post, []).append((pos, url, sha, err))
    found.post_text = {r[0]: r[1] for r in conn.execute(
        "SELECT id, text FROM posts WHERE id IN (SELECT completion_post_id FROM sample_links)")}
    for sha, data in conn.execute("SELECT sha256, data FROM team_image_data"):
        if not isinstance(data, bytes) or hashlib.sha256(data).hexdigest() != sha:
            found.changed_images.append(str(sha))
    return found
