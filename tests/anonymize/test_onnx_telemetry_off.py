"""onnxruntime's telemetry stays off in every Winnow model session (ADR 230).

Its Linux wheel writes a device identifier and an event store under
``$XDG_CACHE_HOME/Microsoft/DeveloperTools/.onnxruntime`` on the first session and
uploads events to Microsoft unless ``ORT_DISABLE_TELEMETRY`` is set before it starts.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

RUN_MODELS = """
import numpy as np
from core.imaging import faces, ocr
faces.centerface_raw(np.zeros((64, 64, 3), np.uint8), 0.2)
try:
    ocr.ppocr_session(ocr.DET_MODEL, "det")
except Exception as exc:  # rapidocr absent: CenterFace alone is the check
    print("no text detector:", exc)
try:
    from core.metrics.text_rendering import OcrEngine
    OcrEngine().read(np.zeros((32, 96, 3), np.uint8))
except ImportError as exc:
    print("no rapidocr:", exc)
"""


def _clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORT_")}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / "cache"),
               PYTHONPATH=str(REPO), QT_QPA_PLATFORM="offscreen")
    return env


def _written(home: Path) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())


def test_no_model_session_writes_onnxruntime_telemetry_files(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    from core.imaging import faces

    if faces.centerface_model_path() is None:
        pytest.skip("CenterFace is not installed")
    home = tmp_path / "home"
    home.mkdir()
    done = subprocess.run([sys.executable, "-c", RUN_MODELS], env=_clean_env(home), cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert _written(home) == []  # was: cache/Microsoft/DeveloperTools/.onnxruntime/{deviceid,onnxruntime.db}


def test_the_runtime_left_alone_would_write_them(tmp_path: Path) -> None:
    """The check above can fail: the same runtime imported plainly writes its device id."""
    pytest.importorskip("onnxruntime")
    from core.imaging import faces

    path = faces.centerface_model_path()
    if path is None:
        pytest.skip("CenterFace is not installed")
    home = tmp_path / "home"
    home.mkdir()
    code = ("import onnxruntime as ort, numpy as np\n"
            f"s = ort.InferenceSession({str(path)!r}, providers=['CPUExecutionProvider'])\n")
    done = subprocess.run([sys.executable, "-c", code], env=_clean_env(home), cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    if not _written(home):
        pytest.skip("this onnxruntime build carries no telemetry")
    assert any("onnxruntime" in name for name in _written(home))


def test_onnxruntime_and_rapidocr_are_imported_only_through_the_one_helper() -> None:
    plain = re.compile(r"^\s*(import onnxruntime|from onnxruntime\b)", re.M)
    rapid = re.compile(r"^\s*(from rapidocr\b|import rapidocr\b)", re.M)
    offenders = []
    for folder in ("core", "ui", "app"):
        for path in (REPO / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if path.name != "onnx_runtime.py" and plain.search(text):
                offenders.append(f"{path.relative_to(REPO)} imports onnxruntime itself")
            for match in rapid.finditer(text):
                before = text[:match.start()].splitlines()[-4:]
                if not any("onnxruntime()" in line for line in before):
                    offenders.append(f"{path.relative_to(REPO)} imports rapidocr before "
                                     "core.onnx_runtime.onnxruntime()")
    assert offenders == []
