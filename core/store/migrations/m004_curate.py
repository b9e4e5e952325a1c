"""Schema for the Curate workspace.

- ``sample_links``: a derived sample (fill-in-the-blank) points at the template
  sample it came from and at both posts (the template post and the reply that
  completes it).
- ``feedback_fts``: full-text index over community feedback, kept in step by
  triggers, so the Curate search covers prompts, post text and feedback.
- indexes for sorting and filtering the sample list on tens of thousands of rows.
"""

SQL = """
CREATE TABLE sample_links (
    sample_id TEXT PRIMARY KEY REFERENCES samples(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('fill-in-the-blank')),
    source_sample_id TEXT REFERENCES samples(id) ON DELETE SET NULL,
    template_post_id TEXT,
    completion_post_id TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX sample_links_source ON sample_links(source_sample_id);

CREATE VIRTUAL TABLE feedback_fts USING fts5(text, content='feedback', content_rowid='rowid');
CREATE TRIGGER feedback_fts_ai AFTER INSERT ON feedback BEGIN
  INSERT INTO feedback_fts(rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER feedback_fts_ad AFTER DELETE ON feedback BEGIN
  INSERT INTO feedback_fts(feedback_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
CREATE TRIGGER feedback_fts_au AFTER UPDATE OF text ON feedback BEGIN
  INSERT INTO feedback_fts(feedback_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
  INSERT INTO feedback_fts(rowid, text) VALUES (new.rowid, new.text);
END;
INSERT INTO feedback_fts(feedback_fts) VALUES ('rebuild');

CREATE INDEX samples_review ON samples(review_status, id);
CREATE INDEX samples_split ON samples(split, id);
CREATE INDEX samples_modified_at ON samples(modified_at);
CREATE INDEX sample_tags_tag ON sample_tags(tag, sample_id);
CREATE INDEX sample_images_role ON sample_images(sample_id, role, position);
CREATE INDEX feedback_post ON feedback(post_id);
"""
