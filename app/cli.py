"""Headless command line: ``winnow SUBCOMMAND ...``.

Each group of subcommands lives in its own ``app/cli_*.py`` module exposing
``register(subparsers)``; every handler returns an exit status.  Errors a user can
fix are printed as one clear line on stderr with a non-zero exit.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any, TextIO

from core import __version__
from core.visible_text import spell_controls, visible

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


#: The largest seed: seeds are stored in the project as SQLite integers (64-bit signed).
MAX_SEED = 2**63 - 1


def seed_arg(text: str) -> int:
    """argparse type of ``--seed``: a whole number from 0 to :data:`MAX_SEED` (a larger
    one ended in an OverflowError traceback, a negative one in numpy's bare error)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(
            f"expected a whole number from 0 to {MAX_SEED}, got {text!r}")
    return value


#: The largest small input file a command reads whole (gold answers, questions, templates).
MAX_SMALL_FILE = 16 * 2**20


def read_small_text(path: Path, what: str) -> str:
    """The UTF-8 text of the small file ``path`` (``what`` it is, for messages), or a
    CliError naming it: a pipe waited for ever, /dev/zero filled the memory."""
    try:
        st = path.stat()
    except OSError as exc:
        raise CliError(f"{what} {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "a pipe, a device or a socket"
        raise CliError(f"{what} {path} is not a regular file ({kind})")
    with open(path, "rb") as fh:
        data = fh.read(MAX_SMALL_FILE + 1)
    if len(data) > MAX_SMALL_FILE:
        raise CliError(f"{what} {path} is larger than {MAX_SMALL_FILE // 2**20} MB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CliError(f"{what} {path} is not UTF-8 text (byte {exc.start:,})") from None


def print_json(data: Any) -> None:
    """Write ``data`` as JSON on stdout (UTF-8, no ASCII escaping but for DEL and the C1
    controls, which JSON leaves raw and a terminal acts on: ``\\u009b``, and for lone
    surrogates, which are not UTF-8: a name that is not, ADR 186)."""
    text = json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False)
    out = getattr(sys.stdout, "raw_text", sys.stdout)  # the exact text: it is data (ADR 160)
    try:
        out.write(_RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")
        out.flush()  # a full disk is met here, where it can be named, not at exit
    except BrokenPipeError:
        raise
    except OSError as exc:  # stdout sent to a full disk or a file that cannot grow
        raise CliError("cannot write the result to standard output ("
                       f"{exc.strerror or exc})") from None


#: DEL, the C1 controls, and lone surrogates (a file name that is not UTF-8, read by
#: Python as surrogate escapes): JSON's \\u escape keeps the output valid UTF-8
_RAW_IN_JSON = re.compile("[\x7f-\x9f\ud800-\udfff]")


class _TerminalSafe:
    """A text stream that spells control characters out (ADR 176), and invisible and
    direction characters (ADR 160): a report quoting a stranger's file name or URL never
    sends an escape sequence to the terminal, nor shows one name as another. A carriage
    return is kept at the start of a write, where progress lines put theirs.
    ``raw_text`` is the stream itself, for JSON (which escapes what it must)."""

    def __init__(self, stream: TextIO) -> None:
        self.raw_text = stream

    def write(self, text: str) -> int:
        head = "\r" if text.startswith("\r") else ""
        return self.raw_text.write(head + spell_controls(visible(text[len(head):])))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw_text, name)


def run_cli(argv: list[str]) -> int:
    """Parse ``argv`` and run the chosen subcommand."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _TerminalSafe(out), _TerminalSafe(err)
    try:
        return _run(args, handler)
    finally:
        sys.stdout, sys.stderr = out, err


def _quiet_stdout() -> None:
    """Point stdout at the null device, so that flushing it at exit raises no second
    BrokenPipeError (Python's documented recipe)."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.__stdout__.fileno() if sys.__stdout__ else 1)
        os.close(fd)
    except (OSError, ValueError):
        pass


#: documented user-facing errors that are not ValueError/OSError (module, class name)
_USER_ERRORS = (("core.metrics.models", "ModelUnavailableError"),
                ("core.imaging.ocr", "TextModelMissingError"),
                ("core.imaging.faces", "ModelMissingError"))


def _user_errors() -> tuple[type[BaseException], ...]:
    """The classes of :data:`_USER_ERRORS` whose modules this run loaded (an error can
    only come from a loaded module, so nothing is imported here)."""
    found = (getattr(sys.modules.get(module), name, None) for module, name in _USER_ERRORS)
    return tuple(cls for cls in found if isinstance(cls, type))


def _run(args: argparse.Namespace, handler: Any) -> int:
    """Run ``handler``; a user's problem is one line on stderr and exit status 2."""
    from core.extras import ExtraMissingError
    from core.store.errors import ProjectError

    try:
        return int(handler(args) or 0)
    except BrokenPipeError:  # `winnow … | head`: the reader has what it wanted
        _quiet_stdout()
        return 141  # as a shell reports a process ended by SIGPIPE
    except (CliError, ProjectError, ExtraMissingError, OSError, ValueError) as exc:
        from app.jobs import describe_error  # "FILE: words", not "[Errno 17] …: 'FILE'"

        print(f"winnow {args.command}: error: {describe_error(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("winnow: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a database error met mid-command: a damaged page, a full disk
        from core.store.errors import as_project_error

        if isinstance(exc, _user_errors()):  # a model that is not installed, say
            print(f"winnow {args.command}: error: {exc}", file=sys.stderr)
            return 2
        project = getattr(args, "project", None)
        error = as_project_error(exc, str(project) if project else "the project")
        if error is None:
            raise
        print(f"winnow {args.command}: error: {error}", file=sys.stderr)
        return 2
