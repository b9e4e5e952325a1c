"""A detector's region the photographer deleted is remembered: ``photo_rejections``
(ADR 201).

Each row is the region as it was when it was deleted, under its own id (region ids are
never reused), so Detect can leave the same detection out and the photographer can
restore the region exactly.  The table starts empty: a file written before it has no
record of which deletions were rejections.
"""

SQL = """
CREATE TABLE photo_rejections (
    region_id INTEGER PRIMARY KEY,
    photo_id INTEGER NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('face', 'plate', 'other')),
    shape TEXT NOT NULL CHECK (shape IN ('rect', 'ellipse')),
    x REAL NOT NULL,
    y REAL NOT NULL,
    w REAL NOT NULL CHECK (w > 0),
    h REAL NOT NULL CHECK (h > 0),
    source TEXT NOT NULL,
    score REAL,
    method TEXT CHECK (method IS NULL OR method IN ('blur', 'pixelate', 'fill')),
    strength REAL,
    edited INTEGER NOT NULL DEFAULT 0 CHECK (edited IN (0, 1)),
    rejected_at TEXT NOT NULL
);
CREATE INDEX photo_rejections_photo ON photo_rejections(photo_id);
"""
