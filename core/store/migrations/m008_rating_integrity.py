"""Tamper-evident rater files (ADR 058): one secret per rating session, kept only here.

``rating_keys`` holds the secret from which the per-file MAC keys are derived; it is
never written into a rater file or an export.  ``rating_files.tasks_mac`` records the
MAC of the task list the project wrote into each file, so a file that was written with
tamper evidence cannot be passed off as one from an earlier version (without MACs).
Sessions created before this migration have no secret: their files merge with a
warning that they are not tamper-evident.
"""

SQL = """
CREATE TABLE rating_keys (
    session_id INTEGER PRIMARY KEY REFERENCES rating_sessions(id) ON DELETE CASCADE,
    secret BLOB NOT NULL,
    created_at TEXT NOT NULL
);
ALTER TABLE rating_files ADD COLUMN tasks_mac TEXT;
"""
