"""Model outputs: an image produced by a named model for a sample (SPEC §2)."""

SQL = """
CREATE TABLE model_outputs (
    sample_id TEXT NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    sha256 TEXT NOT NULL REFERENCES images(sha256),
    source_path TEXT,
    imported_at TEXT NOT NULL,
    PRIMARY KEY (sample_id, model)
);
CREATE INDEX model_outputs_model ON model_outputs(model);
"""
