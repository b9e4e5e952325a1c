"""Schema for offline rating sessions (SPEC §5).

The project keeps what a rater's file must never hold: the blinding map from option
tokens to model names, and the gold answers.  Merged judgments are append-only.
"""

SQL = """
CREATE TABLE rating_sessions (
    id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL UNIQUE,
    protocol TEXT NOT NULL
        CHECK (protocol IN ('ranking', 'likert', 'side_by_side', 'checklist')),
    design TEXT NOT NULL,
    seed INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL
);

CREATE TABLE rating_files (
    session_id INTEGER NOT NULL REFERENCES rating_sessions(id) ON DELETE CASCADE,
    slot TEXT NOT NULL,
    file_uid TEXT NOT NULL UNIQUE,
    path TEXT,
    copy_uid TEXT,
    rater TEXT,
    PRIMARY KEY (session_id, slot)
);

CREATE TABLE rating_tasks (
    session_id INTEGER NOT NULL REFERENCES rating_sessions(id) ON DELETE CASCADE,
    task_id TEXT NOT NULL,
    slot TEXT NOT NULL,
    position INTEGER NOT NULL,
    sample_id TEXT NOT NULL,
    unit TEXT NOT NULL,
    criterion TEXT,
    prompt TEXT NOT NULL,
    inputs TEXT NOT NULL,
    gold TEXT,
    PRIMARY KEY (session_id, task_id)
);
CREATE INDEX rating_tasks_slot ON rating_tasks(session_id, slot, position);

CREATE TABLE rating_blinding (
    session_id INTEGER NOT NULL REFERENCES rating_sessions(id) ON DELETE CASCADE,
    token TEXT NOT NULL,
    task_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    model TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    source_sha256 TEXT NOT NULL,
    degraded INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session_id, token)
);
CREATE INDEX rating_blinding_task ON rating_blinding(session_id, task_id);

CREATE TABLE rating_judgments (
    session_id INTEGER NOT NULL REFERENCES rating_sessions(id),
    uid TEXT NOT NULL,
    seq INTEGER NOT NULL,
    file_uid TEXT NOT NULL,
    task_id TEXT NOT NULL,
    rater TEXT NOT NULL,
    answer TEXT NOT NULL,
    flag TEXT,
    reason TEXT,
    supersedes TEXT,
    time_ms INTEGER NOT NULL,
    penalty_ms INTEGER NOT NULL DEFAULT 0,
    shown_at TEXT,
    submitted_at TEXT NOT NULL,
    merged_at TEXT NOT NULL,
    PRIMARY KEY (session_id, uid)
);
CREATE INDEX rating_judgments_task ON rating_judgments(session_id, task_id);
CREATE TRIGGER rating_judgments_no_update BEFORE UPDATE ON rating_judgments
BEGIN SELECT RAISE(ABORT, 'judgments are append-only'); END;
CREATE TRIGGER rating_judgments_no_delete BEFORE DELETE ON rating_judgments
BEGIN SELECT RAISE(ABORT, 'judgments are append-only'); END;

CREATE TABLE rating_merges (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES rating_sessions(id),
    file_uid TEXT NOT NULL,
    path TEXT,
    rater TEXT,
    added INTEGER NOT NULL,
    already INTEGER NOT NULL,
    events TEXT,
    merged_at TEXT NOT NULL,
    actor TEXT NOT NULL
);
"""
