"""A 30,500-sample bulk edit's transaction alone (``SetField.do``/``undo`` on a worker
view, as Curate runs it), with a pause after each so a background checkpoint (ADR 025)
runs between edits as it would while the curator looks at the result; this tree
against another (e.g. main), fresh processes alternating, medians printed with ratios.

    .venv/bin/python benchmarks/bench_curate_edit.py --project /tmp/bench-curate/bench.winnow \\
        --other /tmp/main-src [--rounds 2] [--pause 1.6] [--tags]

``--tags`` also adds a tag to the 30,500 samples and undoes it (``SetTag``).

Each tree first opens and closes its own copy once (migrating a project older than its
schema; ``first_open`` reports that time), and every round starts from that copy.
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
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, sys, time
from pathlib import Path
import core.curate.commands as commands
from core.store import Project
project = Project.open(Path(sys.argv[1]))
pause = float(sys.argv[2])
tags = sys.argv[3] == "1"
ids = [r[0] for r in project.conn.execute("SELECT id FROM samples LIMIT 30500")]
out = {"do_wall": [], "do_cpu": [], "undo_wall": [], "undo_cpu": []}
for quality in ("Trash", "Benchmark", "Analysis"):
    command = commands.SetField(ids, "quality", quality)
    for what in ("do", "undo"):
        view = project.worker_view()
        t0, c0 = time.perf_counter(), time.thread_time()
        getattr(command, what)(view)
        out[what + "_wall"].append(1000 * (time.perf_counter() - t0))
        out[what + "_cpu"].append(1000 * (time.thread_time() - c0))
        view.close()
        time.sleep(pause)
if tags:  # adding a tag to the 30,500 and undoing it
    command = commands.SetTag(ids, "bench-tag", True)
    for what in ("do", "undo"):
        view = project.worker_view()
        t0, c0 = time.perf_counter(), time.thread_time()
        getattr(command, what)(view)
        out.setdefault("tag_" + what + "_wall", []).append(1000 * (time.perf_counter() - t0))
        out.setdefault("tag_" + what + "_cpu", []).append(1000 * (time.thread_time() - c0))
        view.close()
        time.sleep(pause)
t0 = time.perf_counter()
project.close()
out["close"] = [1000 * (time.perf_counter() - t0)]
print(json.dumps(out))
"""


OPEN = r"""
import sys, time
from core.store import Project
t0, c0 = time.perf_counter(), time.process_time()
project = Project.open(sys.argv[1])
opened = time.perf_counter() - t0, time.process_time() - c0
version = project.schema_version
project.close()
print(f"{opened[0]:.3f} {opened[1]:.3f} {version}")
"""


def prepare(project: Path, trees: dict[str, Path], folder: Path) -> dict[str, dict[str, float]]:
    """One copy of ``project`` per tree, opened (and so migrated, when that tree's schema
    is newer) and closed once by that tree, as a user's project is before they work in it;
    the rounds copy these.  Returns each tree's open time (wall, CPU s) and schema."""
    opened: dict[str, dict[str, float]] = {}
    for name, tree in trees.items():
        copy = folder / f"{name}-prepared.winnow"
        shutil.copyfile(project, copy)
        done = subprocess.run([sys.executable, "-c", OPEN, str(copy)], cwd=tree, check=True,
                              env=dict(os.environ, PYTHONPATH=str(tree)), capture_output=True,
                              text=True)
        wall, cpu, version = done.stdout.split()
        opened[name] = {"open_wall_s": float(wall), "open_cpu_s": float(cpu),
                        "schema": int(version)}
    return opened


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project", type=Path, required=True)
    ap.add_argument("--other", type=Path, help="the other tree (e.g. main)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--pause", type=float, default=1.6)
    ap.add_argument("--tags", action="store_true", help="also tag the 30,500 and undo it")
    args = ap.parse_args()
    trees = {"this": HERE.parent}
    if args.other:
        trees["other"] = args.other.resolve()
    results: dict[str, dict[str, list[float]]] = {name: {} for name in trees}
    folder = Path(tempfile.mkdtemp(prefix="bench-edit-prepared-"))
    opened = prepare(args.project, trees, folder)
    for _ in range(args.rounds):
        for name, tree in trees.items():
            with tempfile.TemporaryDirectory(prefix="bench-edit-") as tmp:
                copy = Path(tmp) / "bench.winnow"
                shutil.copyfile(folder / f"{name}-prepared.winnow", copy)
                env = dict(os.environ, PYTHONPATH=str(tree))
                done = subprocess.run(
                    [sys.executable, "-c", CHILD, str(copy), str(args.pause),
                     "1" if args.tags else "0"],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd=tree,
                )
                for key, values in json.loads(done.stdout).items():
                    results[name].setdefault(key, []).extend(values)
    shutil.rmtree(folder)
    report: dict[str, object] = {"load_average": os.getloadavg()[:2], "first_open": opened}
    medians = {
        name: {k: round(statistics.median(v), 1) for k, v in r.items()}
        for name, r in results.items()
    }
    report.update(medians)
    if "other" in medians:
        report["this/other"] = {
            k: round(v / medians["other"][k], 2) for k, v in medians["this"].items()
        }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
