"""Where `winnow anonymize`'s time goes per photo: detection, then each part of the release.

For the photos of ``bench_anonymize_speed.py`` (``1mp`` or ``12mp``), runs what
``core.imaging.batch`` runs per photo (``detect_all``, then ``render_verified`` of what it
found, blurred) and adds up, per phase, the wall seconds and the model runs made:
CenterFace runs by input shape, text detector runs, recogniser crops. Phases: detect,
render (hiding + geometry), encode, decode, the check's faces
(``detect.faces_any_way_up``), the check's text around plate regions and outside every
region (``plate_check``). Also the render rounds per photo (ADR 203).

    .venv/bin/python benchmarks/profile_release_check.py 1mp

One process, one pass after a warm-up: shares, not medians (``bench_anonymize_speed.py``
measures). The load average is printed before and after. The check's two halves run
one after the other here (ADR 220 runs them at once), so each phase's time is its own.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

PHASES = {  # (module, function) timed as a phase of its own
    ("core.imaging.detect", "faces_any_way_up"): "check: faces",
    ("core.imaging.plate_check", "around_region"): "check: text around regions",
    ("core.imaging.plate_check", "outside_regions"): "check: text outside regions",
    ("core.imaging.release", "render"): "render",
    ("core.imaging.release", "encode_clean"): "encode",
    ("core.imaging.loading", "decode_rgb"): "decode",
}


class Tally:
    """Seconds and model runs per phase."""

    def __init__(self) -> None:
        self.phase = "other"
        self.seconds: dict[str, float] = defaultdict(float)
        self.runs: dict[str, Counter[str]] = defaultdict(Counter)
        self.rounds = 0  # render rounds (checks) so far

    def timed(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn``, its wall time added to phase ``name`` (nested phases: the innermost)."""
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            outer, self.phase = self.phase, name
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[name] += time.perf_counter() - start
                if outer != "other":
                    self.seconds[outer] -= time.perf_counter() - start
                self.phase = outer
        return wrapper

    def counted(self, what: Callable[..., str], fn: Callable[..., Any],
                many: Callable[..., int] = lambda *_a, **_k: 1) -> Callable[..., Any]:
        """``fn``, each call counted (``many(*args)`` times) under ``what(*args)`` in the
        current phase."""
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            self.runs[self.phase][what(*args, **kwargs)] += many(*args, **kwargs)
            return fn(*args, **kwargs)
        return wrapper


def instrument(tally: Tally) -> None:
    """Wrap the phases and the model runs (where they are looked up at call time)."""
    import importlib

    from core.imaging import faces, ocr, plates, release

    # the check's face and text halves one after the other, so each phase's seconds are
    # its own (``winnow anonymize`` runs them at once, ADR 220)
    release.check_lanes = lambda: 1
    for (module, name), phase in PHASES.items():
        mod = importlib.import_module(module)
        setattr(mod, name, tally.timed(phase, getattr(mod, name)))
    faces.centerface_raw = tally.counted(
        lambda rgb, *_a, **_k: f"CenterFace {rgb.shape[1]}×{rgb.shape[0]}", faces.centerface_raw)
    for mod in (ocr, plates):  # plates imported text_probability by name
        mod.text_probability = tally.counted(
            lambda rgb, side, *_a, **_k: "text detector " + (
                "working scale" if side >= 1000 else "≥ 320 px" if side >= 320 else "crops"),
            mod.text_probability)
    ocr.recognise = tally.counted(lambda *_a, **_k: "recogniser crops", ocr.recognise,
                                  lambda crops, *_a, **_k: len(crops))
    verify = release.verify

    def counted_round(*args: Any, **kwargs: Any) -> Any:
        tally.rounds += 1
        return verify(*args, **kwargs)

    release.verify = counted_round


def main() -> int:
    case = sys.argv[1] if len(sys.argv) > 1 else "1mp"
    from benchmarks.bench_anonymize_speed import photos
    from core.imaging.anonymize import HideSpec
    from core.imaging.detect import DetectSettings, detect_all
    from core.imaging.geometry import Geometry
    from core.imaging.release import RenderJob, render_verified

    settings = DetectSettings()
    images = photos(case)
    detect_all(images[0][:640, :640].copy(), settings)  # warm-up: sessions
    load_before = os.getloadavg()[0]
    tally = Tally()
    instrument(tally)
    rounds = []
    for rgb in images:
        found = tally.timed("detect", detect_all)(rgb, settings)
        job = RenderJob(rgb, [HideSpec(d.x, d.y, d.w, d.h, "rect", "blur") for d in found],
                        [f"#{i + 1} ({d.kind})" for i, d in enumerate(found)], Geometry())
        before = tally.rounds
        tally.timed("release, rest", render_verified)(job, settings)
        rounds.append(tally.rounds - before)
    print(f"{case}: {len(images)} photo(s), render rounds {rounds}")
    for phase, seconds in sorted(tally.seconds.items(), key=lambda kv: -kv[1]):
        runs = ", ".join(f"{k} × {n}" for k, n in sorted(tally.runs[phase].items()))
        print(f"  {phase:30s} {seconds:6.2f} s  {runs}")
    print(f"load average {load_before:.1f} → {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
