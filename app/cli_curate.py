"""``winnow`` subcommands of the curate feature (registered in app/cli.py)."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add this feature's commands (none yet)."""
