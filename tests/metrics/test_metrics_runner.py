"""The runner on a project: storing, cache hits, invalidation, cancel, bad images, export."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from metrics_helpers import add_sample, gradient_image, set_output, yellow_tint

from core.jobs import Cancelled, JobState
from core.metrics import store
from core.metrics.base import SAMPLE_MODEL
from core.metrics.colour_shift import ColourShift
from core.metrics.items import available_models, collect_items
from core.metrics.registry import get
from core.metrics.runner import run_metrics
from core.metrics.settings import MetricSettings
from core.selection import SampleFilter


def _run(project, metrics=("colour_shift",), models=("tinted", "same"), state=None,
         worker=None, **kw):
    items = collect_items(project, SampleFilter().sample_ids(project), list(models))
    return run_metrics(state or JobState(), project, [get(m) for m in metrics], items,
                       MetricSettings(**kw), worker=worker)


def test_items_from_selection_models_and_own_output(project) -> None:
    base = gradient_image()
    add_sample(project, "a", "p", [base], {"m1": base}, own=yellow_tint(base),
               bbox=(10, 5, 40, 30))
    add_sample(project, "b", "q", [], {"m2": base})
    assert available_models(project) == [SAMPLE_MODEL, "m1", "m2"]
    items = collect_items(project, ["a", "b", "zzz"], [SAMPLE_MODEL, "m1", "m2"])
    assert [(i.sample_id, i.model) for i in items] == [("a", SAMPLE_MODEL), ("a", "m1"),
                                                       ("b", "m2")]
    a_own = items[0]
    assert a_own.inputs[0].bbox == (10, 5, 40, 30) and a_own.inputs[0].path.exists()
    assert a_own.output.sha256 != items[1].output.sha256


def test_run_stores_results_and_rerun_is_all_cached(small_project, worker) -> None:
    project = small_project(6)
    first = _run(project, worker=worker)
    assert first.computed == 12 and first.cached == 0
    assert first.not_applicable == 1  # the text-to-image sample has no input
    rows = store.load_results(project, metrics=["colour_shift"])
    by = {(r.sample_id, r.model): r for r in rows}
    assert by[("s00", "same")].value == 0.0
    assert by[("s00", "tinted")].details["b_shift"] > 0
    assert by[("t2i", "tinted")].status == "not_applicable"
    state = JobState()
    second = _run(project, state=state, worker=worker)
    assert second.computed == 0 and second.cached == 13
    assert state.done == state.total == 13
    runs = project.conn.execute("SELECT outcome, computed, cached FROM metric_runs").fetchall()
    assert runs == [("done", 12, 0), ("done", 0, 13)]


def test_changed_output_and_new_version_are_recomputed(small_project, worker,
                                                       monkeypatch) -> None:
    project = small_project(3)
    _run(project, worker=worker)
    set_output(project, "s01", "same", yellow_tint(gradient_image(seed=1), 0.5))
    again = _run(project, worker=worker)
    assert again.computed == 1 and again.cached == 6
    row = next(r for r in store.load_results(project) if (r.sample_id, r.model) == ("s01", "same"))
    assert row.value > 0
    monkeypatch.setattr(ColourShift, "version", 2)
    bumped = _run(project, worker=worker)
    assert bumped.computed == 6 and bumped.cached == 0
    assert {r.version for r in store.load_results(project)} == {2}


def test_broken_output_is_one_error_and_is_retried(small_project, worker) -> None:
    project = small_project(4)
    from metrics_helpers import add_image

    sha = add_image(project, b"\x89PNG\r\n\x1a\nnot really a png")
    with project.transaction() as conn:
        conn.execute("UPDATE model_outputs SET sha256 = ? WHERE sample_id = 's02' AND "
                     "model = 'tinted'", (sha,))
    summary = _run(project, worker=worker)
    assert summary.errors == 1 and summary.computed == 7
    bad = next(r for r in store.load_results(project) if r.status == "error")
    assert (bad.sample_id, bad.model) == ("s02", "tinted") and "truncated PNG" in bad.error
    again = _run(project, worker=worker)  # errors are not cache hits
    assert again.errors == 1 and again.cached == 8


def test_cancel_between_batches_keeps_what_was_stored(small_project, worker) -> None:
    project = small_project(12)
    state = JobState()
    state.subscribe(lambda s: s.done >= 10 and not s.cancelled() and s.cancel())
    with pytest.raises(Cancelled):
        _run(project, state=state, worker=worker, batch_size=4, decode_threads=1)
    stored = store.load_results(project, metrics=["colour_shift"])
    assert 0 < len(stored) < 25
    assert project.conn.execute("SELECT outcome FROM metric_runs").fetchone() == ("cancelled",)
    rest = _run(project, worker=worker)
    assert rest.cached == len(stored) and rest.cached + rest.computed + rest.not_applicable == 25


def test_unavailable_model_is_reported_and_other_metrics_run(small_project, worker) -> None:
    project = small_project(2)
    summary = _run(project, metrics=("colour_shift", "structure_distance"), worker=worker,
                   dino_model="no-such-org/no-such-model", device="cpu")
    assert "never downloads" in summary.failed_metrics["structure_distance"]
    assert summary.per_metric["colour_shift"]["computed"] == 4


def test_export_csv_long_format(small_project, worker, tmp_path: Path) -> None:
    project = small_project(2)
    _run(project, worker=worker)
    out = tmp_path / "out" / "metrics.csv"
    n = store.export_csv(project, out)
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert len(rows) == n
    main = [r for r in rows if r["metric"] == "colour_shift"]
    shifts = [r for r in rows if r["metric"] == "colour_shift/b_shift"]
    assert len(main) == 5 and len(shifts) == 4
    tinted = next(r for r in main if (r["sample_id"], r["model"]) == ("s00", "tinted"))
    assert float(tinted["value"]) > 0 and json.loads(tinted["details"])["b_shift"] > 0
    assert not list(out.parent.glob(".*tmp"))  # written atomically, no leftovers


def test_rating_session_selection(small_project) -> None:
    from metrics_helpers import add_session

    from core.metrics.items import rating_sessions

    project = small_project(4)
    add_session(project, "pilot", [("s01", "tinted"), ("s03", "tinted")], gold="s02")
    assert rating_sessions(project) == [("pilot", ["s01", "s03"], ["tinted"])]
