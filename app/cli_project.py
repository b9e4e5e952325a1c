"""Project subcommands: ``info``, ``import posts``, ``demo``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli import CliError, print_json, seed_arg

if TYPE_CHECKING:
    from core.jobs import JobState
    from core.store import Project


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add project-level commands."""
    info = subparsers.add_parser("info", help="summarise a project")
    info.add_argument("project", type=Path)
    info.add_argument("--json", action="store_true", help="machine-readable output")
    info.set_defaults(handler=cmd_info)

    imp = subparsers.add_parser("import", help="import data into a project")
    kinds = imp.add_subparsers(dest="kind", metavar="KIND", required=True)
    imp.winnow_kinds = kinds  # app.cli_interop adds "hf"
    posts = kinds.add_parser("posts", help="JSON Lines of posts and/or samples (ECHO Table D.1)")
    posts.add_argument("file", type=Path)
    posts.add_argument("--project", "-p", type=Path, required=True,
                       help="the .winnow project (created if it does not exist)")
    posts.add_argument("--json", action="store_true", help="print the report as JSON")
    posts.add_argument("--no-images", action="store_true", help="do not fetch or read images")
    posts.add_argument("--concurrency", type=int, default=8, help="parallel downloads")
    posts.add_argument("--allow-private-network", action="store_true",
                       help="fetch image URLs on this computer or the local network too "
                            "(localhost, 10.x, 192.168.x, link-local…); refused by default")
    posts.add_argument("--image-root", type=Path, metavar="DIR",
                       help="local image paths may point inside DIR (default: the folder "
                            "of the JSONL file)")
    posts.set_defaults(handler=cmd_import_posts)

    outs = kinds.add_parser("outputs", help="model outputs laid out as DIR/<model>/<sample_id>.<ext>")
    outs.add_argument("folder", type=Path)
    outs.add_argument("--project", "-p", type=Path, required=True)
    outs.add_argument("--models", help="comma-separated subset of model folders")
    outs.add_argument("--json", action="store_true", help="print the report as JSON")
    outs.set_defaults(handler=cmd_import_outputs)

    demo = subparsers.add_parser("demo", help="write a demo project (never replaces an "
                                 "existing one)")
    demo.add_argument("project", type=Path)
    demo.add_argument("--seed", type=seed_arg, default=0)
    demo.add_argument("--json", action="store_true")
    demo.set_defaults(handler=cmd_demo)


#: The most downloads an import runs at once.
MAX_CONCURRENCY = 256


def _open_or_create(path: Path) -> Project:
    from core.store import Project

    if path.suffix != ".winnow":
        raise CliError(f"{path} is not a .winnow project file name")
    if path.exists():
        return Project.open(path)
    try:
        return Project.create(path)
    except FileExistsError:  # another process made it meanwhile: open it like any other
        if not path.exists():  # something else is in the way (a file named like its assets)
            raise
        return Project.open(path)  # (refused with the holder's name while it is open)


def cmd_info(args: argparse.Namespace) -> int:
    """``winnow info P.winnow [--json]``."""
    from core.store import Project

    with Project.open(args.project, readonly=True) as project:
        data = {**project.counts(), "schema_version": project.schema_version,
                "path": str(args.project)}
    if args.json:
        print_json(data)
    else:
        for key, value in data.items():
            print(f"{key:>16}: {value}")
    return 0


def cmd_import_posts(args: argparse.Namespace) -> int:
    """``winnow import posts FILE.jsonl --project P.winnow [--json]``.

    Exit status 0 when every line and image was imported, 1 when some were not (the
    report names them), 2 when nothing could be done (a usage or file error).
    """
    from core.ingest.importer import check_source, import_jsonl
    from core.jobs import JobState

    settings = None
    if not 1 <= args.concurrency <= MAX_CONCURRENCY:  # 100000 took 1.8 GB for 25 URLs
        raise CliError(f"--concurrency must be 1–{MAX_CONCURRENCY}, not {args.concurrency:,}")
    if args.image_root is not None and not args.image_root.is_dir():
        raise CliError(f"--image-root {args.image_root} is not a folder")
    if not args.project.exists():
        check_source(args.file)  # a missing or unreadable file creates no project
    with _open_or_create(args.project) as project:
        if not args.no_images:
            from core.ingest.fetch import FetchSettings

            settings = FetchSettings(concurrency=args.concurrency,
                                     cache_dir=project.assets.root / ".http-cache",
                                     allow_private_network=args.allow_private_network)
        state = JobState(title=f"Import {args.file.name}")
        if not args.json and sys.stderr.isatty():
            state.subscribe(_progress_printer())
        report = import_jsonl(project, args.file, fetch_settings=settings, state=state,
                              fetch_images=not args.no_images, image_root=args.image_root)
    if args.json:
        print_json(report.to_json())
    else:
        print(report.summary())
        for err in report.errors[:50]:
            print(f"  line {err['line']}: {_brief(err['error'])}")
        for err in report.image_errors[:50]:
            numbers = err["lines"]
            where = (f" (line{'s' if len(numbers) > 1 else ''} "
                     f"{_brief(', '.join(str(n) for n in numbers))})" if numbers else "")
            print(f"  image {_brief(err['url'])}{where}: {_brief(err['error'])}")
        for note in report.notes[:50]:
            print(f"  note, line {note['line']}: {_brief(note['note'])}")
    return 1 if report.failed else 0


def _brief(text: str, limit: int = 300) -> str:
    """``text``, or its start and its length when it is longer than ``limit``: a JSONL
    line can hold a URL of megabytes, and the report shows it (``--json`` has it all)."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def cmd_import_outputs(args: argparse.Namespace) -> int:
    """``winnow import outputs DIR --project P.winnow [--models a,b] [--json]``.

    Exit status 1 when some files could not be imported (the report names them).
    """
    from core.ingest.outputs import import_outputs
    from core.store import Project

    models = [m.strip() for m in args.models.split(",") if m.strip()] if args.models else None
    with Project.open(args.project) as project:
        report = import_outputs(project, args.folder, models=models)
    if args.json:
        print_json(report.to_json())
    else:
        print(f"{report.imported} imported, {report.updated} updated, {report.unchanged} "
              f"unchanged; models: " + ", ".join(f"{m} ({n})" for m, n in report.models.items()))
        for model, missing in report.missing.items():
            print(f"  {model}: missing {len(missing)}: {', '.join(missing[:10])}")
        if report.extra:
            print(f"  extra files (no such sample): {', '.join(report.extra[:20])}")
        for err in report.errors:
            print(f"  {err['file']}: {err['error']}")
    return 1 if report.errors else 0


def cmd_demo(args: argparse.Namespace) -> int:
    """``winnow demo PATH.winnow``: write a fresh demo project."""
    from core.demo import create_demo_project

    if args.project.suffix != ".winnow":
        raise CliError(f"{args.project} is not a .winnow project file name")
    project, report = create_demo_project(args.project, seed=args.seed)
    with project:
        counts = project.counts()
    if args.json:
        print_json({**counts, "import": report.to_json()})
    else:
        print(f"Demo project written to {args.project}: {counts['posts']} posts, "
              f"{counts['samples']} samples, {counts['images']} images")
    return 0


def _progress_printer() -> Callable[[JobState], None]:
    last = [-1]

    def show(state: JobState) -> None:
        fraction = state.fraction
        pct = -1 if fraction is None else int(fraction * 100)
        if pct != last[0]:
            last[0] = pct
            sys.stderr.write(f"\r{state.status[:60]:<60} {max(pct, 0):3d}%")
            sys.stderr.flush()

    return show
