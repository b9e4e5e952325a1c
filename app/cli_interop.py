"""Hugging Face dataset folders on the command line (ADR 101, 102).

    winnow export benchmark P.winnow --out DIR --format hf [--license cc-by-4.0]
    winnow export photos P.winnow --out DIR           # released photos, --format hf
    winnow import hf DIR --project P.winnow [--column prompt=instruction] [--json]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from app.cli import CliError, print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``export photos`` and ``import hf``."""
    from app.cli_curate import export_kinds

    photos = export_kinds(subparsers).add_parser(
        "photos", help="the released (anonymized) photos as a Hugging Face dataset folder",
        description="Write the photos whose status is released as a Hugging Face dataset "
                    "folder (parquet shards with the images embedded, a dataset card) with "
                    "caption, category, credit and licence. DIR must be new or empty (or "
                    "an earlier export, with --overwrite); it appears complete or not at "
                    "all.")
    photos.add_argument("project", help="the .winnow project file")
    photos.add_argument("--out", required=True, type=Path, help="the folder to write")
    photos.add_argument("--overwrite", action="store_true",
                        help="replace DIR if it holds an earlier export and nothing else")
    photos.add_argument("--format", choices=("hf",), default="hf",
                        help="hf: a folder datasets.load_dataset(DIR) reads (the only one)")
    photos.set_defaults(handler=cmd_export_photos)

    hf = subparsers.choices["import"].winnow_kinds.add_parser(
        "hf", help="a Hugging Face dataset folder (parquet shards, to_parquet files or a "
                   "save_to_disk folder) as samples",
        description="Import every row as a sample (images into the project's asset "
                    "store), so a published benchmark can be re-curated. Bad rows are "
                    "reported with their split and row number; every valid row is "
                    "imported. Exit status 1 when some rows or images failed.")
    hf.add_argument("source", type=Path, help="dataset folder or parquet/arrow file")
    hf.add_argument("--project", "-p", type=Path, required=True,
                    help="the .winnow project (created if it does not exist)")
    hf.add_argument("--column", action="append", default=[], metavar="FIELD=COLUMN",
                    help="read FIELD (prompt, input_images, output_images, id, quality, "
                         "split, tags, ...) from COLUMN; FIELD= with no COLUMN reads it "
                         "from none (e.g. output_images= for a dataset whose 'image' "
                         "column holds no images); repeatable")
    hf.add_argument("--json", action="store_true", help="print the report as JSON")
    hf.set_defaults(handler=cmd_import_hf)


def _open(path: str | Path) -> Any:
    """The project to export, read-only as `info` reads it (an older file is not
    migrated: ADR 006, ADR 187)."""
    from core.interop.snapshot import open_read_only

    path = Path(path)
    if not path.exists():
        raise CliError(f"no project at {path}")
    return open_read_only(path)


def export_benchmark_hf_cli(project: Any, args: argparse.Namespace,
                            qualities: tuple[str, ...]) -> int:
    """``export benchmark --format hf``; exit 1 when a sample had to be left out."""
    from core.interop.hf_export import export_benchmark_hf

    report = export_benchmark_hf(project, args.out, qualities=qualities,
                                 splits=tuple(args.split or ()), licence=args.license,
                                 state=_state("Export Hugging Face dataset"),
                                 overwrite=args.overwrite)
    print_json(report.to_json())
    return 1 if report.skipped else 0


def cmd_export_photos(args: argparse.Namespace) -> int:
    """``winnow export photos P --out DIR``; exit 1 when a photo had to be left out."""
    from core.interop.hf_export import export_photos_hf

    project = _open(args.project)
    try:
        report = export_photos_hf(project, args.out, state=_state("Export photos"),
                                  overwrite=args.overwrite)
    finally:
        project.close()
    print_json(report.to_json())
    return 1 if report.skipped else 0


def cmd_import_hf(args: argparse.Namespace) -> int:
    """``winnow import hf DIR --project P``."""
    from app.cli_project import _open_or_create
    from core.interop.hf_import import check_hf_source, import_hf

    columns: dict[str, str] = {}
    for item in args.column:
        field, sep, column = item.partition("=")
        if not sep or not field.strip():
            raise CliError(f"--column {item!r}: write FIELD=COLUMN, e.g. prompt=instruction, "
                           "or FIELD= to read FIELD from no column")
        field, column = field.strip(), column.strip()
        if field in columns and columns[field] != column:  # the last one won in silence
            raise CliError(f"--column {field}= is given twice ({columns[field]!r}, then "
                           f"{column!r}): give each field once")
        columns[field] = column
    if not args.project.exists():
        check_hf_source(args.source, columns)  # a source that cannot be read makes no project
    with _open_or_create(args.project) as project:
        report = import_hf(project, args.source, columns=columns,
                           state=_state(f"Import {args.source.name}"))
    if args.json:
        print_json(report.to_json())
    else:
        print(report.summary())
        for err in report.errors[:50]:
            where = f"{err['file']}" + ("" if err["row"] is None else
                                        f" ({err['split']} row {err['row']})")
            print(f"  {where}: {err['error']}")
        for err in report.image_errors[:50]:
            print(f"  {err['split']} row {err['row']} {err['column']}: {err['error']}")
        for note in report.notes[:50]:
            at = note.get("file") if note["row"] is None else f"{note['split']} row {note['row']}"
            print(f"  {at}: note: {note['note']}")
    return 1 if report.errors or report.image_errors else 0


def _state(title: str) -> Any:
    from core.jobs import JobState

    state = JobState(title=title)
    if sys.stderr.isatty():
        def show(s: Any) -> None:
            pct = int((s.fraction or 0) * 100)
            sys.stderr.write(f"\r{s.status[:60]:<60} {pct:3d}%")
            sys.stderr.flush()

        state.subscribe(show)
    return state
