"""Tamper-evident rater files (ADR 058): one secret per rating session, kept only here.

``rating_keys`` holds the secret from which the per-file MAC keys are derived; it is
never written into a rater file or an export.  ``rating_files.tasks_mac`` records the
MAC of the task list the project wrote into each file, so a file that was written with
tamper evidence cannot be passed off as one from an earlier version (without MACs).
``rating_files.legacy_file`` marks the slots whose file an earlier version already
wrote: such a file (format 1) merges with a warning that it is not tamper-evident, even
after new files were written for its session.  Sessions created before this migration
have no secret until files are written for them again.
"""

SQL = """
CREATE TABLE rating_keys (
    session_id INTEGER PRIMARY KEY REFERENCES rating_sessions(id) ON DELETE CASCADE,
    secret BLOB NOT NULL,
    created_at TEXT NOT NULL
);
ALTER TABLE rating_files ADD COLUMN tasks_mac TEXT;
ALTER TABLE rating_files ADD COLUMN legacy_file INTEGER NOT NULL DEFAULT 0;
UPDATE rating_files SET legacy_file = 1 WHERE path IS NOT NULL;
"""
