"""Demo rating sessions (core.demo.ratings) on a real demo project: sessions merged through
the rating code paths, results export, Analyze sources, determinism, idempotent merge."""

from __future__ import annotations

import csv
import inspect
import shutil
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.cli import run_cli
from core.analysis.report import AnalysisOptions, analyze
from core.analysis.sources import project_datasets
from core.demo import create_demo_project
from core.demo.ratings import LIKERT, RANKING, RATERS, SIDE_BY_SIDE, add_demo_ratings
from core.jobs import Cancelled, JobState
from core.rating.merge import merge_files
from core.rating.results import rater_summaries, result_rows
from core.rating.session_file import RatingSession, connect
from core.rating.sessions import list_sessions
from core.stats import tables
from core.store.project import Project, assets_dir_for

DEMO_MODELS = {"aurora-xl", "brushwork-2", "pixelforge", "lumen-edit"}
SESSIONS = (RANKING, LIKERT, SIDE_BY_SIDE)
OPTIONS = AnalysisOptions(n_boot=200, seed=0)


@pytest.fixture(scope="module")
def demo_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh demo project (closed): each test works on a copy."""
    path = tmp_path_factory.mktemp("demo") / "demo.winnow"
    # once core.demo adds the ratings itself, build the demo without them here
    skip = {"ratings": False} if "ratings" in inspect.signature(create_demo_project).parameters \
        else {}
    project, _ = create_demo_project(path, **skip)
    project.close()
    return path


def _copy(demo_path: Path, folder: Path) -> Project:
    folder.mkdir(parents=True)
    target = folder / demo_path.name
    shutil.copy2(demo_path, target)
    shutil.copytree(assets_dir_for(demo_path), assets_dir_for(target))
    return Project.open(target)


def _rated(demo_path: Path, folder: Path, seed: int) -> tuple[Project, dict[str, Any]]:
    project = _copy(demo_path, folder)
    summary = add_demo_ratings(project, folder / "sessions", JobState(title="demo"), seed=seed)
    return project, summary


@pytest.fixture(scope="module")
def rated(demo_path: Path, tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[tuple[Project, dict[str, Any]]]:
    project, summary = _rated(demo_path, tmp_path_factory.mktemp("rated") / "a", seed=0)
    yield project, summary
    project.close()


def _dataset_analyses(project: Project) -> dict[str, Any]:
    datasets, errors = project_datasets(project)
    assert errors == []
    out = {}
    for ds in datasets:
        if ds.meta.get("session") in SESSIONS:
            out[ds.meta["session"]] = (ds, analyze(ds.load(project), ds.kind, OPTIONS,
                                                   name=ds.name))
    return out


def _alpha(analysis: Any) -> dict[str, float]:
    table = next(t for t in analysis.sections["agreement"].tables if t.key == "alpha")
    return {row[0]: row[1] for row in table.rows}


def test_sessions_are_listed_with_their_merged_judgments(rated) -> None:  # type: ignore[no-untyped-def]
    project, summary = rated
    listed = {s.name: s for s in list_sessions(project)}
    assert set(listed) == set(SESSIONS)
    assert {s["name"]: s["judgments"] for s in summary["sessions"]} == \
        {n: listed[n].judgments for n in SESSIONS}
    assert summary["judgments"] == sum(s.judgments for s in listed.values())
    assert {n: listed[n].protocol for n in SESSIONS} == \
        {RANKING: "ranking", LIKERT: "likert", SIDE_BY_SIDE: "side_by_side"}
    assert len(listed[RANKING].design.sample_ids) == 12
    assert len(listed[LIKERT].design.sample_ids) == 8
    for name in SESSIONS:
        rows = rater_summaries(project, name)
        assert [r.rater for r in rows] == [r.name for r in RATERS]
        for r in rows:
            assert r.completed == r.tasks > 0 and r.gold_tasks >= 1
            assert 5.0 <= r.median_time_s <= 40.0
        careful, sloppy = rows[:2], rows[2]
        assert all(r.gold_correct == r.gold_answered for r in careful)
        assert sloppy.gold_correct == sloppy.gold_answered - 1  # fails exactly one gold task
        assert sloppy.median_time_s < min(r.median_time_s for r in careful)
    ranking = rater_summaries(project, RANKING)
    assert [r.flags for r in ranking] == [1, 0, 0] and [r.changed for r in ranking] == [0, 1, 0]
    flagged = project.conn.execute("SELECT rater, reason FROM rating_judgments "
                                   "WHERE flag IS NOT NULL").fetchall()
    assert len(flagged) == 1 and flagged[0][0] == RATERS[0].name
    assert "cannot order them fairly" in flagged[0][1]
    fastest, slowest = project.conn.execute(
        "SELECT min(time_ms), max(time_ms) FROM rating_judgments").fetchone()
    assert fastest >= 5000 and slowest <= 40000


def test_the_files_hold_what_was_merged_append_only(rated) -> None:  # type: ignore[no-untyped-def]
    project, summary = rated
    for s in summary["sessions"]:
        for path in s["files"]:
            session = RatingSession(Path(path), connect(Path(path), readonly=True))
            try:
                uids = {j.uid for j in session.judgments()}
                assert session.progress()[0] == session.progress()[1]
                assert session.rater in {r.name for r in RATERS}
            finally:
                session.conn.close()
            merged = {r[0] for r in project.conn.execute(
                "SELECT uid FROM rating_judgments WHERE file_uid = (SELECT file_uid FROM "
                "rating_files WHERE path = ?)", (path,))}
            assert merged == uids


def test_results_export_restores_model_names(rated, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    project, _ = rated
    ranking_csv, likert_csv = tmp_path / "ranking.csv", tmp_path / "likert.csv"
    for name, out in ((RANKING, ranking_csv), (LIKERT, likert_csv)):
        assert run_cli(["session", "results", str(project.path), "--session", name,
                        "--out", str(out)]) == 0
    with ranking_csv.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert set(rows[0]) == {"rater", "item", "model", "rank"}
    assert {r["model"] for r in rows} == DEMO_MODELS
    # 12 samples, less the 2 whose place gold took (every rater ranks every sample: a
    # gold task on a 13th prompt, or a 12th shown twice, would give it away; ADR 191),
    # × 3 raters, less the one flagged "impossible to rank", × 4 models
    real = project.conn.execute(
        "SELECT count(DISTINCT t.sample_id), count(*) FROM rating_tasks t JOIN "
        "rating_sessions s ON s.id = t.session_id WHERE s.name = ? AND t.gold IS NULL",
        (RANKING,)).fetchone()
    assert tuple(real) == (10, 10 * 3)
    assert len(rows) == (10 * 3 - 1) * 4
    assert {r["rater"] for r in rows} == {r.name for r in RATERS}
    assert tables.read_rankings(ranking_csv).raters  # what `winnow stats` reads
    with likert_csv.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["model"] for r in rows} == DEMO_MODELS
    assert {r["criterion"] for r in rows} == {"IF", "IC", "VQ"}
    # samples × models less the outputs whose place gold took (ADR 191), × raters × criteria
    real = project.conn.execute(
        "SELECT count(DISTINCT t.unit), count(*) FROM rating_tasks t JOIN "
        "rating_sessions s ON s.id = t.session_id WHERE s.name = ? AND t.gold IS NULL",
        (LIKERT,)).fetchone()
    assert tuple(real) == (8 * 4 - 3, (8 * 4 - 3) * 3)
    assert len(rows) == (8 * 4 - 3) * 3 * 3
    assert all(1 <= int(r["value"]) <= 5 for r in rows)
    header, votes = result_rows(project, SIDE_BY_SIDE)
    assert header[:3] == ["a", "b", "winner"] and {v[0] for v in votes} <= DEMO_MODELS
    assert len(votes) == 4 * 6 * 2  # samples × model pairs × raters per task


def test_analyze_ranks_lumen_first_and_pixelforge_last_with_good_agreement(rated) -> None:  # type: ignore[no-untyped-def]
    project, _ = rated
    found = _dataset_analyses(project)
    assert {name: ds.kind for name, (ds, _) in found.items()} == \
        {RANKING: "rankings", LIKERT: "likert", SIDE_BY_SIDE: "votes"}
    for name, (_, analysis) in found.items():
        models = analysis.sections["leaderboard"].tables[0].column("Model")
        assert models[0] == "lumen-edit" and models[-1] == "pixelforge", name
    # rankings: Bradley-Terry agrees, raters' Kendall τ-b clearly positive, α in range
    _, ranking = found[RANKING]
    lead = ranking.sections["leaderboard"].tables[0]
    bt = dict(zip(lead.column("Model"), lead.column("BT/100"), strict=True))
    assert max(bt, key=bt.get) == "lumen-edit" and min(bt, key=bt.get) == "pixelforge"
    pairs = next(t for t in ranking.sections["agreement"].tables if t.key == "rater-pairs")
    assert len(pairs.rows) == 3 and all(0.4 < row[2] < 0.95 for row in pairs.rows)
    assert 0.5 <= _alpha(ranking)["rank"] <= 0.8
    assert ranking.sections["significance"].tables[0].rows  # Friedman ran
    # Likert: α per criterion in range; lumen-edit rated best and pixelforge worst on
    # every criterion; lumen-edit succeeds most, pixelforge never more than another
    _, likert = found[LIKERT]
    alphas = _alpha(likert)
    assert set(alphas) == {"IF", "IC", "VQ"}
    assert all(0.5 <= a <= 0.85 for a in alphas.values()), alphas
    lead = likert.sections["leaderboard"].tables[0]
    for crit in ("IF", "IC", "VQ"):
        mean = dict(zip(lead.column("Model"), lead.column(f"Mean {crit}"), strict=True))
        assert max(mean, key=mean.get) == "lumen-edit", crit
        assert min(mean, key=mean.get) == "pixelforge", crit
    success = next(t for t in likert.sections["success"].tables if t.key == "success")
    overall = dict(zip(success.column("Model"), success.column("Overall"), strict=True))
    # 8 samples: success moves in steps of 1/8 as the plan's draws change (ADR 184)
    assert overall["lumen-edit"] >= 0.5 and overall["lumen-edit"] == max(overall.values())
    assert overall["pixelforge"] == min(overall.values())
    # side-by-side: α per criterion is defined and positive
    _, votes = found[SIDE_BY_SIDE]
    assert 0.3 <= _alpha(votes)["preference"] <= 0.9


def _fingerprint(project: Project) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in SESSIONS:
        out[name] = result_rows(project, name)
        out[name + ":judgments"] = sorted(project.conn.execute(
            "SELECT j.task_id, j.answer, j.flag, j.time_ms, j.rater FROM rating_judgments j "
            "JOIN rating_sessions s ON s.id = j.session_id WHERE s.name = ?", (name,)))
    return out


def test_same_seed_same_study_other_seed_another(rated, demo_path: Path,  # type: ignore[no-untyped-def]
                                                 tmp_path: Path) -> None:
    project, _ = rated
    again, _ = _rated(demo_path, tmp_path / "again", seed=0)
    other, _ = _rated(demo_path, tmp_path / "other", seed=1)
    try:
        assert _fingerprint(again) == _fingerprint(project)
        mine, theirs = _fingerprint(project), _fingerprint(other)
        assert all(mine[n] != theirs[n] for n in SESSIONS)
        # another seed, the same story: lumen-edit first, pixelforge last
        for _, analysis in _dataset_analyses(other).values():
            models = analysis.sections["leaderboard"].tables[0].column("Model")
            assert (models[0], models[-1]) == ("lumen-edit", "pixelforge")
    finally:
        again.close()
        other.close()


def test_merging_the_files_again_changes_nothing(rated) -> None:  # type: ignore[no-untyped-def]
    project, summary = rated

    def counts() -> tuple[int, ...]:
        return tuple(project.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                     for t in ("rating_judgments", "rating_merges", "audit_log"))

    before, rows = counts(), {n: result_rows(project, n) for n in SESSIONS}
    files = [f for s in summary["sessions"] for f in s["files"]]
    results, errors = merge_files(project, files)
    assert errors == [] and len(results) == 9
    assert all(r.added == 0 and r.already > 0 for r in results)
    assert counts() == before
    assert {n: result_rows(project, n) for n in SESSIONS} == rows


def test_a_project_without_the_demo_models_is_refused(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="demo's model outputs"):
        add_demo_ratings(project, tmp_path / "s", JobState(title="demo"))
    assert list_sessions(project) == []


def test_a_second_run_or_a_cancel_writes_nothing(rated, demo_path: Path,  # type: ignore[no-untyped-def]
                                                 tmp_path: Path) -> None:
    project, _ = rated
    judged = project.conn.execute("SELECT count(*) FROM rating_judgments").fetchone()[0]
    with pytest.raises(ValueError, match="already exists"):
        add_demo_ratings(project, tmp_path / "second", JobState(title="demo"))
    assert project.conn.execute("SELECT count(*) FROM rating_judgments").fetchone()[0] == judged
    fresh = _copy(demo_path, tmp_path / "cancelled")
    try:
        state = JobState(title="demo")
        state.cancel()
        with pytest.raises(Cancelled):
            add_demo_ratings(fresh, tmp_path / "cancelled" / "s", state)
        assert list_sessions(fresh) == []
    finally:
        fresh.close()


def test_times_on_task_are_plausible_per_protocol(rated) -> None:  # type: ignore[no-untyped-def]
    project, _ = rated
    medians = {}
    for name in SESSIONS:
        times = [r[0] / 1000 for r in project.conn.execute(
            "SELECT j.time_ms FROM rating_judgments j JOIN rating_sessions s "
            "ON s.id = j.session_id WHERE s.name = ?", (name,))]
        medians[name] = statistics.median(times)
    assert medians[SIDE_BY_SIDE] < medians[LIKERT] < medians[RANKING]
