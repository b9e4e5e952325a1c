"""Anonymize with a 10,000-px photo: responsiveness of the window, offscreen.

Drives the real main window on a project holding one big JPEG (default 10,000 × 7,500,
75 MP, 4 face regions) and measures, per repeat:

- open: time until the preview is on screen, then until the full resolution is;
- After: time until a preview-level render is on screen, then the full-resolution one;
- Detect (CenterFace, no plates): time until the progress bar first moves;
- the longest gap between the ticks of a 10-ms GUI timer during each phase (an
  event-loop stall: what a user feels as a frozen window);
- inline, for the ratio: what the GUI thread would block for if it did the same work
  before painting (full decode + QPixmap of the whole photo; hide + geometry + QPixmap).

Usage:  QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_anonymize_big.py \
            [--width 10000 --height 7500 --repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def rss_mb() -> float:
    """Resident set size of this process in MiB (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def make_photo(folder: Path, width: int, height: int) -> Path:
    """A photo-like JPEG: smooth noise, quality 85."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(0)
    small = rng.integers(0, 255, (height // 50, width // 50, 3), np.uint8)
    path = folder / "big.jpg"
    Image.fromarray(small).resize((width, height), Image.Resampling.BILINEAR).save(
        path, quality=85)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--width", type=int, default=10_000)
    parser.add_argument("--height", type=int, default=7_500)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    from PySide6.QtCore import QElapsedTimer, QTimer
    from PySide6.QtGui import QPixmap
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from app.main_window import MainWindow
    from core.imaging import photos as repo
    from core.imaging.loading import load_rgb
    from core.imaging.release import render, spec_for
    from core.store import Project
    from ui.anonymize.image_item import wrap_qimage

    tmp = Path(tempfile.mkdtemp(prefix="bench-anon-big-"))
    os.environ["XDG_CONFIG_HOME"] = str(tmp / "config")
    src = make_photo(tmp, args.width, args.height)
    with Project.create(tmp / "big.winnow") as project:
        photo_id = repo.import_photo(project, src)[0]
        for i in range(4):
            repo.add_region(project, photo_id, kind="face", shape="ellipse",
                            x=args.width * (0.05 + 0.22 * i), y=args.height * (0.1 + 0.2 * i),
                            w=args.width / 25, h=args.height / 15)
        photo = repo.get_photo(project, photo_id)
        specs = [spec_for(photo, r) for r in repo.regions(project, photo_id)]

    clock = QElapsedTimer()
    clock.start()
    state = {"last": clock.elapsed(), "longest": 0}

    def tick() -> None:
        now = clock.elapsed()
        state["longest"] = max(state["longest"], now - state["last"])
        state["last"] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()

    def phase(until: Callable[[], bool], timeout: float = 300) -> tuple[float, int]:
        state["longest"], state["last"] = 0, clock.elapsed()
        start, end = time.perf_counter(), time.perf_counter() + timeout
        while not until() and time.perf_counter() < end:
            app.processEvents()
            time.sleep(0.002)
        return time.perf_counter() - start, int(state["longest"])

    runs: list[dict[str, float]] = []
    for _ in range(args.repeats):
        window = MainWindow()
        window.resize(1280, 800)
        window.show()
        window.show_jobs()  # already open: its first appearance is the window's business
        _, row_idle = phase(lambda: False, 1.0)  # the noise floor of this machine
        assert window.open_project(tmp / "big.winnow")
        page = window.pages["anonymize"]
        item = page.canvas.image_item

        def pixels(full: bool, item=item) -> Callable[[], bool]:  # noqa: ANN001
            return lambda: item.pyramid is not None and item.pyramid.full == full

        row: dict[str, float] = {"idle_stall_ms": row_idle}
        started = time.perf_counter()
        window.nav.setCurrentRow(1)
        row["open_preview_s"], stall_a = phase(lambda item=item: item.pyramid is not None)
        row["open_full_s"], stall_b = phase(pixels(True))
        row["open_full_s"] = time.perf_counter() - started
        row["open_stall_ms"] = max(stall_a, stall_b)
        started = time.perf_counter()
        page.page_actions.act_after.trigger()
        row["after_preview_s"], stall_a = phase(pixels(False))
        row["after_full_s"], stall_b = phase(pixels(True))
        row["after_full_s"] = time.perf_counter() - started
        row["after_stall_ms"] = max(stall_a, stall_b)
        page.page_actions.act_after.trigger()
        page.detector.settings.plates = False
        job = page.jobs.detect_current()
        assert job is not None
        row["detect_first_progress_s"], row["detect_stall_ms"] = phase(
            lambda job=job: job.state.done > 0)
        _, stall = phase(lambda job=job: job.state.done > 200, 120)
        row["detect_stall_ms"] = max(row["detect_stall_ms"], stall)
        job.state.cancel()
        phase(lambda job=job: job.outcome != "running")
        row["rss_mb"] = rss_mb()
        window.runner.shutdown()
        window.close_project()
        window.close()
        runs.append(row)

        # the same work done inline: what the GUI thread would block for (today's decoder)
        started = time.perf_counter()
        rgb = load_rgb(src)
        QPixmap.fromImage(wrap_qimage(rgb))
        row["inline_open_blocking_s"] = time.perf_counter() - started
        started = time.perf_counter()
        QPixmap.fromImage(wrap_qimage(render(rgb, specs, photo.geometry)))
        row["inline_after_blocking_s"] = time.perf_counter() - started
        del rgb

    summary = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    summary["open_ratio_inline_blocking_over_preview"] = \
        summary["inline_open_blocking_s"] / summary["open_preview_s"]
    summary["after_ratio_inline_blocking_over_preview"] = \
        summary["inline_after_blocking_s"] / summary["after_preview_s"]
    print(json.dumps({"photo": f"{args.width}x{args.height}", "repeats": args.repeats,
                      "load": os.getloadavg()[0], "median": summary, "runs": runs},
                     indent=2))


if __name__ == "__main__":
    main()
