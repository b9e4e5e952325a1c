"""Headless bulk anonymization of a folder (``winnow anonymize``): detect, hide, verify, write.

For trusted bulk use without review: every detected region is hidden with one
method, the output carries no metadata, and the report lists every region with
its detector and score and every photo whose verification failed.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from core.imaging.anonymize import HideSpec
from core.imaging.detect import DetectSettings, detect_all
from core.imaging.geometry import Geometry
from core.imaging.loading import PhotoDecodeError, load_rgb
from core.imaging.photos import photo_files
from core.imaging.release import RenderJob, output_format, render_verified, write_atomic


def anonymize_folder(in_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str],
                     method: str = "blur", settings: DetectSettings | None = None,
                     state: Any = None, overwrite: bool = False) -> dict[str, Any]:
    """Anonymize every photo under ``in_dir`` into ``out_dir`` (same relative paths).

    Files already in ``out_dir`` at those paths are never replaced unless
    ``overwrite``: :class:`FileExistsError` names them before anything is written.

    Returns the report: ``photos`` (file, output, regions, verification, ms),
    ``failed`` (files whose verification still found a face) and ``errors``
    (files that could not be read).
    """
    settings = settings or DetectSettings()
    in_dir, out_dir = Path(in_dir), Path(out_dir)
    if out_dir.resolve() == in_dir.resolve():
        raise ValueError("the output folder must differ from the input folder "
                         "(originals are never overwritten)")
    files = photo_files(in_dir)
    if not overwrite:
        taken = [t for t in (out_dir / p.relative_to(in_dir).with_suffix(
            f".{output_format(p.name)}") for p in files) if t.exists()]
        if taken:
            names = ", ".join(str(t) for t in taken[:3]) + (
                f" and {len(taken) - 3} more" if len(taken) > 3 else "")
            raise FileExistsError(f"{len(taken)} output file(s) already exist: {names} "
                                  "(choose another folder, or pass --overwrite)")
    report: dict[str, Any] = {"method": method, "settings": settings.to_json(),
                              "photos": [], "failed": [], "errors": []}
    if state is not None:
        state.set_total(len(files))
    for path in files:
        rel = path.relative_to(in_dir)
        if state is not None:
            state.check()
            state.set_status(str(rel))
        started = time.perf_counter()
        try:
            rgb = load_rgb(path)
        except PhotoDecodeError as exc:
            report["errors"].append({"file": str(rel), "error": str(exc)})
            if state is not None:
                state.advance()
            continue
        found = detect_all(rgb, settings)
        specs = [HideSpec(d.x, d.y, d.w, d.h, "rect", method) for d in found]
        labels = [f"#{i + 1} ({d.kind})" for i, d in enumerate(found)]
        fmt = output_format(path.name)
        data, result = render_verified(RenderJob(rgb, specs, labels, Geometry()), settings,
                                       fmt)
        target = out_dir / rel.with_suffix(f".{fmt}")
        write_atomic(target, data)
        entry = {
            "file": str(rel), "output": str(target),
            "regions": [{"region": labels[i], "kind": d.kind, "detector": d.detector,
                         "score": round(d.score, 4),
                         "box": [round(v, 1) for v in d.box]} for i, d in enumerate(found)],
            "verification": result.to_json(),
            "ms": round(1000 * (time.perf_counter() - started), 1),
        }
        report["photos"].append(entry)
        if not result.ok:
            report["failed"].append({"file": str(rel), "inside": result.inside,
                                     "outside": result.outside})
        if state is not None:
            state.advance()
    return report
