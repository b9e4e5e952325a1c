"""Where the shared real-photo corpus is, and what a test does when it (or an extra) is
missing: skip with what is missing and where to get it, or fail when ``CI`` is set.

The corpus is ``shared/testdata`` (faces from dlib's examples, plates from OpenALPR's
benchmarks; ~26 MB, see its README.md), kept beside the repository: ``../shared``
from the checkout, as on the development machines and in CI.  ``WINNOW_TESTDATA``
points at a copy elsewhere.  The face/plate coverage and dlib-port equivalence tests
are safety tests, so CI must never pass them by skipping.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
TESTDATA = Path(os.environ.get("WINNOW_TESTDATA") or SHARED / "testdata")


def in_ci() -> bool:
    """True on CI (``CI`` set to anything but empty/0/false)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing(reason: str) -> None:
    """Skip with ``reason`` — or, in CI, fail with it (a safety test must run there)."""
    if in_ci():
        pytest.fail(f"{reason} [CI is set: a safety test that cannot run is a failure, "
                    "not a skip]", pytrace=False)
    pytest.skip(reason, allow_module_level=True)  # also from a module's top level


def need_testdata(sub: str = "") -> Path:
    """The corpus folder ``sub`` (e.g. ``"faces"``), or :func:`missing` naming it."""
    folder = TESTDATA / sub
    if not folder.is_dir():
        missing(f"real-photo test corpus not found: {folder} does not exist. It is the "
                "project's shared/testdata folder (faces/ from davisking/dlib, plates/ from "
                "openalpr/benchmarks; see its README.md), expected at ../shared/testdata "
                "beside the repository; copy it there or set WINNOW_TESTDATA to its path.")
    return folder


def need_module(module: str, extra: str) -> None:
    """Skip (fail in CI) when ``module`` of the ``extra`` install group is missing."""
    if importlib.util.find_spec(module) is None:
        missing(f"{module} is not installed: it comes with the [{extra}] extra "
                f"(packaging/dev-setup.sh installs everything)")
