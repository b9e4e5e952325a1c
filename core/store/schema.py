"""Schema of a ``.winnow`` project file, as an ordered list of forward migrations.

``PRAGMA user_version`` holds the number of migrations applied.  Migration *i*
(1-based) takes a file from version *i-1* to *i*; each runs in one transaction.
Never edit a released migration: append a new one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from core.store.migrations import (
    m003_model_outputs,
    m004_curate,
    m005_photos,
    m006_rating,
    m007_metrics,
    m008_rating_integrity,
    m009_search,
    m010_proposals,
    m011_teamwork,
    m012_team_merge_digest,
    m013_sample_raw,
    m014_region_edited,
    m015_photo_rejections,
)

_V1 = """
CREATE TABLE project_meta (
    key TEXT PRIMARY KEY,
    value TEXT
);

CREATE TABLE images (
    sha256 TEXT PRIMARY KEY,
    ext TEXT NOT NULL,
    mime TEXT,
    width INTEGER,
    height INTEGER,
    bytes INTEGER,
    created_at TEXT NOT NULL
);

CREATE TABLE posts (
    id TEXT PRIMARY KEY,
    parent_id TEXT,
    text TEXT NOT NULL DEFAULT '',
    timestamp TEXT,
    keyword TEXT,
    url TEXT,
    author TEXT,
    engagement TEXT,
    raw TEXT,
    raw_hash TEXT,
    imported_at TEXT NOT NULL
);
CREATE INDEX posts_parent ON posts(parent_id);

CREATE TABLE post_images (
    post_id TEXT NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    url TEXT,
    alt TEXT,
    sha256 TEXT REFERENCES images(sha256),
    error TEXT,
    PRIMARY KEY (post_id, position)
);

CREATE TABLE samples (
    id TEXT PRIMARY KEY,
    post_id TEXT REFERENCES posts(id),
    prompt TEXT NOT NULL DEFAULT '',
    original_prompt TEXT NOT NULL DEFAULT '',
    quality TEXT CHECK (quality IN ('Benchmark', 'Analysis', 'Trash')),
    split TEXT CHECK (split IN ('text-to-image', 'image-to-image')),
    is_screenshot INTEGER NOT NULL DEFAULT 0,
    review_status TEXT NOT NULL DEFAULT 'unreviewed'
        CHECK (review_status IN ('unreviewed', 'reviewed')),
    notes TEXT NOT NULL DEFAULT '',
    raw TEXT,
    raw_hash TEXT,
    created_at TEXT NOT NULL,
    modified_at TEXT NOT NULL
);
CREATE INDEX samples_post ON samples(post_id);
CREATE INDEX samples_quality ON samples(quality);

CREATE TABLE sample_images (
    id INTEGER PRIMARY KEY,
    sample_id TEXT NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('input', 'output', 'unused')),
    position INTEGER NOT NULL,
    ref TEXT,
    sha256 TEXT REFERENCES images(sha256),
    bbox_x INTEGER, bbox_y INTEGER, bbox_w INTEGER, bbox_h INTEGER,
    error TEXT
);
CREATE INDEX sample_images_sample ON sample_images(sample_id);

CREATE TABLE sample_tags (
    sample_id TEXT NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
    tag TEXT NOT NULL,
    PRIMARY KEY (sample_id, tag)
);

CREATE TABLE feedback (
    sample_id TEXT NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    post_id TEXT,
    text TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (sample_id, position)
);

CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    entity TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    field TEXT,
    old TEXT,
    new TEXT
);
CREATE INDEX audit_entity ON audit_log(entity, entity_id);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
"""

# Full-text search over post text and sample prompts (external-content FTS5 tables
# kept in step by triggers).
_V2 = """
CREATE VIRTUAL TABLE posts_fts USING fts5(text, content='posts', content_rowid='rowid');
CREATE TRIGGER posts_fts_ai AFTER INSERT ON posts BEGIN
  INSERT INTO posts_fts(rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER posts_fts_ad AFTER DELETE ON posts BEGIN
  INSERT INTO posts_fts(posts_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
CREATE TRIGGER posts_fts_au AFTER UPDATE OF text ON posts BEGIN
  INSERT INTO posts_fts(posts_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
  INSERT INTO posts_fts(rowid, text) VALUES (new.rowid, new.text);
END;
INSERT INTO posts_fts(posts_fts) VALUES ('rebuild');

CREATE VIRTUAL TABLE samples_fts USING fts5(
    prompt, original_prompt, content='samples', content_rowid='rowid');
CREATE TRIGGER samples_fts_ai AFTER INSERT ON samples BEGIN
  INSERT INTO samples_fts(rowid, prompt, original_prompt)
  VALUES (new.rowid, new.prompt, new.original_prompt);
END;
CREATE TRIGGER samples_fts_ad AFTER DELETE ON samples BEGIN
  INSERT INTO samples_fts(samples_fts, rowid, prompt, original_prompt)
  VALUES ('delete', old.rowid, old.prompt, old.original_prompt);
END;
CREATE TRIGGER samples_fts_au AFTER UPDATE OF prompt, original_prompt ON samples BEGIN
  INSERT INTO samples_fts(samples_fts, rowid, prompt, original_prompt)
  VALUES ('delete', old.rowid, old.prompt, old.original_prompt);
  INSERT INTO samples_fts(rowid, prompt, original_prompt)
  VALUES (new.rowid, new.prompt, new.original_prompt);
END;
INSERT INTO samples_fts(samples_fts) VALUES ('rebuild');
"""


def _script(sql: str) -> Callable[[sqlite3.Connection], None]:
    def apply(conn: sqlite3.Connection) -> None:
        # executescript would COMMIT the surrounding transaction: run statements one
        # at a time instead (sqlite3.complete_statement splits safely on ';').
        for statement in split_statements(sql):
            conn.execute(statement)

    return apply


def split_statements(sql: str) -> list[str]:
    """Split an SQL script into complete statements (trigger bodies kept whole)."""
    statements: list[str] = []
    buffer = ""
    for line in sql.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements


def has_sample_raw(conn: sqlite3.Connection) -> bool:
    """Whether a sample's imported line lives in ``sample_raw`` (schema ≥ 13, ADR 027)
    rather than in its row: a file opened read-only is read as it is, not migrated."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                        "AND name = 'sample_raw'").fetchone() is not None


#: Ordered forward migrations; ``len(MIGRATIONS)`` is the current schema version.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _script(_V1),
    _script(_V2),
    _script(m003_model_outputs.SQL),
    _script(m004_curate.SQL),
    _script(m005_photos.SQL),
    _script(m006_rating.SQL),
    _script(m007_metrics.SQL),
    _script(m008_rating_integrity.SQL),
    _script(m009_search.SQL),
    _script(m010_proposals.SQL),
    _script(m011_teamwork.SQL),
    _script(m012_team_merge_digest.SQL),
    _script(m013_sample_raw.SQL),
    _script(m014_region_edited.SQL),
    _script(m015_photo_rejections.SQL),
]

SCHEMA_VERSION = len(MIGRATIONS)
