"""Import model outputs laid out as ``<root>/<model>/<sample_id>.<ext>`` (SPEC §2)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.ingest.images import ImageError, inspect_local_image
from core.jobs import JobState
from core.store.project import Project, now_iso

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif", ".tif", ".tiff"}
MAX_BYTES = 100 * 2**20


@dataclass
class OutputsReport:
    """What an outputs import did: per model counts, missing and extra files, errors."""

    imported: int = 0
    updated: int = 0
    unchanged: int = 0
    models: dict[str, int] = field(default_factory=dict)
    missing: dict[str, list[str]] = field(default_factory=dict)
    extra: list[str] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Machine-readable form (the CLI's ``--json``)."""
        return {"imported": self.imported, "updated": self.updated,
                "unchanged": self.unchanged, "models": self.models, "missing": self.missing,
                "extra": self.extra, "errors": self.errors}


def import_outputs(project: Project, root: str | Path, *, models: list[str] | None = None,
                   state: JobState | None = None) -> OutputsReport:
    """Import every ``<model>/<sample_id>.<ext>`` image under ``root``.

    A file whose stem is not a sample id is *extra*; a sample that some model has and
    another lacks is *missing* for the latter; an unreadable image is an *error*.
    Re-importing the same folder changes nothing.  A model folder or a file whose real
    path (links followed) lies outside ``root`` is an error and is never opened (ADR 176).
    """
    root = Path(root)
    if not root.is_dir():
        raise NotADirectoryError(f"{root} is not a folder of model outputs")
    real_root = Path(os.path.realpath(root))
    state = state or JobState(title=f"Import outputs from {root.name}")
    report = OutputsReport()
    known = {row[0] for row in project.conn.execute("SELECT id FROM samples")}
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if models:
        absent = sorted(set(models) - {p.name for p in folders})
        if absent:
            raise FileNotFoundError(f"no folder for model(s) {', '.join(absent)} in {root}")
        folders = [p for p in folders if p.name in models]
    for folder in [f for f in folders if not _inside(f, real_root)]:
        folders.remove(folder)  # its files are neither listed nor read
        report.errors.append({"file": folder.name, "error": f"{folder.name}: refused: a link "
                              "to a folder outside the outputs folder (never read)"})
    files = [(folder.name, f) for folder in folders for f in sorted(folder.iterdir())
             if not f.is_dir() and not f.name.startswith(".")]  # a pipe is named, not skipped
    state.set_total(len(files))
    present: dict[str, set[str]] = {folder.name: set() for folder in folders}
    seen: dict[str, set[str]] = {folder.name: set() for folder in folders}  # errors too
    with project.transaction() as conn:
        existing = {(s, m): sha for s, m, sha in conn.execute(
            "SELECT sample_id, model, sha256 FROM model_outputs")}
        for model, path in files:
            state.check()
            state.advance()
            rel = f"{model}/{path.name}"
            if not _inside(path, real_root):
                report.errors.append({"file": rel, "error": f"{rel}: refused: a link to a "
                                      "file outside the outputs folder (never read)"})
                continue
            if path.exists() and not path.is_file():
                report.errors.append({"file": rel, "error": f"{rel}: not a regular file (a "
                                      "pipe, a device or a socket)"})
                continue
            if path.suffix.lower() not in IMAGE_SUFFIXES:
                report.extra.append(rel)
                continue
            sample_id = path.stem
            if sample_id not in known:
                report.extra.append(rel)
                continue
            seen[model].add(sample_id)
            try:
                info = inspect_local_image(path, max_bytes=MAX_BYTES)
                sha, stored = project.assets.put_file(path, info.ext)
            except (ImageError, OSError) as exc:
                report.errors.append({"file": rel, "error": str(exc)})
                continue
            conn.execute("INSERT OR IGNORE INTO images(sha256, ext, mime, width, height, bytes, "
                         "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (sha, info.ext, info.mime, info.width, info.height,
                          stored.stat().st_size, now_iso()))
            present[model].add(sample_id)
            old = existing.get((sample_id, model))
            if old == sha:
                report.unchanged += 1
                continue
            conn.execute("INSERT OR REPLACE INTO model_outputs(sample_id, model, sha256, "
                         "source_path, imported_at) VALUES (?, ?, ?, ?, ?)",
                         (sample_id, model, sha, str(path), now_iso()))
            if old is None:
                report.imported += 1
            else:
                report.updated += 1
    expected = set().union(*seen.values()) if seen else set()
    for model, have in present.items():
        report.models[model] = len(have)
        missing = sorted(expected - seen[model])
        if missing:
            report.missing[model] = missing
    return report


def _inside(path: Path, real_root: Path) -> bool:
    """Whether ``path``, every link followed, lies inside ``real_root``."""
    return real_root in Path(os.path.realpath(path)).parents


def output_models(project: Project) -> list[str]:
    """Names of the models that have outputs in the project."""
    return [row[0] for row in project.conn.execute(
        "SELECT DISTINCT model FROM model_outputs ORDER BY model")]
