"""Issue #11: SIGKILL at random moments, at least 20 real kills each for import, export,
anonymize and ``session create``; after every kill ``PRAGMA integrity_check`` (and whole
files only), then a resumed run that must succeed. See kill_harness.py for how."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from safety_helpers import REPO

KILLS = 20
HARNESS = Path(__file__).with_name("kill_harness.py")

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the harness forks (POSIX)")

_results: dict[str, dict[str, Any]] = {}


def harness(op: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run the harness for ``op`` once per session; its JSON result."""
    if op not in _results:
        work = tmp_path_factory.mktemp(f"kill-{op}")
        done = subprocess.run([sys.executable, str(HARNESS), op, str(work), str(KILLS), "11"],
                              capture_output=True, text=True, timeout=280,
                              env={**os.environ, "PYTHONPATH": str(REPO)})
        assert done.returncode == 0, done.stderr[-4000:]
        _results[op] = json.loads(done.stdout.strip().splitlines()[-1])
    return _results[op]


def _assert_resumed(result: dict[str, Any]) -> None:
    assert result["outcomes"].count("killed") >= KILLS, result["outcomes"]
    assert result["resumed"] == ["finished"] * len(result["resumed"]), result["resumed"]
    assert result["final"], "no run ever finished"


def test_import_killed_at_random_moments(tmp_path_factory) -> None:
    result = harness("import", tmp_path_factory)
    _assert_resumed(result)
    assert result["final"]["posts"] == 20


def test_export_killed_at_random_moments(tmp_path_factory) -> None:
    result = harness("export", tmp_path_factory)
    _assert_resumed(result)
    assert result["final"]["files"] == 1 + 24  # samples.jsonl and every image


@pytest.mark.slow
def test_anonymize_killed_at_random_moments(tmp_path_factory) -> None:
    result = harness("anonymize", tmp_path_factory)
    _assert_resumed(result)
    assert result["final"]["outputs"] == 4


def test_session_create_killed_at_random_moments_leaves_a_sound_project(tmp_path_factory):
    """Every kill leaves a project that passes ``PRAGMA integrity_check`` (checked by the
    harness after each kill) and a run that finishes writes all three rater files."""
    result = harness("session", tmp_path_factory)
    assert result["outcomes"].count("killed") >= KILLS
    assert result["final"]["files"] == [f"study-R{k}.winnow-session" for k in (1, 2, 3)]


def test_session_create_resumes_after_a_kill(tmp_path_factory) -> None:
    _assert_resumed(harness("session", tmp_path_factory))
