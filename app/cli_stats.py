"""``winnow stats ...`` subcommands (filled by the statistics work)."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``stats`` command group."""
    subparsers.add_parser("stats", help="statistics on CSV files (JSON on stdout)")
