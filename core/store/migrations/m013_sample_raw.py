"""A sample's imported line moves out of its row: ``sample_raw`` (ADR 027).

``samples.raw`` (the line as imported, canonical JSON, kept for provenance) and
``samples.raw_hash`` (its SHA-1, what a re-import is matched by) were about half of
every sample row, so a bulk label of 30,500 samples rewrote ≈ 21 MB of rows and logged
≈ 29–31 MB of WAL.  They now live in a table of their
own, one row per sample that has either (samples made in Winnow — derived, proposed —
have neither and get no row), keyed by the sample id.

The columns are dropped with ``ALTER TABLE … DROP COLUMN`` (SQLite ≥ 3.35; Winnow needs
3.38): no index, trigger, view, foreign key or CHECK names them, and unlike the
twelve-step rebuild it keeps every rowid — which ``samples_fts`` and ``sample_search``
are keyed by — and never drops ``samples``, whose ``ON DELETE CASCADE`` children a
``DROP TABLE`` would empty while foreign keys are on (they cannot be turned off inside
the migration's transaction).  Copy and drop run in one transaction: a process killed
midway leaves the version-12 file as it was.

``DROP COLUMN`` rewrites each row where it was: the rows shrink but keep their pages,
each now about half empty, so a bulk label would still write ~29 MB of pages.
Every row is therefore moved once past the largest rowid and back (``UPDATE … SET
rowid``: appended in order, the rows fill their pages), which halves that.  No trigger
or foreign key looks at a sample's rowid alone, and each ends where it began, so the
search indexes (keyed by rowid) are untouched.  Rowids beyond 2^62 (never made by
Winnow) are left where they are rather than risk an overflow.
"""

SQL = """
CREATE TABLE sample_raw (
    sample_id TEXT PRIMARY KEY REFERENCES samples(id) ON DELETE CASCADE ON UPDATE CASCADE,
    raw TEXT,
    raw_hash TEXT
) WITHOUT ROWID;

INSERT INTO sample_raw(sample_id, raw, raw_hash)
  SELECT id, raw, raw_hash FROM samples WHERE raw IS NOT NULL OR raw_hash IS NOT NULL;

ALTER TABLE samples DROP COLUMN raw;
ALTER TABLE samples DROP COLUMN raw_hash;

CREATE TEMP TABLE m013_shift AS SELECT coalesce(max(rowid), 0) AS n FROM samples;
UPDATE samples SET rowid = rowid + (SELECT n FROM temp.m013_shift)
  WHERE (SELECT n FROM temp.m013_shift) BETWEEN 1 AND 4611686018427387903;
UPDATE samples SET rowid = rowid - (SELECT n FROM temp.m013_shift)
  WHERE rowid > (SELECT n FROM temp.m013_shift)
    AND (SELECT n FROM temp.m013_shift) BETWEEN 1 AND 4611686018427387903;
DROP TABLE temp.m013_shift;
"""
