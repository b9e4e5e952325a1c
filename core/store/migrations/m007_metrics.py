"""Schema for metrics (SPEC §7): cached metric results and a log of runs.

One row per (sample, model, metric, parameters) holds the latest result together
with the metric version and the hash of the inputs it was computed from; a run
skips a row whose version and inputs hash still match (ADR 060).  ``model`` is
the generating model from ``model_outputs``, or ``@sample`` for the sample's own
output image.  ``params_hash`` identifies the metric configuration (backbone
model, judges, repeats); API keys are never part of it nor stored anywhere here.
"""

SQL = """
CREATE TABLE metric_results (
    sample_id TEXT NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    metric TEXT NOT NULL,
    params_hash TEXT NOT NULL,
    version INTEGER NOT NULL,
    inputs_hash TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'not_applicable', 'error')),
    value REAL,
    details TEXT NOT NULL DEFAULT '{}',
    error TEXT,
    params TEXT NOT NULL DEFAULT '{}',
    computed_at TEXT NOT NULL,
    seconds REAL,
    PRIMARY KEY (sample_id, model, metric, params_hash)
);
CREATE INDEX metric_results_metric ON metric_results(metric, params_hash, model);

CREATE TABLE metric_runs (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    actor TEXT NOT NULL,
    metrics TEXT NOT NULL,
    models TEXT NOT NULL,
    samples INTEGER NOT NULL,
    device TEXT,
    computed INTEGER NOT NULL DEFAULT 0,
    cached INTEGER NOT NULL DEFAULT 0,
    errors INTEGER NOT NULL DEFAULT 0,
    outcome TEXT
);
"""
