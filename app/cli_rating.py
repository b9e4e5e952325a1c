"""``winnow session ...`` and ``winnow rate FILE``: offline rating sessions (SPEC §5)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.cli import CliError, print_json, read_small_text, seed_arg

#: share of gold tasks when gold is asked for without a rate
DEFAULT_GOLD_RATE = 0.1


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``session create|merge|results|summary|audit|list`` and ``rate``."""
    session = subparsers.add_parser("session", help="design, merge and export rating sessions")
    cmds = session.add_subparsers(dest="session_command", metavar="ACTION", required=True)

    create = cmds.add_parser("create", help="design a session and write one file per rater")
    create.add_argument("project", type=Path)
    create.add_argument("--name", required=True)
    create.add_argument("--protocol", required=True,
                        choices=["ranking", "likert", "side_by_side", "checklist"])
    create.add_argument("--out", type=Path, required=True, help="folder for the rater files")
    create.add_argument("--models", help="comma-separated models (default: all with outputs)")
    create.add_argument("--samples", help="comma-separated sample ids (default: the filter)")
    create.add_argument("--quality", help="filter: comma-separated Benchmark,Analysis,Trash")
    create.add_argument("--split", choices=["text-to-image", "image-to-image"])
    create.add_argument("--tag", help="filter: samples with this tag")
    create.add_argument("--text", default="", help="filter: full-text query over prompts")
    create.add_argument("--raters", type=int, default=3)
    create.add_argument("--overlap", type=int, default=1, help="raters per task")
    create.add_argument("--tasks-per-rater", type=int)
    create.add_argument("--gold", choices=["none", "auto", "marked"], default=None,
                        help="gold (validation) tasks: auto = Winnow makes obvious ones, "
                        "marked = known answers from --gold-file (default: auto when "
                        "--gold-rate is given, else none)")
    create.add_argument("--gold-rate", type=float, default=None,
                        help="fraction of each rater's tasks that are gold (0-0.5; "
                        f"default {DEFAULT_GOLD_RATE} when --gold auto/marked is given)")
    create.add_argument("--gold-file", type=Path,
                        help="JSON list of known answers, e.g. "
                             '[{"sample": "s1", "better": "m1", "worse": "m2"}]; each is '
                             "one gold task for --overlap raters, like any task, and is "
                             "not also rated as a real task; with few answers a file may "
                             "get fewer gold tasks than the rate")
    create.add_argument("--min-time", type=float, default=0.0, help="seconds per task")
    create.add_argument("--penalty", type=float, default=5.0, help="seconds of penalty delay")
    create.add_argument("--ties", action="store_true", help="rankings may tie")
    create.add_argument("--no-tie", action="store_true", help="side-by-side without a tie")
    create.add_argument("--criteria", default="preference",
                        help="side-by-side: preference,coherence,alignment,overall")
    create.add_argument("--questions", type=Path, help="checklist: file with six lines")
    create.add_argument("--instructions", default="")
    create.add_argument("--seed", type=seed_arg, default=0)
    create.add_argument("--json", action="store_true")
    create.set_defaults(handler=cmd_create)

    merge = cmds.add_parser("merge", help="merge returned rater files into the project")
    merge.add_argument("project", type=Path)
    merge.add_argument("files", type=Path, nargs="+")
    merge.add_argument("--json", action="store_true")
    merge.set_defaults(handler=cmd_merge)

    results = cmds.add_parser("results", help="export results as the CSV `winnow stats` reads "
                              "(ranking: rater,item,model,rank; Likert: rater,unit,model,"
                              "criterion,value; side-by-side: a,b,winner,rater,item,"
                              "criterion; checklist: model,category,subtask,case,q1..q6)")
    results.add_argument("project", type=Path)
    results.add_argument("--session", required=True)
    results.add_argument("--out", type=Path, required=True)
    results.add_argument("--criterion", help="side-by-side sessions with several questions")
    results.add_argument("--format", choices=("csv", "parquet"),
                         help="default: parquet for a .parquet file name, else csv (ADR 103)")
    results.set_defaults(handler=cmd_results)

    summary = cmds.add_parser("summary", help="per-rater progress, gold accuracy, time, flags")
    summary.add_argument("project", type=Path)
    summary.add_argument("--session", required=True)
    summary.set_defaults(handler=cmd_summary)

    audit = cmds.add_parser("audit", help="check a rater file as a curious rater would attack "
                            "it: formats, metadata, sizes, encoder tables, ordering, and (with "
                            "--project) MACs and anything that predicts model or gold; exit 1 "
                            "on findings")
    audit.add_argument("file", type=Path)
    audit.add_argument("--project", type=Path, help="the project that wrote the file")
    audit.add_argument("--json", action="store_true")
    audit.set_defaults(handler=cmd_audit)

    listing = cmds.add_parser("list", help="list the project's rating sessions")
    listing.add_argument("project", type=Path)
    listing.set_defaults(handler=cmd_list)

    rate = subparsers.add_parser("rate", help="open a .winnow-session file in the rater view")
    rate.add_argument("file", type=Path)
    rate.set_defaults(handler=cmd_rate)


def _split(text: str | None) -> list[str]:
    return [x.strip() for x in (text or "").split(",") if x.strip()]


def _gold_items(path: Path) -> tuple[dict, ...]:
    """The known answers of ``--gold-file``: a JSON list of objects."""
    try:
        items = json.loads(read_small_text(path, "--gold-file"))
    except (ValueError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise CliError(f"{path}: not valid JSON ({why})") from None
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise CliError(f"{path}: expected a JSON list of objects, e.g. "
                       '[{"sample": "s1", "better": "m1", "worse": "m2"}]')
    return tuple(items)


def cmd_create(args: argparse.Namespace) -> int:
    """``winnow session create P --name N --protocol X --out DIR ...``."""
    from core.ingest.outputs import output_models
    from core.rating.design import SessionDesign
    from core.rating.protocols import CHECKLIST_QUESTIONS
    from core.rating.session_admin import rater_task_counts
    from core.rating.sessions import create_and_write
    from core.selection import SampleFilter
    from core.store import Project

    gold = args.gold or ("marked" if args.gold_file else "auto" if args.gold_rate else "none")
    gold_rate = args.gold_rate if args.gold_rate is not None else (
        DEFAULT_GOLD_RATE if gold != "none" else 0.0)
    with Project.open(args.project) as project:
        models = _split(args.models) or output_models(project)
        unknown = sorted(set(models) - set(output_models(project)))
        if unknown:
            raise CliError(f"no outputs imported for model(s) {', '.join(unknown)}")
        if args.samples:
            sample_ids = _split(args.samples)
            found = set(SampleFilter(ids=tuple(sample_ids)).sample_ids(project))
            missing = [sid for sid in dict.fromkeys(sample_ids) if sid not in found]
            if missing:
                more = f" and {len(missing) - 5:,} more" if len(missing) > 5 else ""
                raise CliError(f"no such sample(s) in the project: "
                               f"{', '.join(map(repr, missing[:5]))}{more}")
        else:
            quality = tuple(_split(args.quality))
            sample_ids = SampleFilter(quality=quality, split=args.split, tag=args.tag,
                                      text=args.text).sample_ids(project)
        gold_items: tuple = ()
        if args.gold_file:
            gold_items = _gold_items(args.gold_file)
        questions: tuple[str, ...] = CHECKLIST_QUESTIONS
        if args.questions:
            questions = tuple(line.strip() for line in
                              read_small_text(args.questions, "--questions").splitlines()
                              if line.strip())
        design = SessionDesign(
            name=args.name, protocol=args.protocol, sample_ids=tuple(sample_ids),
            models=tuple(models), raters=args.raters, overlap=args.overlap,
            tasks_per_rater=args.tasks_per_rater, gold_rate=gold_rate,
            gold_mode="marked" if gold_items and gold == "auto" else gold,
            gold_items=gold_items, min_time_s=args.min_time, penalty_s=args.penalty,
            allow_ties=args.ties, allow_tie=not args.no_tie,
            criteria=tuple(_split(args.criteria)), questions=questions,
            instructions=args.instructions, seed=args.seed)
        files = create_and_write(project, design, args.out)
        tasks = rater_task_counts(project, design.name)
    data = {"session": design.name, "protocol": design.protocol, "seed": design.seed,
            "files": [str(f) for f in files],
            "raters": {slot: {"tasks": n, "gold": g} for slot, n, g in tasks}}
    if args.json:
        print_json(data)
    else:
        print(f"Session {design.name!r} ({design.protocol}, seed {design.seed}): "
              f"{len(files)} rater file(s) in {args.out}")
        for slot, n, g in tasks:
            print(f"  {slot}: {n} tasks ({g} gold)")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    """``winnow session merge P FILE...``: exit 1 if any file was refused."""
    from core.rating.merge import merge_files
    from core.store import Project

    with Project.open(args.project) as project:
        results, errors = merge_files(project, args.files)
    if args.json:
        print_json({"merged": [r.__dict__ for r in results], "refused": errors})
    else:
        for r in results:
            print(r.summary())
    for err in errors:
        print(f"winnow session merge: refused: {err}", file=sys.stderr)
    return 1 if errors else 0


def cmd_results(args: argparse.Namespace) -> int:
    """``winnow session results P --session NAME --out FILE.csv``."""
    from core.interop.parquet import export_results_parquet, format_for
    from core.rating.results import export_results
    from core.store import Project

    with Project.open(args.project, readonly=True) as project:
        if format_for(args.out, args.format) == "parquet":
            n = export_results_parquet(project, args.session, args.out, args.criterion)
        else:
            n = export_results(project, args.session, args.out, criterion=args.criterion)
    print(f"{n} row(s) written to {args.out}")
    return 0


def cmd_summary(args: argparse.Namespace) -> int:
    """``winnow session summary P --session NAME``: JSON per rater."""
    from core.rating.results import rater_summaries
    from core.store import Project

    with Project.open(args.project, readonly=True) as project:
        print_json([s.to_json() for s in rater_summaries(project, args.session)])
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """``winnow session list P``."""
    from core.rating.sessions import list_sessions
    from core.store import Project

    with Project.open(args.project, readonly=True) as project:
        print_json([{"name": s.name, "protocol": s.protocol, "seed": s.design.seed,
                     "raters": s.raters, "tasks": s.tasks, "judgments": s.judgments,
                     "created_at": s.created_at} for s in list_sessions(project)])
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    """``winnow session audit FILE [--project P]``: exit 1 when anything was found."""
    from core.rating.audit import audit_file, format_audit
    from core.store import Project

    if args.project is not None:
        with Project.open(args.project, readonly=True) as project:
            result = audit_file(args.file, project)
    else:
        result = audit_file(args.file)
    if args.json:
        print_json(result.to_json())
    else:
        print(format_audit(result))
    return 1 if result.findings else 0


def cmd_rate(args: argparse.Namespace) -> int:
    """``winnow rate FILE``: the rater view, without the rest of the app.

    The file is checked (read-only) before anything opens, and a missing display is the
    same message plain ``winnow`` gives, so nothing is written when rating cannot start.
    """
    from app.gui import NO_DISPLAY, has_display
    from core.rating.rater_open import open_for_rating
    from core.rating.returned import check_rateable

    if not args.file.exists():
        raise CliError(f"no session file at {args.file}")
    check_rateable(args.file)
    if not has_display():
        print(NO_DISPLAY, file=sys.stderr)
        return 2
    session = open_for_rating(args.file)
    from app.gui import create_application

    app = create_application()
    from app.errors import router, setup_logging
    from ui.rate.rater import RaterWindow
    from ui.widgets.screen import fitted_size

    setup_logging()
    router.install()
    window = RaterWindow(session)
    window.resize(*fitted_size(1400, 900))
    window.show()
    try:
        app.exec()
    finally:
        router.uninstall()
    return 0
