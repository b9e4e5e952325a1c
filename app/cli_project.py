"""Project subcommands: ``info``, ``import``, ``demo``."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add project-level commands."""
