"""Contributed photos and the regions to hide in them (SPEC §2 "photo", §4)."""

SQL = """
CREATE TABLE photos (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sha256 TEXT NOT NULL UNIQUE REFERENCES images(sha256),
    file_name TEXT NOT NULL,
    source_path TEXT,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    method TEXT NOT NULL DEFAULT 'blur' CHECK (method IN ('blur', 'pixelate', 'fill')),
    strength REAL,
    feather REAL NOT NULL DEFAULT 0 CHECK (feather >= 0),
    geometry TEXT NOT NULL DEFAULT '{}',
    category TEXT CHECK (category IS NULL OR category IN
        ('Text', 'Clock', 'Vehicle', 'Architecture', 'Art', 'Animal', 'Nature')),
    credit TEXT NOT NULL DEFAULT '',
    licence TEXT NOT NULL DEFAULT 'CC-BY-4.0',
    caption TEXT NOT NULL DEFAULT '',
    notes TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'reviewed', 'released')),
    detected_at TEXT,
    detect_settings TEXT,
    released_sha256 TEXT,
    released_path TEXT,
    released_at TEXT,
    verification TEXT,
    imported_at TEXT NOT NULL,
    modified_at TEXT NOT NULL
);
CREATE INDEX photos_status ON photos(status);

CREATE TRIGGER photos_release_needs_review
BEFORE UPDATE OF status ON photos
WHEN NEW.status = 'released' AND OLD.status NOT IN ('reviewed', 'released')
BEGIN
    SELECT RAISE(ABORT, 'only a reviewed photo can be released');
END;

CREATE TABLE photo_regions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    photo_id INTEGER NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
    kind TEXT NOT NULL DEFAULT 'face' CHECK (kind IN ('face', 'plate', 'other')),
    shape TEXT NOT NULL DEFAULT 'rect' CHECK (shape IN ('rect', 'ellipse')),
    x REAL NOT NULL,
    y REAL NOT NULL,
    w REAL NOT NULL CHECK (w > 0),
    h REAL NOT NULL CHECK (h > 0),
    source TEXT NOT NULL DEFAULT 'manual',
    score REAL,
    method TEXT CHECK (method IS NULL OR method IN ('blur', 'pixelate', 'fill')),
    strength REAL,
    created_at TEXT NOT NULL,
    modified_at TEXT NOT NULL
);
CREATE INDEX photo_regions_photo ON photo_regions(photo_id);
"""
