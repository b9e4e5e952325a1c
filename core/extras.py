"""Optional parts of Winnow (pip extras) and the one message a user sees when one is missing.

The base install curates, rates and analyses.  ``anonymize`` adds face and plate
detection (onnxruntime, rapidocr, dlib, OpenCV); ``metrics`` adds the local metrics
(torch, transformers, dlib's face models, and the OCR of ``anonymize``); ``parquet``
adds pyarrow for Hugging Face dataset folders and parquet results (and fast reading of
huge vote CSVs, which fall back to the standard library without it).  Code that
needs an extra calls :func:`require` before importing it, so a missing extra is an
:class:`ExtraMissingError` naming the extra and the command that installs it — never an
``ImportError`` traceback.  Nothing here imports the extras themselves (``find_spec``
only), so asking is cheap.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Extra:
    """One optional part: its pip extra name, what it enables, the modules it provides."""

    name: str
    enables: str
    modules: tuple[str, ...]


_ANONYMIZE = ("onnxruntime", "rapidocr", "dlib", "cv2")
EXTRAS: dict[str, Extra] = {
    "anonymize": Extra("anonymize", "face and licence-plate detection and the release of "
                       "anonymized photos", _ANONYMIZE),
    "metrics": Extra("metrics", "the local metrics (CLIPScore, structure distance, face "
                     "identity, text rendering)",
                     ("torch", "transformers", "face_recognition_models", *_ANONYMIZE)),
    "parquet": Extra("parquet", "Hugging Face dataset folders and parquet files",
                     ("pyarrow",)),
    "keyring": Extra("keyring", "keeping API keys in the OS keyring", ("keyring",)),
}


class ExtraMissingError(RuntimeError):
    """A feature needs an optional part of Winnow that is not installed (message says how)."""

    def __init__(self, extra: str, message: str) -> None:
        super().__init__(message)
        self.extra = extra


def _present(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a half-installed one
        return False


def missing_modules(name: str) -> list[str]:
    """The modules of extra ``name`` that cannot be found here (empty = installed)."""
    return [m for m in EXTRAS[name].modules if not _present(m)]


def available(name: str) -> bool:
    """True when every module of extra ``name`` is installed."""
    return not missing_modules(name)


def _quote(args: list[str]) -> str:
    import shlex
    import subprocess

    return subprocess.list2cmdline(args) if os.name == "nt" else shlex.join(args)


def _installed_from() -> tuple[Path, bool] | None:
    """``(source, editable)`` when Winnow was installed from a local folder or wheel."""
    import json
    from importlib import metadata
    from urllib.parse import unquote, urlparse

    try:
        info = json.loads(metadata.distribution("winnow").read_text("direct_url.json") or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        info = {}
    url = urlparse(info.get("url", ""))
    if url.scheme == "file":
        path = Path(unquote(url.path.lstrip("/") if os.name == "nt" else url.path))
        return path, bool(info.get("dir_info", {}).get("editable"))
    root = Path(__file__).resolve().parent.parent  # running from a checkout (PYTHONPATH)
    return (root, True) if (root / "pyproject.toml").is_file() else None


def install_command(name: str) -> str:
    """The one command that installs extra ``name`` into the Python running Winnow."""
    pip = [sys.executable, "-m", "pip", "install"]
    source = _installed_from()
    if source is None:
        return _quote([*pip, f"winnow[{name}]"])
    path, editable = source
    constraints = path / "packaging" / "constraints.txt"
    if constraints.is_file():
        pip += ["-c", str(constraints)]
    if editable and path.is_dir():
        pip.append("-e")
    return _quote([*pip, f"{path}[{name}]"])  # a folder or a wheel file, with the extra


def missing_message(name: str, feature: str | None = None) -> str:
    """What to tell the user when extra ``name`` is missing (one paragraph, plain text)."""
    extra = EXTRAS[name]
    what = feature or extra.enables[0].upper() + extra.enables[1:]
    lost = ", ".join(missing_modules(name)) or "none"
    if getattr(sys, "frozen", False):
        return (f"{what} needs the optional '{name}' part of Winnow, which this build "
                f"does not include (missing: {lost}). Use an edition of Winnow that "
                f"includes it, or a Python install with: pip install \"winnow[{name}]\"")
    return (f"{what} needs the optional '{name}' part of Winnow, which is not installed "
            f"(missing: {lost}). Install it with:\n  {install_command(name)}")


def require(name: str, feature: str | None = None) -> None:
    """Raise :class:`ExtraMissingError` unless extra ``name`` is installed."""
    if not available(name):
        raise ExtraMissingError(name, missing_message(name, feature))
