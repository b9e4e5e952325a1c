"""Rating benchmark (issue 5, item 9): over a 500-task side-by-side session with
1024×1024 JPEG outputs, measure

* durable:  ``RatingSession.submit`` (validate + one WAL transaction, synchronous=FULL),
* next shown (prefetched): Enter pressed → answer committed → next task laid out and
  painted, with its images decoded ahead (the rater view's prefetch),
* next shown (cold): the same with the prefetch cache emptied first, for the ratio.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_rating.py [--tasks 500]
[--dir /tmp]``
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _jpeg(seed: int, size: int) -> bytes:
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    base = rng.integers(0, 255, (size // 32, size // 32, 3), dtype=np.uint8)
    img = Image.fromarray(base).resize((size, size), Image.Resampling.BICUBIC)
    out = io.BytesIO()
    img.save(out, "JPEG", quality=90)
    return out.getvalue()


def populate(project, n_samples: int, models: tuple[str, ...], image) -> None:  # type: ignore[no-untyped-def]
    """``n_samples`` samples with one input and one output per model; ``image(seed)``
    makes each file's JPEG bytes."""
    from core.store.project import now_iso

    now = now_iso()
    with project.transaction() as conn:
        for k in range(n_samples):
            sid = f"s{k:04d}"
            conn.execute("INSERT INTO samples(id, prompt, original_prompt, split, created_at, "
                         "modified_at) VALUES (?,?,?,?,?,?)",
                         (sid, f"prompt {k}", f"prompt {k}", "image-to-image", now, now))
            sha, _ = project.assets.put(image(10_000 + k), "jpg")
            conn.execute("INSERT OR IGNORE INTO images(sha256, ext, created_at) "
                         "VALUES (?, 'jpg', ?)", (sha, now))
            conn.execute("INSERT INTO sample_images(sample_id, role, position, sha256) "
                         "VALUES (?, 'input', 0, ?)", (sid, sha))
            for m, model in enumerate(models):
                sha, _ = project.assets.put(image(k * 10 + m), "jpg")
                conn.execute("INSERT OR IGNORE INTO images(sha256, ext, created_at) "
                             "VALUES (?, 'jpg', ?)", (sha, now))
                conn.execute("INSERT INTO model_outputs(sample_id, model, sha256, imported_at) "
                             "VALUES (?,?,?,?)", (sid, model, sha, now))


def build(base: Path, tasks: int, size: int) -> Path:
    from core.rating.design import SessionDesign
    from core.rating.sessions import create_session, write_session_files
    from core.store import Project

    models = ("m-a", "m-b", "m-c", "m-d")
    n_samples = max(2, tasks // 24 + 1)  # 6 pairs × 4 criteria per sample
    project = Project.create(base / "bench.winnow")
    populate(project, n_samples, models, lambda seed: _jpeg(seed, size))
    design = SessionDesign(name="bench", protocol="side_by_side",
                           sample_ids=tuple(f"s{k:04d}" for k in range(n_samples)),
                           models=models, raters=1, tasks_per_rater=tasks,
                           criteria=("preference", "coherence", "alignment", "overall"))
    create_session(project, design)
    (path,) = write_session_files(project, "bench", base / "files")
    project.close()
    return path


def stats(name: str, values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
    return (f"{name:<28} n={len(values):4d}  median {statistics.median(values):7.2f} ms  "
            f"p95 {p95:7.2f} ms")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=500)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--dir", type=Path, default=Path.cwd(),
                        help="where to write the session (its disk decides fsync time)")
    args = parser.parse_args()
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from core.rating.session_file import RatingSession
    from ui.rate.rater import RaterWindow

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        t0 = time.perf_counter()
        path = build(Path(tmp), args.tasks, args.size)
        print(f"built {args.tasks}-task session ({path.stat().st_size / 2**20:.1f} MiB, "
              f"{args.size}px JPEGs) in {time.perf_counter() - t0:.1f} s")
        session = RatingSession.open(path)
        session.set_rater("bench")
        window = RaterWindow(session)
        window.resize(1400, 900)
        window.show()
        app.processEvents()
        durable: list[float] = []
        shown: list[float] = []
        cold: list[float] = []
        original = session.submit

        def timed_submit(*a, **kw):  # type: ignore[no-untyped-def]
            s = time.perf_counter()
            result = original(*a, **kw)
            durable.append((time.perf_counter() - s) * 1000)
            return result

        session.submit = timed_submit  # type: ignore[method-assign]
        k = 0
        while window.current is not None:
            for _ in range(3):  # the rater looks at the task: prefetch runs meanwhile
                app.processEvents()
            is_cold = k % 5 == 4  # every fifth task: no prefetch, for the ratio
            if is_cold:
                window._pixmaps.clear()
            QTest.keyClick(window, Qt.Key.Key_Left if k % 2 else Qt.Key.Key_Right)
            start = time.perf_counter()
            QTest.keyClick(window, Qt.Key.Key_Return)
            window.repaint()  # synchronous layout + paint of the next task
            (cold if is_cold else shown).append((time.perf_counter() - start) * 1000)
            k += 1
        window.close()
        print(stats("judgment durable", durable))
        print(stats("submit -> next shown (warm)", shown))
        print(stats("submit -> next shown (cold)", cold))
        print(f"{'cold / warm median ratio':<28} "
              f"{statistics.median(cold) / statistics.median(shown):.2f}")
        print("targets: durable <= 10 ms, next shown <= 50 ms (medians and p95)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
