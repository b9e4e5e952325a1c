"""``winnow export benchmark P.winnow --out DIR [--quality Benchmark] [--split ...]``."""

from __future__ import annotations

import argparse
from typing import Any

from app.cli import CliError, print_json

QUALITY_CHOICES = ("Benchmark", "Analysis", "Trash")


def export_kinds(subparsers: argparse._SubParsersAction) -> argparse._SubParsersAction:
    """The ``winnow export KIND`` group, created once and shared by every feature that
    adds an export kind (call this instead of ``add_parser("export")``)."""
    existing = subparsers.choices.get("export")
    if existing is not None and hasattr(existing, "winnow_kinds"):
        return existing.winnow_kinds
    export = subparsers.add_parser(
        "export", help="export curated data",
        description="Export data from a project.")
    kinds = export.add_subparsers(dest="kind", metavar="KIND")
    export.winnow_kinds = kinds
    export.set_defaults(handler=_missing_kind(export))
    return kinds


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``export benchmark``."""
    kinds = export_kinds(subparsers)
    bench = kinds.add_parser(
        "benchmark", help="the curated benchmark as JSON Lines plus an images folder",
        description="Write DIR/samples.jsonl (one sample a line, ECHO Table D.1 field names, "
                    "with the original and the edited prompt) and DIR/images/ (screenshot "
                    "boxes applied as crops). The folder appears complete or not at all. "
                    "Exit status 1: some samples were left out (listed in 'skipped').")
    bench.add_argument("project", help="the .winnow project file")
    bench.add_argument("--out", required=True, help="the folder to write")
    bench.add_argument("--quality", action="append", choices=QUALITY_CHOICES,
                       help="quality label(s) to export (repeatable; default Benchmark)")
    bench.add_argument("--split", action="append",
                       help="text-to-image (t2i) or image-to-image (i2i); repeatable; "
                            "default both")
    bench.add_argument("--overwrite", action="store_true",
                       help="replace DIR if it holds an earlier export and nothing else "
                            "(Winnow's marker must list every file in it, unchanged)")
    bench.add_argument("--format", choices=("jsonl", "hf"), default="jsonl",
                       help="jsonl: samples.jsonl + images/ (default); hf: a Hugging Face "
                            "dataset folder (parquet shards + dataset card) that "
                            "datasets.load_dataset(DIR) reads")
    bench.add_argument("--license", default="unknown",
                       help="--format hf: the licence named in the dataset card (Hub id, "
                            "e.g. cc-by-4.0)")
    bench.set_defaults(handler=_export_benchmark)


def _missing_kind(parser: argparse.ArgumentParser) -> Any:
    def handler(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    return handler


def _export_benchmark(args: argparse.Namespace) -> int:
    from pathlib import Path

    from core.curate.export import export_benchmark
    from core.interop.snapshot import open_read_only

    path = Path(args.project)
    if not path.exists():
        raise CliError(f"no project at {path}")
    qualities = tuple(args.quality or ("Benchmark",))
    project = open_read_only(path)  # as `info` reads it: an older file is not migrated
    try:
        if args.format == "hf":
            from app.cli_interop import export_benchmark_hf_cli

            return export_benchmark_hf_cli(project, args, qualities)
        report = export_benchmark(project, args.out, qualities=qualities,
                                  splits=tuple(args.split or ()), overwrite=args.overwrite)
    finally:
        project.close()
    print_json(report.to_json())
    return 1 if report.skipped else 0  # a sample asked for was not written: say so
