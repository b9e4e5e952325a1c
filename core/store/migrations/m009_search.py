"""The Curate search document gains a ``meta`` column (ADR 032, second version).

``sample_search`` (m004) indexed a sample's prompts, its post's text and its
community feedback, so a curator could not find a sample by its id (``s00042``),
its post's id or its author (``@user42``).  This migration rebuilds the table with
a fourth column, ``meta`` = sample id, post id, post author and keyword, and
re-creates the triggers so that column follows the sample's post (a changed
``post_id``, a post imported after its sample, an edited author).

Emoji are not tokens for FTS5's ``unicode61`` tokenizer; the search matches them
as substrings of the stored document instead (``core.curate.search``), so the
tokenizer stays as it was.
"""

#: the document of sample ``s`` (with its post ``p``), as the triggers build it
DOCUMENT = """
  s.prompt || ' ' || s.original_prompt,
  coalesce(p.text, ''),
  coalesce((SELECT group_concat(f.text, ' ') FROM feedback f WHERE f.sample_id = s.id), ''),
  s.id || ' ' || coalesce(s.post_id, '') || ' ' || coalesce(p.author, '') || ' '
    || coalesce(p.keyword, '')
"""

SQL = f"""
DROP TRIGGER IF EXISTS sample_search_ai;
DROP TRIGGER IF EXISTS sample_search_au;
DROP TRIGGER IF EXISTS sample_search_ad;
DROP TRIGGER IF EXISTS sample_search_post_ai;
DROP TRIGGER IF EXISTS sample_search_post_au;
DROP TRIGGER IF EXISTS sample_search_fb_ai;
DROP TRIGGER IF EXISTS sample_search_fb_ad;
DROP TRIGGER IF EXISTS sample_search_fb_au;
DROP TABLE IF EXISTS sample_search;

CREATE VIRTUAL TABLE sample_search USING fts5(prompt, post_text, feedback, meta);

CREATE TRIGGER sample_search_ai AFTER INSERT ON samples BEGIN
  INSERT INTO sample_search(rowid, prompt, post_text, feedback, meta)
  SELECT s.rowid, {DOCUMENT}
  FROM samples s LEFT JOIN posts p ON p.id = s.post_id WHERE s.rowid = new.rowid;
END;
CREATE TRIGGER sample_search_au AFTER UPDATE OF id, prompt, original_prompt, post_id ON samples
BEGIN
  UPDATE sample_search SET prompt = new.prompt || ' ' || new.original_prompt,
    post_text = coalesce((SELECT text FROM posts WHERE id = new.post_id), ''),
    meta = new.id || ' ' || coalesce(new.post_id, '') || ' '
      || coalesce((SELECT coalesce(author, '') || ' ' || coalesce(keyword, '')
                   FROM posts WHERE id = new.post_id), '')
  WHERE rowid = new.rowid;
END;
CREATE TRIGGER sample_search_ad AFTER DELETE ON samples BEGIN
  DELETE FROM sample_search WHERE rowid = old.rowid;
END;
CREATE TRIGGER sample_search_post_ai AFTER INSERT ON posts BEGIN
  UPDATE sample_search SET post_text = new.text,
    meta = (SELECT s.id || ' ' || s.post_id FROM samples s WHERE s.rowid = sample_search.rowid)
      || ' ' || coalesce(new.author, '') || ' ' || coalesce(new.keyword, '')
  WHERE rowid IN (SELECT rowid FROM samples WHERE post_id = new.id);
END;
CREATE TRIGGER sample_search_post_au AFTER UPDATE OF text, author, keyword ON posts BEGIN
  UPDATE sample_search SET post_text = new.text,
    meta = (SELECT s.id || ' ' || s.post_id FROM samples s WHERE s.rowid = sample_search.rowid)
      || ' ' || coalesce(new.author, '') || ' ' || coalesce(new.keyword, '')
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
  UPDATE sample_search SET feedback = coalesce((SELECT group_concat(text, ' ') FROM feedback
    WHERE sample_id = old.sample_id), '')
  WHERE old.sample_id != new.sample_id
    AND rowid = (SELECT rowid FROM samples WHERE id = old.sample_id);
END;

INSERT INTO sample_search(rowid, prompt, post_text, feedback, meta)
  SELECT s.rowid, {DOCUMENT} FROM samples s LEFT JOIN posts p ON p.id = s.post_id;
"""
