"""A detector's region the user edited or confirmed is the user's: ``photo_regions.edited``
(ADR 189).

Detecting again replaces only a photo's untouched detector regions; one the user moved,
resized or gave another kind, shape, method or strength, or approved by marking the
photo reviewed, stays as the user left it (its ``source`` still names the detector, for
the record).  A file written before this migration says the same from what it holds: a
detector region with a field edit in the audit log, or on a photo reviewed or released,
is the user's.  The column comes with a constant default, so only those regions' rows
are rewritten.
"""

SQL = """
ALTER TABLE photo_regions ADD COLUMN edited INTEGER NOT NULL DEFAULT 0
    CHECK (edited IN (0, 1));

UPDATE photo_regions SET edited = 1
WHERE source != 'manual'
  AND (photo_id IN (SELECT id FROM photos WHERE status != 'new')
       OR CAST(id AS TEXT) IN (SELECT entity_id FROM audit_log
                               WHERE entity = 'photo_region' AND action = 'edit'
                                 AND field IS NOT NULL));
"""
