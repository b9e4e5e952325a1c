"""``winnow curate split|merge|conflicts|resolve|agreement``: curating as a team (issue #20).

    winnow curate split P.winnow --curators 3 [--names A,B,C] [--overlap 0.1]
                        [--filter TEXT] [--quality Q,…] [--split S] [--tag T]
                        [--unreviewed] [--seed N] [--name NAME] --out DIR
    winnow curate merge P.winnow FILE…        # exit 1 when a package was refused
    winnow curate conflicts P.winnow [--all]
    winnow curate resolve P.winnow ID ours|theirs
    winnow curate agreement P.winnow [--split NAME]

Every command takes ``--json`` for a machine-readable report on stdout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from app.cli import CliError, print_json, seed_arg
from core.teamwork import DEFAULT_OVERLAP


def curate_actions(subparsers: argparse._SubParsersAction) -> argparse._SubParsersAction:
    """The ``winnow curate ACTION`` group, created once and shared by every feature that
    adds a curate action (call this instead of ``add_parser("curate")``)."""
    existing = subparsers.choices.get("curate")
    if existing is not None and hasattr(existing, "winnow_actions"):
        return existing.winnow_actions
    curate = subparsers.add_parser("curate", help="curate as a team: share work, merge it",
                                   description="Curate a project as a team.")
    actions = curate.add_subparsers(dest="curate_command", metavar="ACTION", required=True)
    curate.winnow_actions = actions
    return actions


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``curate split|merge|conflicts|resolve|agreement``."""
    actions = curate_actions(subparsers)
    split = actions.add_parser(
        "split", help="write one curator package per person",
        description="Write one curator package (a .winnow file restricted to the person's "
                    "samples, with their posts, replies and images) per curator into the new "
                    "folder DIR. A fraction --overlap of the samples goes to two curators, "
                    "for agreement.")
    split.add_argument("project", type=Path)
    split.add_argument("--curators", type=int, help="how many curators (default: --names)")
    split.add_argument("--names", help="comma-separated curators' names "
                                       "(default: Curator 1, Curator 2, …)")
    split.add_argument("--overlap", type=float, default=None,
                       help="fraction of the samples given to two curators, for agreement "
                            f"(0–1; default {DEFAULT_OVERLAP:g} with two or more curators, "
                            "as Curate → Share Work…)")
    split.add_argument("--out", type=Path, required=True, help="a new (or empty) folder")
    split.add_argument("--filter", default="", help="only samples the Curate search finds")
    split.add_argument("--quality", default="", help="only these labels (comma-separated; "
                                                    "'none' = unlabelled)")
    split.add_argument("--split", dest="task_split",
                       choices=["text-to-image", "image-to-image"])
    split.add_argument("--tag", help="only samples with this tag")
    split.add_argument("--unreviewed", action="store_true", help="only unreviewed samples")
    split.add_argument("--seed", type=seed_arg, help="the shuffle's seed (default: random)")
    split.add_argument("--name", help="the split's name (default: project and time)")
    split.add_argument("--json", action="store_true")
    split.set_defaults(handler=cmd_split)

    merge = actions.add_parser("merge", help="merge returned curator packages",
                               description="Merge returned packages field by field; "
                               "conflicting changes are kept for adjudication. Exit status "
                               "1 when a package was refused (the others are merged).")
    merge.add_argument("project", type=Path)
    merge.add_argument("files", type=Path, nargs="+")
    merge.add_argument("--json", action="store_true")
    merge.set_defaults(handler=cmd_merge)

    conflicts = actions.add_parser("conflicts", help="list conflicts waiting for a decision")
    conflicts.add_argument("project", type=Path)
    conflicts.add_argument("--all", action="store_true", help="resolved ones too")
    conflicts.add_argument("--json", action="store_true")
    conflicts.set_defaults(handler=cmd_conflicts)

    resolve = actions.add_parser("resolve", help="keep the project's value or take the "
                                                 "curator's for one conflict")
    resolve.add_argument("project", type=Path)
    resolve.add_argument("conflict", type=int)
    resolve.add_argument("choice", choices=["ours", "theirs"])
    resolve.set_defaults(handler=cmd_resolve)

    agree = actions.add_parser("agreement", help="agreement on the samples two curators "
                                                 "shared")
    agree.add_argument("project", type=Path)
    agree.add_argument("--split", dest="split_name", help="which split (default: the latest)")
    agree.add_argument("--json", action="store_true")
    agree.set_defaults(handler=cmd_agreement)


def _names(args: argparse.Namespace) -> list[str]:
    from core.teamwork.split import MAX_CURATORS

    names = [n for n in (args.names or "").split(",") if n.strip()]
    if args.curators is None and not names:
        raise CliError("say how many curators (--curators N) or name them (--names A,B)")
    if args.curators is not None and names and len(names) != args.curators:
        raise CliError(f"--curators {args.curators} but {len(names)} name(s) in --names")
    if args.curators is not None and not 1 <= args.curators <= MAX_CURATORS:
        raise CliError(f"a split needs 1 to {MAX_CURATORS} curators, not {args.curators:,}")
    return names or [f"Curator {k}" for k in range(1, args.curators + 1)]


def _qualities(text: str) -> tuple[str | None, ...]:
    """``--quality A,B``: labels (any case) or ``none``; CliError naming an unknown one."""
    from core.curate.commands import QUALITIES

    known = {q.lower(): q for q in QUALITIES}
    out: list[str | None] = []
    for word in (w.strip() for w in text.split(",")):
        if word.lower() == "none":
            out.append(None)
        elif word.lower() in known:
            out.append(known[word.lower()])
        elif word:
            raise CliError(f"--quality {word!r} is not a quality label: use "
                           f"{', '.join(QUALITIES)} or none")
    return tuple(out)


def cmd_split(args: argparse.Namespace) -> int:
    from core.selection import SampleFilter
    from core.store import Project
    from core.teamwork.split import SplitError, split_project

    qualities = _qualities(args.quality)
    selection = SampleFilter(quality=qualities, split=args.task_split, tag=args.tag,
                             text=args.filter,
                             review_status="unreviewed" if args.unreviewed else None)
    names = _names(args)
    overlap = args.overlap if args.overlap is not None else (
        DEFAULT_OVERLAP if len(names) >= 2 else 0.0)
    with Project.open(args.project) as project:
        try:
            report = split_project(project, args.out, names, overlap=overlap,
                                   selection=selection, seed=args.seed, name=args.name)
        except SplitError as exc:
            raise CliError(str(exc)) from None
    if args.json:
        print_json(report.to_json())
    else:
        print(f"Split {report.split!r}: {report.samples:,} samples "
              f"({report.overlap:,} shared by two curators) into {report.out}")
        for p in report.packages:
            print(f"  {p['file']}: {p['curator']}, {p['samples']:,} samples "
                  f"({p['shared']:,} shared)")
    for d in report.skipped:  # not shared (ADR 157): named, and the exit status says so
        print(f"skipped: {d['sample']}: {d['reason']}", file=sys.stderr)
    return 1 if report.skipped else 0


def cmd_merge(args: argparse.Namespace) -> int:
    from core.store import Project
    from core.teamwork.conflicts import count_open
    from core.teamwork.merge import merge_packages

    with Project.open(args.project) as project:
        results, refused = merge_packages(project, args.files)
        waiting = count_open(project)
    if args.json:
        print_json({"merged": [r.to_json() for r in results], "refused": refused,
                    "open_conflicts": waiting})
    else:
        for r in results:
            print(r.summary())
        if waiting:
            print(f"{waiting} conflict(s) wait for a decision: `winnow curate conflicts "
                  f"{args.project}`, or Curate → Team → Resolve Conflicts… in the app")
    for line in refused:
        print(f"refused: {line}", file=sys.stderr)
    return 1 if refused else 0


def _conflict_json(c: Any) -> dict[str, Any]:
    return {"id": c.id, "split": c.split, "curator": c.curator, "sample": c.sample_id,
            "field": c.field, "project_value": c.current, "set_by": c.ours_by,
            "curator_value": c.theirs, "status": c.status, "choice": c.choice}


def cmd_conflicts(args: argparse.Namespace) -> int:
    from core.store import Project
    from core.teamwork.conflicts import list_conflicts
    from core.teamwork.values import describe

    with Project.open(args.project, readonly=True) as project:
        found = list_conflicts(project, None if args.all else "open")
    if args.json:
        print_json([_conflict_json(c) for c in found])
        return 0
    if not found:
        print("No conflicts." if args.all else "No open conflicts.")
    for c in found:
        print(f"#{c.id} {c.title} [{c.status}]: project ({c.ours_by}): "
              f"{describe(c.field, c.current)}  |  {c.curator}: {describe(c.field, c.theirs)}")
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    from core.curate.commands import EditConflict
    from core.store import Project
    from core.teamwork.conflicts import ResolveConflict, get_conflict

    with Project.open(args.project) as project:
        try:
            command = ResolveConflict(get_conflict(project, args.conflict), args.choice)
            command.do(project)
        except KeyError as exc:
            raise CliError(str(exc.args[0])) from None
        except EditConflict as exc:
            raise CliError(str(exc)) from None
    print(command.label)
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    from core.store import Project
    from core.teamwork.agreement import agreement, splits

    with Project.open(args.project, readonly=True) as project:
        known = splits(project)
        if not known:
            raise CliError(f"{args.project.name} has no split (winnow curate split)")
        name = args.split_name or known[0][0]
        try:
            report = agreement(project, name)
        except KeyError as exc:
            raise CliError(str(exc.args[0])) from None
    if args.json:
        print_json(report.to_json())
        return 0
    print(f"Split {report.split!r}: {report.overlap_samples} shared sample(s) from "
          f"{report.packages_merged} merged package(s); {report.open_conflicts} open "
          "conflict(s)")
    for f in report.fields:
        alpha = "—" if f.alpha is None else f"{f.alpha:.3f}"
        print(f"  {f.field}: α = {alpha} over {f.units} unit(s)"
              + (f" ({f.note})" if f.note else ""))
    return 0
