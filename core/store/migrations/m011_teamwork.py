"""Curating as a team (issue #20, ADRs 130–134): splits into curator packages, merges,
conflicts.

Project side:

- ``team_splits``: one row per split, with its secret (32 random bytes from which the
  packages' MAC keys derive; never written into a package, an export or a log);
- ``team_packages``: one curator package of a split (its uid, the curator, the MAC of
  what the project put in it, and how far its key chain had got when it was last merged);
- ``team_assignments``: which samples went into which package (``overlap`` = the sample
  went to two curators, for agreement);
- ``team_values``: each package's value of a field as last merged (the base of the next
  three-way merge of that package, and what agreement is computed from), with the value
  the package was given (``base``, to tell an edit from a value left as it was);
- ``team_conflicts``: fields a merge did not write because the project holds another
  value; resolved by adjudication;
- ``team_merges``: a log of merges (the audit log has a line per merge too).

``team_image_data`` holds image bytes inside a curator package (which has no asset
folder); it stays empty in a project.  The tables only a package has (its identity, the
base values, the key chain) are created when the package is written
(``core.teamwork.package``).
"""

SQL = """
CREATE TABLE team_splits (
    id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    secret BLOB NOT NULL,
    settings TEXT NOT NULL,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL
);

CREATE TABLE team_packages (
    package_uid TEXT PRIMARY KEY,
    split_id INTEGER NOT NULL REFERENCES team_splits(id) ON DELETE CASCADE,
    curator TEXT NOT NULL,
    file_name TEXT NOT NULL,
    base_mac TEXT NOT NULL,
    samples INTEGER NOT NULL,
    merged_position INTEGER,
    merged_mac TEXT,
    merged_at TEXT
);
CREATE INDEX team_packages_split ON team_packages(split_id);

CREATE TABLE team_assignments (
    package_uid TEXT NOT NULL REFERENCES team_packages(package_uid) ON DELETE CASCADE,
    sample_id TEXT NOT NULL,
    overlap INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (package_uid, sample_id)
) WITHOUT ROWID;
CREATE INDEX team_assignments_sample ON team_assignments(sample_id);

CREATE TABLE team_values (
    package_uid TEXT NOT NULL REFERENCES team_packages(package_uid) ON DELETE CASCADE,
    sample_id TEXT NOT NULL,
    field TEXT NOT NULL,
    value TEXT,
    base TEXT,
    PRIMARY KEY (package_uid, sample_id, field)
) WITHOUT ROWID;

CREATE TABLE team_conflicts (
    id INTEGER PRIMARY KEY,
    package_uid TEXT NOT NULL REFERENCES team_packages(package_uid) ON DELETE CASCADE,
    curator TEXT NOT NULL,
    sample_id TEXT NOT NULL,
    field TEXT NOT NULL,
    base TEXT,
    ours TEXT,
    ours_by TEXT NOT NULL,
    theirs TEXT,
    status TEXT NOT NULL DEFAULT 'open'
        CHECK (status IN ('open', 'resolved', 'superseded')),
    choice TEXT CHECK (choice IS NULL OR choice IN ('ours', 'theirs')),
    resolved_at TEXT,
    resolved_by TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX team_conflicts_open ON team_conflicts(status, sample_id);
CREATE INDEX team_conflicts_package ON team_conflicts(package_uid, sample_id, field);

CREATE TABLE team_merges (
    id INTEGER PRIMARY KEY,
    package_uid TEXT NOT NULL,
    path TEXT,
    applied INTEGER NOT NULL,
    conflicts INTEGER NOT NULL,
    created INTEGER NOT NULL,
    merged_at TEXT NOT NULL,
    actor TEXT NOT NULL
);

CREATE TABLE team_image_data (
    sha256 TEXT PRIMARY KEY,
    data BLOB NOT NULL
);
"""
