"""A curator package's content digest at its last merge (ADR 144).

``team_packages.merged_digest``: SHA-256 of the package file's bytes (and of its ``-wal``
file, if one was beside it) when it was last merged and verified, so merging the same
bytes again is recognised without verifying the package again.  NULL: none recorded
(never merged, merged by an earlier Winnow, or the file changed while it was read).
"""

SQL = """
ALTER TABLE team_packages ADD COLUMN merged_digest TEXT;
"""
