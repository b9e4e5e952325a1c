"""Where a 30,500-sample label's and undo's time goes in the Curate workspace, phase by
phase, for one tree in one process: key press → the worker starts → the transaction
ends → the step is booked → the list is repainted, and in which phase the longest
event-loop gap falls.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_curate_phases.py \\
        --tree /tmp/main-src --project /tmp/bench-curate/bench.winnow [--steps 5]

Run it once per tree (each opens, and so migrates, its own copy of the project first).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def measure(project_path: Path, steps: int) -> dict[str, Any]:
    """Label and undo ``steps`` times; medians (ms) per phase and the longest gaps."""
    from curate_scale import _select_rows, background_jobs, show_workspace
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
    st: dict[str, float] = {}
    for name in ("do", "undo"):
        original = getattr(commands.Command, name)

        def timed(self: Any, p: Any, _original: Any = original) -> None:
            st["w0"], c0 = time.perf_counter(), time.thread_time()
            try:
                _original(self, p)
            finally:
                st["w1"], st["wcpu"] = time.perf_counter(), time.thread_time() - c0

        setattr(commands.Command, name, timed)
    record = commands.UndoStack.record

    def booked(self: Any, command: Any, what: str) -> Any:
        st["rec"] = time.perf_counter()
        return record(self, command, what)

    commands.UndoStack.record = booked  # type: ignore[method-assign]  # a probe
    rows: dict[str, list[Any]] = {}
    for k in range(steps):
        for what in ("label", "undo"):
            if what == "label":
                _select_rows(ws, min(30_500, ws.model.rowCount()))
            time.sleep(1.0)  # as a curator looks at the list: the checkpoint runs
            st.clear()
            t0 = time.perf_counter()
            ws.review.label(("Trash", "Benchmark", "Analysis")[k % 3]) if what == "label" \
                else ws.undo()
            stamps = [t0]
            while ws.editor.busy or len(stamps) == 1:
                app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
                stamps.append(time.perf_counter())
                time.sleep(0.001)
            app.processEvents()
            ws.table.viewport().grab()
            stamps.append(time.perf_counter())

            def phase(t: float) -> str:
                return ("before the worker" if t < st["w0"] else "transaction"
                        if t < st["w1"] else "hand-off" if t < st["rec"] else
                        "booking, list, repaint")

            gap, at = max((b - a, a) for a, b in zip(stamps, stamps[1:], strict=False))
            for key, value in (("until_worker", st["w0"] - t0),
                               ("transaction_wall", st["w1"] - st["w0"]),
                               ("transaction_cpu", st["wcpu"]),
                               ("hand_off", st["rec"] - st["w1"]),
                               ("booked_to_painted", stamps[-1] - st["rec"]),
                               ("total", stamps[-1] - t0), ("longest_gap", gap)):
                rows.setdefault(f"{what}_{key}_ms", []).append(round(1000 * value, 1))
            rows.setdefault(f"{what}_longest_gap_in", []).append(phase(at))
    stop()
    project.close()
    out: dict[str, Any] = {k: statistics.median(v) for k, v in rows.items()
                           if not k.endswith("_in")}
    out.update({k: v for k, v in rows.items() if k.endswith("_in")})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, default=HERE.parent)
    ap.add_argument("--project", type=Path, required=True)
    ap.add_argument("--steps", type=int, default=5)
    args = ap.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(args.tree.resolve()))
    sys.path.insert(1, str(HERE))
    with tempfile.TemporaryDirectory(prefix="bench-phases-") as tmp:
        copy = Path(tmp) / "bench.winnow"
        shutil.copyfile(args.project, copy)
        result = measure(copy, args.steps)
    result["load_average"] = os.getloadavg()[:2]
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
