"""Build the demo project: generated sources (core.demo.sources) imported through the
real importer, so the demo exercises the same code paths as a user's data."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from core.ingest.importer import ImportReport, import_jsonl
from core.ingest.outputs import import_outputs
from core.jobs import JobState
from core.store.project import Project, assets_dir_for, project_files


def demo_sources_dir(path: Path) -> Path:
    """Where the demo's generated source files (JSONL, images, model outputs) live."""
    return path.with_name(path.stem + ".demo-sources")


def create_demo_project(path: str | Path, *, seed: int = 0, state: JobState | None = None,
                        ratings: bool = True) -> tuple[Project, ImportReport]:
    """Write a fresh demo project at ``path`` and return it open, with the import report.

    Never replaces anything it cannot prove it wrote (ADR 005): an existing project at
    ``path`` (or its ``-wal``/``-shm`` file) raises :class:`FileExistsError` before
    anything is written, an asset folder already beside it is only added to, and the
    generated sources beside it (:func:`demo_sources_dir`) replace an earlier demo's only
    while every file there is listed, unchanged, in its ownership marker. ``ratings`` adds three finished rating
    sessions answered by simulated raters (core.demo.ratings), so Rate and Analyze show
    a study.
    """
    from core.demo.sources import generate_demo_sources

    path = Path(path)
    state = state or JobState(title="Create demo project")
    in_the_way = [p for p in project_files(path) if os.path.lexists(p)]
    if in_the_way:
        raise FileExistsError(f"{in_the_way[0]} already exists; Winnow never replaces a "
                              "project (open it, or choose another name)")
    sources_dir = demo_sources_dir(path)
    state.set_status("Drawing demo images")
    sources = generate_demo_sources(sources_dir, seed=seed)
    assets_were_there = os.path.lexists(assets_dir_for(path))
    project = Project.create(path)
    try:
        with project.transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO project_meta(key, value) VALUES "
                         "('demo_outputs_dir', ?), ('demo_models', ?)",
                         (str(sources.outputs_dir), ",".join(sources.models)))
        report = import_jsonl(project, sources.posts_jsonl, state=state)
        state.set_status("Importing model outputs")
        import_outputs(project, sources.outputs_dir, state=state)
        _demo_metrics(project, state)
        from core import extras

        if extras.available("anonymize"):  # drawing and detecting need OpenCV & co.
            from core.demo.photos import add_demo_photos

            state.set_status("Adding demo photos")
            add_demo_photos(project, sources_dir, state, seed=seed)
        if ratings:
            from core.demo.ratings import add_demo_ratings

            state.set_status("Rating sessions for the demo")
            summary = add_demo_ratings(project, sources_dir / "rating-sessions", state,
                                       seed=seed)
            _record(sources_dir, [Path(f) for s in summary["sessions"] for f in s["files"]])
    except BaseException:
        project.close()
        _remove_half_made(path, assets_were_there)
        raise
    return project, report


def _remove_half_made(path: Path, assets_were_there: bool) -> None:
    """Remove the project this run created and could not finish (a full disk, an
    interruption), and its asset folder if this run made it: a later demo at ``path``
    is not refused by a half-made one (ADR 005: Winnow wrote every byte of them)."""
    for name in project_files(path):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)
    if not assets_were_there:
        shutil.rmtree(assets_dir_for(path), ignore_errors=True)


def _record(root: Path, paths: list[Path]) -> None:
    """Add files this run wrote under ``root`` (the rater files, new files each: writing
    them never replaces one) to its ownership marker, so a later demo may replace the
    folder only while they are unchanged (ADR 005)."""
    from core.export_files import append_to_marker, file_record
    from core.files import digest

    append_to_marker(root, [file_record(p.relative_to(root).as_posix(), *digest(p))
                            for p in paths])


def _demo_metrics(project: Project, state: JobState) -> None:
    """Colour shift on every sample × model (model-free, a few seconds), so the Metrics
    and Analyze workspaces have results to show on a fresh demo."""
    from core.metrics.items import available_models, collect_items
    from core.metrics.registry import parse_names
    from core.metrics.runner import run_metrics
    from core.metrics.settings import MetricSettings

    state.set_status("Computing colour shift for the demo")
    ids = [row[0] for row in project.conn.execute("SELECT id FROM samples ORDER BY id")]
    items = collect_items(project, ids, available_models(project))
    run_metrics(state, project, parse_names("colour_shift"), items, MetricSettings(device="cpu"))
