"""The safety tests that need ../shared/testdata never skip silently: a missing corpus is
a skip that says what is missing and where to get it, and a failure when ``CI`` is set."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from shared_data import TESTDATA, in_ci

REPO = Path(__file__).resolve().parent.parent
SAFETY = ["tests/anonymize/test_anonymize_detection.py::test_dogs_are_not_faces",
          "tests/metrics/test_dlib_resnet.py::test_torch_descriptors_equal_dlibs"]


def _pytest(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, WINNOW_TESTDATA=str(tmp_path / "no-corpus-here"),
               QT_QPA_PLATFORM="offscreen")
    env.pop("CI", None)
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rsf", "-p",
                           "no:cacheprovider", *SAFETY], capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=300)


def test_missing_corpus_skips_with_what_and_where(tmp_path: Path) -> None:
    done = _pytest(tmp_path, None)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 skipped" in done.stdout
    assert "no-corpus-here/faces does not exist" in done.stdout
    assert "shared/testdata" in done.stdout and "WINNOW_TESTDATA" in done.stdout


@pytest.mark.parametrize("value", ["true", "1"])
def test_missing_corpus_fails_in_ci(tmp_path: Path, value: str) -> None:
    done = _pytest(tmp_path, value)
    assert done.returncode == 1, done.stdout + done.stderr
    # the detection test fails in its body, the dlib-port test in its fixture (an error)
    assert "1 failed, 1 error" in done.stdout and "skipped" not in done.stdout
    assert "a safety test that cannot run is a failure" in done.stdout


def test_ci_has_the_corpus() -> None:
    """In CI the corpus must be where the tests look (the clone has shared/ beside it)."""
    if not in_ci():
        pytest.skip("only meaningful on CI (CI is not set)")
    assert (TESTDATA / "faces").is_dir() and (TESTDATA / "plates").is_dir(), TESTDATA
