"""VLM proposals that curators correct (issue 19; ADRs 120-124).

- ``proposal_templates``: the instructions sent to the model, one row per (kind,
  version); append-only (a change is a new version, old proposals keep theirs).
- ``proposal_runs``: one row per run of the proposal job (model, endpoint, totals).
- ``proposals``: every answer (or failure) for (post, kind, template, model): the raw
  response, the validated value, tokens and cost; append-only.  An ``ok`` row for the
  same (post, kind, template, model, input hash) is the cache.
- ``proposal_samples``: samples Winnow made from a post, by hand (``hand``) or for a
  proposal (``proposed``): only those receive proposals (imported samples never do).
- ``proposal_fields``: which field of a sample holds a machine-made value (prompt,
  quality, roles, boxes, safety, ``feedback/<reply id>``), the signature of the value
  written and the curator's explicit acceptance.
- ``feedback_labels``: success / failure / neutral and a failure keyword per piece of
  community feedback of a sample.
- ``proposal_field_status``: a view deriving each field's status: ``corrected`` when
  the field no longer holds what the model wrote (whoever changed it, however),
  ``accepted`` when a curator accepted it, else ``proposed``.
"""

#: the signature of a field's current value, over ``proposal_fields pf`` (must equal
#: core.propose.fields.SIGNATURE_SQL)
SIGNATURE = """CASE
  WHEN pf.field = 'prompt' THEN (SELECT prompt FROM samples WHERE id = pf.sample_id)
  WHEN pf.field = 'quality' THEN (SELECT coalesce(quality, '') FROM samples
                                  WHERE id = pf.sample_id)
  WHEN pf.field = 'roles' THEN (SELECT coalesce(group_concat(v, '|'), '') FROM (
      SELECT role || ':' || coalesce(sha256, ref, '') AS v FROM sample_images
      WHERE sample_id = pf.sample_id AND bbox_x IS NULL AND role != 'unused'
      ORDER BY role, position, id))
  WHEN pf.field = 'boxes' THEN (SELECT coalesce(group_concat(v, '|'), '') FROM (
      SELECT role || ':' || coalesce(sha256, ref, '') || ':' || bbox_x || ',' || bbox_y
             || ',' || bbox_w || ',' || bbox_h AS v FROM sample_images
      WHERE sample_id = pf.sample_id AND bbox_x IS NOT NULL ORDER BY role, position, id))
  WHEN pf.field = 'safety' THEN (SELECT CASE WHEN EXISTS (SELECT 1 FROM sample_tags
      WHERE sample_id = pf.sample_id AND tag = 'unsafe') THEN 'unsafe' ELSE 'safe' END)
  WHEN pf.field LIKE 'feedback/%' THEN (SELECT coalesce(
      (SELECT label || ':' || keyword FROM feedback_labels WHERE sample_id = pf.sample_id
       AND post_id = substr(pf.field, 10)), ''))
  ELSE '' END"""

SQL = f"""
CREATE TABLE proposal_templates (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    version INTEGER NOT NULL,
    system TEXT NOT NULL,
    user TEXT NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    created_by TEXT,
    UNIQUE (kind, version)
);
CREATE TRIGGER proposal_templates_no_update BEFORE UPDATE ON proposal_templates
BEGIN SELECT RAISE(ABORT, 'proposal templates are versioned: save a new version'); END;
CREATE TRIGGER proposal_templates_no_delete BEFORE DELETE ON proposal_templates
BEGIN SELECT RAISE(ABORT, 'proposal templates are versioned: save a new version'); END;

CREATE TABLE proposal_runs (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    actor TEXT,
    model TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    kinds TEXT NOT NULL,
    posts TEXT NOT NULL,
    outcome TEXT,
    totals TEXT
);

CREATE TABLE proposals (
    id INTEGER PRIMARY KEY,
    post_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    template_id INTEGER NOT NULL REFERENCES proposal_templates(id),
    model TEXT NOT NULL,
    input_hash TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error TEXT,
    raw TEXT,
    value TEXT,
    applied TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    cost REAL,
    latency_ms INTEGER,
    run_id INTEGER REFERENCES proposal_runs(id),
    created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX proposals_cache ON proposals(post_id, kind, template_id, model, input_hash)
    WHERE status = 'ok';
CREATE INDEX proposals_post ON proposals(post_id, kind);
CREATE INDEX proposals_run ON proposals(run_id);

CREATE TABLE proposal_samples (
    sample_id TEXT PRIMARY KEY REFERENCES samples(id) ON DELETE CASCADE,
    post_id TEXT NOT NULL,
    origin TEXT NOT NULL CHECK (origin IN ('hand', 'proposed')),
    role TEXT NOT NULL DEFAULT 'main' CHECK (role IN ('main', 'fill-in')),
    created_audit_id INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX proposal_samples_post ON proposal_samples(post_id, role);

CREATE TABLE proposal_fields (
    sample_id TEXT NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
    field TEXT NOT NULL,
    proposal_id INTEGER NOT NULL REFERENCES proposals(id),
    proposed TEXT,
    proposed_sig TEXT NOT NULL,
    audit_id INTEGER NOT NULL,
    decision TEXT CHECK (decision IN ('accepted')),
    decided_at TEXT,
    decided_by TEXT,
    PRIMARY KEY (sample_id, field)
);
CREATE INDEX proposal_fields_proposal ON proposal_fields(proposal_id);

CREATE TABLE feedback_labels (
    sample_id TEXT NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
    post_id TEXT NOT NULL,
    label TEXT NOT NULL CHECK (label IN ('success', 'failure', 'neutral')),
    keyword TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (sample_id, post_id)
);

CREATE VIEW proposal_field_status AS
SELECT sample_id, field, proposal_id, proposed, proposed_sig, current_sig, decision,
       CASE WHEN current_sig IS NOT proposed_sig THEN 'corrected'
            WHEN decision = 'accepted' THEN 'accepted' ELSE 'proposed' END AS status
FROM (SELECT pf.*, {SIGNATURE} AS current_sig FROM proposal_fields pf);
"""
