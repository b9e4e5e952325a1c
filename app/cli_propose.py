"""``winnow propose``: VLM proposals for raw posts (ECHO's curation pipeline, issue 19).

    winnow propose P.winnow --url URL --model M [--what prompt,roles,…] [--posts QUERY]
    winnow propose report P.winnow
    winnow propose templates P.winnow [--kind K]
    winnow propose template P.winnow --kind K --user FILE [--system FILE] [--note TEXT]

The API key comes from WINNOW_PROPOSE_API_KEY or the OS keyring (never the project).
Exit status 1 when any proposal asked for could not be made (they are listed).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from app.cli import CliError, print_json, read_small_text

ACTIONS = ("report", "templates", "template")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``winnow propose``."""
    from core.propose.kinds import KINDS
    from core.propose.store import QUERY_HELP

    p = subparsers.add_parser(
        "propose", help="ask a vision-language model to propose samples from raw posts",
        description="Send each selected post to a VLM at an OpenAI-compatible endpoint "
        "(vLLM, llama.cpp, Ollama, a hosted API) and write its proposals into samples, "
        "marked machine-made until a curator accepts or corrects them. Also: "
        "'winnow propose report P' (how good the proposals are), 'winnow propose "
        "templates P' (the instructions and their versions), 'winnow propose template P "
        "--kind K --user FILE' (save a new version). The key comes from "
        "WINNOW_PROPOSE_API_KEY or the OS keyring.")
    p.add_argument("project", help="the .winnow project (or: report | templates | template)")
    p.add_argument("more", nargs="?", help=argparse.SUPPRESS)
    p.add_argument("--what", default=",".join(KINDS),
                   help=f"comma-separated kinds (default all): {', '.join(KINDS)}")
    p.add_argument("--posts", default="raw", help=QUERY_HELP)
    p.add_argument("--limit", type=_at_least_one, help="at most this many posts")
    g = p.add_argument_group("endpoint")
    g.add_argument("--url", default=os.environ.get("WINNOW_PROPOSE_URL", ""),
                   help="base URL, e.g. http://localhost:8000/v1 (or WINNOW_PROPOSE_URL)")
    g.add_argument("--model", default=os.environ.get("WINNOW_PROPOSE_MODEL", ""),
                   help="model name (or WINNOW_PROPOSE_MODEL)")
    g.add_argument("--concurrency", type=int, default=8, help="requests in flight (8)")
    g.add_argument("--timeout", type=float, default=120.0, help="seconds per request (120)")
    g.add_argument("--max-tokens", type=int, default=1024)
    g.add_argument("--temperature", type=float, default=0.0)
    g.add_argument("--structured", default="auto",
                   choices=("auto", "json_schema", "json_object", "off"),
                   help="structured outputs: auto tries json_schema, then json_object, "
                        "then none (Winnow validates every answer either way)")
    g.add_argument("--price-in", type=float, help="price per million prompt tokens, "
                   "when the server reports no cost")
    g.add_argument("--price-out", type=float, help="price per million completion tokens")
    g.add_argument("--kind", help="templates/template: the proposal kind")
    g.add_argument("--user", type=Path, help="template: file with the instruction text")
    g.add_argument("--system", type=Path, help="template: file with the system text")
    g.add_argument("--note", default="", help="template: what changed")
    p.set_defaults(handler=cmd_propose)


def _at_least_one(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def _progress(state: Any) -> None:
    pct = int(100 * (state.fraction or 0))
    sys.stderr.write(f"\r{state.status[:70]:<70} {pct:3d}%")
    sys.stderr.flush()


def _open(path_text: str | None, readonly: bool = False) -> Any:
    from core.store import Project

    if not path_text:
        raise CliError("name the project file")
    path = Path(path_text)
    if not path.exists():
        raise CliError(f"no project at {path}")
    return Project.open(path, readonly=readonly)


def cmd_propose(args: argparse.Namespace) -> int:
    if args.project in ACTIONS:
        action, args.project = args.project, args.more
        return {"report": _report, "templates": _templates, "template": _template}[action](args)
    if args.more:
        raise CliError(f"unexpected argument {args.more!r}")
    from core.jobs import JobState
    from core.propose.client import EndpointError, ProposeEndpoint
    from core.propose.job import IN_PACKAGE, run_proposals
    from core.propose.kinds import parse_kinds
    from core.propose.secrets import api_key
    from core.propose.store import select_posts
    from core.teamwork.package import refuse_package

    kinds = parse_kinds(args.what)
    key, _source = api_key(args.url)
    endpoint = ProposeEndpoint(
        args.url, args.model, key, concurrency=args.concurrency, timeout=args.timeout,
        max_tokens=args.max_tokens, temperature=args.temperature, structured=args.structured,
        price_in=args.price_in, price_out=args.price_out)
    with _open(args.project) as project:
        refuse_package(project, *IN_PACKAGE)  # whatever the posts chosen (ADR 228)
        posts = select_posts(project, args.posts)
        if args.limit is not None:
            posts = posts[:args.limit]
        if not posts:
            print_json({"posts": 0, "note": f"no post matches {args.posts!r}"})
            return 0
        state = JobState(title="Propose")
        if sys.stderr.isatty():
            state.subscribe(_progress)
        try:
            report = run_proposals(project, endpoint, kinds, posts, state,
                                   posts_label=args.posts)
        except EndpointError as exc:
            raise CliError(str(exc)) from None
        finally:
            if sys.stderr.isatty():
                sys.stderr.write("\n")
    print_json(report.to_json())
    return 1 if report.failed else 0


def _report(args: argparse.Namespace) -> int:
    from core.propose.report import build

    with _open(args.project, readonly=True) as project:
        if not _has_proposals(project):
            print_json({"note": "this project has no proposals yet (winnow propose P ...)"})
            return 0
        print_json(build(project).to_json())
    return 0


def _has_proposals(project: Any) -> bool:
    from core.propose.store import has_proposal_tables

    return has_proposal_tables(project)


def _templates(args: argparse.Namespace) -> int:
    from core.propose.kinds import KINDS, parse_kinds
    from core.propose.templates import builtin, versions

    kinds = parse_kinds(args.kind) if args.kind else KINDS
    with _open(args.project, readonly=True) as project:
        saved = _has_proposals(project)
        out = {k: [{"version": t.version, "saved": t.id is not None, "created_at": t.created_at,
                    "created_by": t.created_by, "note": t.note, "system": t.system,
                    "user": t.user} for t in (versions(project, k) if saved else [builtin(k)])]
               for k in kinds}
    print_json(out)
    return 0


def _template(args: argparse.Namespace) -> int:
    from core.propose.kinds import parse_kinds
    from core.propose.templates import current, save_version, unknown_placeholders

    if not args.kind or args.user is None:
        raise CliError("give --kind and --user FILE (and optionally --system FILE)")
    (kind,) = parse_kinds(args.kind)
    user = read_small_text(args.user, "--user")  # a pipe waited for ever
    system = read_small_text(args.system, "--system") if args.system else None
    with _open(args.project) as project:
        system = system if system is not None else current(project, kind).system
        saved = save_version(project, kind, system, user, args.note)
    typos = unknown_placeholders(user + system)
    print_json({"kind": kind, "version": saved.version,
                "unknown_placeholders": typos})
    return 0
