"""Headless command line: ``winnow SUBCOMMAND ...``.

Each group of subcommands lives in its own ``app/cli_*.py`` module exposing
``register(subparsers)``; every handler returns an exit status.  Errors a user can
fix are printed as one clear line on stderr with a non-zero exit.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from typing import Any

from core import __version__

#: Modules that contribute subcommands (each has ``register(subparsers)``).
COMMAND_MODULES = [
    "app.cli_project",
    "app.cli_stats",
    "app.cli_curate",
    "app.cli_anonymize",
    "app.cli_rating",
    "app.cli_metrics",
    "app.cli_interop",
    "app.cli_propose",
    "app.cli_team",
]


class CliError(Exception):
    """A problem with the user's input: printed without a traceback, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="winnow",
        description="Winnow: curate, anonymize, rate and analyse image-generation "
        "benchmarks. Run without arguments to open the app.",
    )
    parser.add_argument("--version", action="version", version=f"winnow {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


#: what a terminal would act on rather than show: C0/C1 controls (escape sequences,
#: bells) but newline and tab, and the direction overrides that make text read otherwise
_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                     "\u2066-\u2069]")


def shown(text: str) -> str:
    """``text`` safe for a terminal: file names, rater names and the like come from other
    people's machines; what a terminal would act on is written as ``\\x1b``, ``\\u202e``."""
    return _HIDDEN.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def print_json(data: Any) -> None:
    """Write ``data`` as JSON on stdout (UTF-8, no ASCII escaping)."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n")


def run_cli(argv: list[str]) -> int:
    """Parse ``argv`` and run the chosen subcommand."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    from core.extras import ExtraMissingError
    from core.store.errors import ProjectError

    try:
        return int(handler(args) or 0)
    except (CliError, ProjectError, ExtraMissingError, OSError, ValueError) as exc:
        print(shown(f"winnow {args.command}: error: {exc}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("winnow: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a database error met mid-command: a damaged page, a full disk
        from core.store.errors import as_project_error

        project = getattr(args, "project", None)
        error = as_project_error(exc, str(project) if project else "the project")
        if error is None:
            raise
        print(f"winnow {args.command}: error: {error}", file=sys.stderr)
        return 2
