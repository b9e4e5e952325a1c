"""Entry point of the ``winnow`` command: no arguments opens the GUI, subcommands run headless."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run Winnow; returns the process exit status."""
    from core import library_env

    library_env.apply()  # before any library loads: caches in Winnow's, no network (ADR 231)
    if getattr(sys, "frozen", False):  # a bundle: a metrics worker process starts here
        import multiprocessing

        multiprocessing.freeze_support()
    args = sys.argv[1:] if argv is None else argv
    if args == ["--version"]:  # answered before any subcommand module is imported
        from core import __version__

        print(f"winnow {__version__}")
        return 0
    if not args or args[0] == "--demo" or args[0].endswith((".winnow", ".winnow-session")):
        from app.gui import run_gui

        return run_gui(args)
    from app.cli import run_cli

    return run_cli(args)


if __name__ == "__main__":
    sys.exit(main())
