"""Cost of drag-to-rank in the ranking rater view (ADR 054).

* task switch: ``RankingPanel.load`` + one paint for a task with N new outputs, with
  the strip's thumbnails made on the switch, or beforehand by ``prefetch`` (as the
  rater window does while the previous task is on screen), against the same task
  shown again (thumbnails cached);
* ``thumbnail()`` alone per output size;
* one repaint of the strip during a drag (what each mouse move costs).

Run offscreen: ``QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_rating_gaps.py``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _stats(xs: list[float]) -> tuple[float, float]:
    xs = sorted(xs)
    return statistics.median(xs), xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=30)
    args = ap.parse_args()

    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtGui import QColor, QImage, QLinearGradient, QPainter, QPixmap
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from core.rating.protocols import TaskView
    from ui.rate.panels import RankingPanel
    from ui.rate.rank_strip import thumbnail

    app = QApplication.instance() or QApplication([])

    def image(seed: int, w: int, h: int) -> QPixmap:
        img = QImage(w, h, QImage.Format.Format_RGB32)
        p = QPainter(img)
        g = QLinearGradient(0, 0, w, h)
        g.setColorAt(0, QColor((seed * 53) % 256, (seed * 97) % 256, 90))
        g.setColorAt(1, QColor(20, (seed * 31) % 256, 200))
        p.fillRect(img.rect(), g)
        p.end()
        return QPixmap.fromImage(img)

    print(f"offscreen, Qt platform {app.platformName()}, {args.repeats} repeats; "
          "median / p95 in ms")
    for side in (1024, 2048, 4000):
        pm = image(1, side, side * 3 // 4)
        times = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            thumbnail(pm)
            times.append((time.perf_counter() - t) * 1000)
        med, p95 = _stats(times)
        print(f"thumbnail() of one {side}x{side * 3 // 4} output: {med:.2f} / {p95:.2f}")

    for n, side in ((4, 1024), (4, 2048), (9, 1024)):
        panel = RankingPanel({"allow_ties": True})
        panel.resize(1400, 800)
        panel.show()
        pool = [image(k, side, side) for k in range(n)]
        fresh, ahead, again = [], [], []
        for r in range(2 * args.repeats):
            shas = [f"r{r}o{k}" for k in range(n)]  # new shas: thumbnails are made
            pixmaps = dict(zip(shas, pool, strict=True))
            task = TaskView(f"t{r}", r, "ranking", "p", None, (),
                            tuple((f"tok{k}", sha) for k, sha in enumerate(shas)))
            if r % 2:  # as the rater window does while the previous task is on screen
                panel.prefetch(task, pixmaps)
            for bucket in ((ahead if r % 2 else fresh), again):
                t = time.perf_counter()
                panel.load(task, pixmaps, None)
                panel.repaint()
                app.processEvents()
                bucket.append((time.perf_counter() - t) * 1000)
        (fm, fp), (hm, hp), (am, ap95) = _stats(fresh), _stats(ahead), _stats(again)
        print(f"task switch, {n} outputs {side}x{side}: new task, thumbnails made on the "
              f"switch {fm:.1f} / {fp:.1f}; made by prefetch {hm:.1f} / {hp:.1f}; same task "
              f"again {am:.1f} / {ap95:.1f}; ratios {fm / am:.2f}x, {hm / am:.2f}x")
        strip = panel.strip
        start = strip.card_rects()[0].center()
        QTest.mousePress(strip, Qt.MouseButton.LeftButton, pos=start)
        QTest.mouseMove(strip, start + QPoint(40, 0))
        paints = []
        for k in range(args.repeats):
            QTest.mouseMove(strip, start + QPoint(40 + 7 * k, 0))
            t = time.perf_counter()
            strip.repaint()
            paints.append((time.perf_counter() - t) * 1000)
        QTest.mouseRelease(strip, Qt.MouseButton.LeftButton, pos=start)
        med, p95 = _stats(paints)
        print(f"strip repaint while dragging, {n} cards: {med:.2f} / {p95:.2f}")
        panel.close()


if __name__ == "__main__":
    main()
