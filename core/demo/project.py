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

#: project_meta key a demo carries while it is being built: the builder's process tag.
#: SIGKILL skips the clean-up of a half-made demo; this key lets the next demo prove the
#: file is its own, unfinished, and its builder gone (ADR 213).
BUILDING_KEY = "demo_building"


def building_tag() -> str:
    """What :data:`BUILDING_KEY` holds while this process builds a demo."""
    from core.files import process_tag

    return process_tag()


def remove_killed_demo(path: str | Path) -> bool:
    """Remove the half-made demo at ``path`` whose builder was killed; True if removed.

    Nothing is opened unless the sources' marker says a build of ``path`` started and
    never finished and its process (of this host) no longer runs; the project is then
    removed only if this process can lock it (no one has it open) and it carries that
    build's :data:`BUILDING_KEY`. Its asset folder is kept (content-addressed: the next
    demo adds to it)."""
    from core.files import process_gone
    from core.store.errors import ProjectError

    path = Path(path)
    tag = _unfinished_build(path)
    if tag is None or not process_gone(tag) or not path.is_file() or path.is_symlink():
        return False
    try:
        project = Project.open(path)
    except (ProjectError, OSError):
        return False  # open elsewhere, not a project, or not writable
    try:
        if project.meta(BUILDING_KEY) != tag:
            return False
        _adopt_rater_files(project, demo_sources_dir(path))
    finally:
        project.close()
    _remove_half_made(path, assets_were_there=True)
    return True


def _unfinished_build(path: Path) -> str | None:
    """The builder's tag of the last demo build of ``path`` its sources' marker records
    as started and not finished (the marker is read as bytes: nothing is opened)."""
    import json

    from core.export_files import MARKER_NAME

    try:
        lines = (demo_sources_dir(path) / MARKER_NAME).read_bytes().splitlines()
    except OSError:
        return None
    tag: str | None = None
    for raw in lines:
        try:
            rec = json.loads(raw)
        except ValueError:
            continue  # a line torn by a kill
        if not isinstance(rec, dict):
            continue
        if rec.get("demo_build") and rec.get("project") == path.name:
            tag = str(rec["demo_build"])
        elif rec.get("demo_built") == tag:
            tag = None
    return tag


def _mark_build(path: Path, key: str) -> None:
    from core.export_files import append_to_marker

    append_to_marker(demo_sources_dir(path), [{key: building_tag(), "project": path.name}])


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
    remove_killed_demo(path)
    in_the_way = [p for p in project_files(path) if os.path.lexists(p)]
    if in_the_way:
        raise FileExistsError(f"{in_the_way[0]} already exists; Winnow never replaces a "
                              "project (open it, or choose another name)")
    sources_dir = demo_sources_dir(path)
    state.set_status("Drawing demo images")
    sources = generate_demo_sources(sources_dir, seed=seed)
    _mark_build(path, "demo_build")  # before the project exists: a kill is recognised
    assets_were_there = os.path.lexists(assets_dir_for(path))
    project = Project.create(path)
    try:
        with project.transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO project_meta(key, value) VALUES "
                         "('demo_outputs_dir', ?), ('demo_models', ?), (?, ?)",
                         (str(sources.outputs_dir), ",".join(sources.models),
                          BUILDING_KEY, building_tag()))
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
        with project.transaction() as conn:  # finished: never taken for a half-made one
            conn.execute("DELETE FROM project_meta WHERE key = ?", (BUILDING_KEY,))
        _mark_build(path, "demo_built")
    except BaseException:
        project.close()
        _remove_half_made(path, assets_were_there)
        raise
    return project, report


def _adopt_rater_files(project: Project, sources_dir: Path) -> None:
    """List in the sources' marker the rater files the killed build wrote and had not yet
    listed (it lists them once all are rated): each names, inside, a session and file of
    the half-made project, so it is provably that build's, and the next demo may replace
    the folder. What its killed writes left (recognisable temporary names) is removed."""
    from core.export_files import Marker, append_to_marker, file_record
    from core.files import clean_stale_temps, digest
    from core.rating.returned import read_returned
    from core.rating.session_file import SessionFileError

    folder = sources_dir / "rating-sessions"
    if folder.is_symlink() or not folder.is_dir():
        return
    clean_stale_temps(folder)
    known = set(project.conn.execute(
        "SELECT s.uid, f.file_uid FROM rating_files f JOIN rating_sessions s "
        "ON s.id = f.session_id"))
    marker = Marker(sources_dir)
    found = []
    for path in sorted(folder.iterdir()):
        rel = path.relative_to(sources_dir).as_posix()
        if path.is_symlink() or not path.is_file() or marker.lists(rel, path):
            continue
        try:
            meta = read_returned(path).meta
        except (SessionFileError, OSError):
            continue
        if (meta.get("session_uid"), meta.get("file_uid")) in known:
            _fold_in_journal(path)  # a simulated rater killed while answering it
            found.append(file_record(rel, *digest(path)))
    if found:
        append_to_marker(sources_dir, found)


def _fold_in_journal(path: Path) -> None:
    """Checkpoint the ``-wal`` a killed writer left beside the rater file ``path`` into
    it; SQLite removes the ``-wal``/``-shm`` when the last connection closes."""
    import sqlite3

    if not os.path.lexists(f"{path}-wal"):
        return
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


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
