"""Schema for the Curate workspace.

- ``sample_links``: a derived sample (fill-in-the-blank) points at the template
  sample it came from and at both posts (the template post and the reply that
  completes it).
- ``sample_search``: one full-text document per sample (prompts, post text,
  community feedback), kept in step by triggers, so the Curate search covers all
  three with a single FTS5 query (ADR 032).
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

-- One search document per sample (rowid = samples.rowid): its prompts, its post's text
-- and its community feedback, kept in step by triggers.  Searching one FTS table and
-- mapping rowids straight to samples keeps a search on 31k samples / 68k posts fast.
CREATE VIRTUAL TABLE sample_search USING fts5(prompt, post_text, feedback);
CREATE TRIGGER sample_search_ai AFTER INSERT ON samples BEGIN
  INSERT INTO sample_search(rowid, prompt, post_text, feedback) VALUES (
    new.rowid, new.prompt || ' ' || new.original_prompt,
    coalesce((SELECT text FROM posts WHERE id = new.post_id), ''),
    coalesce((SELECT group_concat(text, ' ') FROM feedback WHERE sample_id = new.id), ''));
END;
CREATE TRIGGER sample_search_au AFTER UPDATE OF prompt, original_prompt, post_id ON samples
BEGIN
  UPDATE sample_search SET prompt = new.prompt || ' ' || new.original_prompt,
    post_text = coalesce((SELECT text FROM posts WHERE id = new.post_id), '')
  WHERE rowid = new.rowid;
END;
CREATE TRIGGER sample_search_ad AFTER DELETE ON samples BEGIN
  DELETE FROM sample_search WHERE rowid = old.rowid;
END;
CREATE TRIGGER sample_search_post_ai AFTER INSERT ON posts BEGIN
  UPDATE sample_search SET post_text = new.text
  WHERE rowid IN (SELECT rowid FROM samples WHERE post_id = new.id);
END;
CREATE TRIGGER sample_search_post_au AFTER UPDATE OF text ON posts BEGIN
  UPDATE sample_search SET post_text = new.text
  WHERE rowid IN (SELECT rowid FROM samples WHERE post_id = new.id);
END;
CREATE TRIGGER sample_search_fb_ai AFTER INSERT ON feedback BEGIN
  UPDATE sample_search SET feedback = coalesce((SELECT group_concat(text, ' ') FROM feedback
    WHERE sample_id = new.sample_id), '')
  WHERE rowid = (SELECT rowid FROM samples WHERE id = new.sample_id);
END;
CREATE TRIGGER sample_search_fb_ad AFTER DELETE ON feedback BEGIN
  UPDATE sample_search SET feedback = coalesce((SELECT group_concat(text, ' ') FROM feedback
    WHERE sample_id = old.sample_id), '')
  WHERE rowid = (SELECT rowid FROM samples WHERE id = old.sample_id);
END;
CREATE TRIGGER sample_search_fb_au AFTER UPDATE OF text, sample_id ON feedback BEGIN
  UPDATE sample_search SET feedback = coalesce((SELECT group_concat(text, ' ') FROM feedback
    WHERE sample_id = new.sample_id), '')
  WHERE rowid = (SELECT rowid FROM samples WHERE id = new.sample_id);
END;
INSERT INTO sample_search(rowid, prompt, post_text, feedback)
  SELECT s.rowid, s.prompt || ' ' || s.original_prompt, coalesce(p.text, ''),
         coalesce((SELECT group_concat(f.text, ' ') FROM feedback f WHERE f.sample_id = s.id), '')
  FROM samples s LEFT JOIN posts p ON p.id = s.post_id;

CREATE INDEX samples_review ON samples(review_status, id);
CREATE INDEX samples_split ON samples(split, id);
CREATE INDEX samples_modified_at ON samples(modified_at);
CREATE INDEX sample_tags_tag ON sample_tags(tag, sample_id);
CREATE INDEX sample_images_role ON sample_images(sample_id, role, position);
CREATE INDEX feedback_post ON feedback(post_id);
"""
