"""Search as typed and labelling 30,500 selected samples in Curate, this tree against
another (e.g. main), in one run: each round runs a fresh child process per tree, alternating, on copies of the
same project (benchmarks/bench_curate.py generates it with ``--keep DIR``).

A child opens the workspace (1400×900, offscreen, the real job runner); types the 61
queries of benchmarks/curate_scale.py twice, each whole, then 20 of them key by key
(every prefix and a trailing space), quiet and with one CPU hog; selects 30,500
rows and labels them, then undoes it, three times, and reports per step: the time from
the key press until the list shows it, the longest event-loop stall, the GUI thread's
CPU time and the worker's (``time.thread_time``); and the CPU the idle workspace burns
in 2 s with the first sample shown.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_curate_ab.py \\
        --project /tmp/bench-curate/bench.winnow --other /tmp/main-src [--rounds 3]

``--other`` is a checkout of the code to compare with (``git archive main | tar -x -C
DIR``); without it only this tree is measured.  Give a project of the older tree's schema:
each tree opens (migrates) its own copy once before the rounds (``first_open``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROWS = 30_500


def child(project_path: Path, steps: int) -> dict[str, Any]:
    """Measure in this process (run with the tree to measure first on sys.path)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # curate_scale: this tree's helpers, after the tree measured (first on the path)
    sys.path.insert(1, str(HERE))
    from curate_scale import _select_rows, _wait, background_jobs, show_workspace
    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    import core.curate.commands as commands
    from core.store import Project
    from ui.context import AppContext

    app = QApplication.instance() or QApplication([])
    project = Project.open(project_path)
    context = AppContext()
    stop = background_jobs(context)
    ws = show_workspace(context, project)
    ws.select_row(0)
    for _ in range(20):
        app.processEvents()
    # idle: what the shown workspace costs while nobody touches it
    c0, t0 = time.process_time(), time.perf_counter()
    while time.perf_counter() - t0 < 2.0:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        time.sleep(0.005)
    out: dict[str, Any] = {"idle_cpu_ms_per_s": 1000 * (time.process_time() - c0) / 2.0}
    out.update(_search(app, ws))

    worker: list[tuple[float, float]] = []
    for name in ("do", "undo"):
        original = getattr(commands.Command, name)

        def timed(self: Any, p: Any, _original: Any = original) -> None:
            c, w = time.thread_time(), time.perf_counter()
            try:
                _original(self, p)
            finally:
                worker.append((time.thread_time() - c, time.perf_counter() - w))

        setattr(commands.Command, name, timed)
    n = min(ROWS, ws.model.rowCount())
    rows: dict[str, list[float]] = {}
    for k in range(steps):
        quality = ("Trash", "Benchmark", "Analysis")[k % 3]
        for what in ("label", "undo"):
            if what == "label":
                _select_rows(ws, n)
            start = len(worker)
            t0, c0 = time.perf_counter(), time.thread_time()
            getattr(ws, "review", ws).label(quality) if what == "label" else ws.undo()
            total, stall = _wait(app, ws, t0)
            gui = time.thread_time() - c0
            wcpu, wwall = worker[start] if len(worker) > start else (0.0, 0.0)
            for key, value in (
                ("total", total),
                ("stall", stall),
                ("gui_cpu", gui),
                ("worker_cpu", wcpu),
                ("worker_wall", wwall),
            ):
                rows.setdefault(f"{what}_{key}_ms", []).append(1000 * value)
    stop()
    project.close()
    out.update({k: statistics.median(v) for k, v in rows.items()})
    out["rows"] = n
    return out


def _search(app: Any, ws: Any) -> dict[str, float]:
    """The search box's whole path per query (list, the current sample kept or shown,
    the window's repaint), wall and GUI-thread CPU, quiet and with one CPU hog."""
    import random

    from bench_curate import WORDS
    from curate_scale import Hogs, search_queries

    from core.selection import SampleFilter

    queries = search_queries(WORDS, random.Random(1))
    out: dict[str, float] = {}
    for hogs in (0, 1):
        wall: list[float] = []
        cpu: list[float] = []
        with Hogs(hogs):
            for _ in range(2):
                for text in queries:
                    t0, c0 = time.perf_counter(), time.thread_time()
                    ws.apply_filter(SampleFilter(text=text))
                    app.processEvents()
                    wall.append(1000 * (time.perf_counter() - t0))
                    cpu.append(1000 * (time.thread_time() - c0))
                    ws.apply_filter(SampleFilter())
                    app.processEvents()
            # as typed: every prefix of 20 queries and a trailing space, one per keystroke
            typed_wall: list[float] = []
            typed_cpu: list[float] = []
            for text in queries[:20]:
                for end in range(1, len(text) + 2):
                    t0, c0 = time.perf_counter(), time.thread_time()
                    ws.apply_filter(SampleFilter(text=(text + " ")[:end]))
                    app.processEvents()
                    typed_wall.append(1000 * (time.perf_counter() - t0))
                    typed_cpu.append(1000 * (time.thread_time() - c0))
                ws.apply_filter(SampleFilter())
                app.processEvents()
        tag = "search_hog" if hogs else "search"
        for name, values in (("wall", wall), ("cpu", cpu), ("typed_wall", typed_wall),
                             ("typed_cpu", typed_cpu)):
            values.sort()
            out[f"{tag}_{name}_median_ms"] = statistics.median(values)
            out[f"{tag}_{name}_p95_ms"] = values[int(0.95 * (len(values) - 1))]
    return out


def main() -> int:
    from bench_curate_edit import prepare

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project", type=Path, required=True)
    ap.add_argument("--other", type=Path, help="the other tree (e.g. main) to compare with")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.project, args.steps)))
        return 0
    trees = {"this": HERE.parent}
    if args.other:
        trees = {"other": args.other.resolve(), **trees}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    load = []
    with tempfile.TemporaryDirectory(prefix="bench-label-") as tmp:
        # each tree's copy opened (migrated, if older) and closed once, as in bench_curate_edit
        opened = prepare(args.project, trees, Path(tmp))
        for _ in range(args.rounds):
            for name, root in trees.items():
                copy = Path(tmp) / f"{name}.winnow"
                shutil.copy(Path(tmp) / f"{name}-prepared.winnow", copy)
                env = {**os.environ, "PYTHONPATH": str(root), "QT_QPA_PLATFORM": "offscreen"}
                load.append(os.getloadavg()[0])
                done = subprocess.run(
                    [
                        sys.executable,
                        str(HERE / "bench_curate_ab.py"),
                        "--child",
                        "--project",
                        str(copy),
                        "--steps",
                        str(args.steps),
                    ],
                    env=env,
                    cwd=root,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    result: dict[str, Any] = {
        "rounds": args.rounds,
        "steps_per_round": args.steps,
        "load_average": [min(load), max(load)],
        "first_open": opened,
    }
    for name, values in runs.items():
        result[name] = {k: round(statistics.median(v[k] for v in values), 1) for k in values[0]}
    if "other" in result:
        result["this/other"] = {
            k: round(result["this"][k] / result["other"][k], 2)
            for k in result["this"]
            if result["other"][k]
        }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
