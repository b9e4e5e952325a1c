"""Curate as a team at ECHO scale (issue #20): split 31,000 samples into 10 curator
packages and merge them back.

Builds the 31k-sample / 68k-post project of bench_curate.py (60 distinct images), then,
``--repeats`` times: split into 10 packages with 10 % overlap (into a fresh folder);
in every package, through Curate's own commands, label 30 % of its samples (one bulk
edit), edit 2 % of the prompts and tag 2 % (one command each); merge the 10 packages
into a fresh copy of the project; merge them again (nothing new).  Reports medians of
wall-clock and of this process's CPU time (the machine is shared: CPU time is what an
idle machine would show as wall time, less the disk writes).

Usage:  .venv/bin/python benchmarks/bench_team.py [--repeats 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_curate import N_SAMPLES, generate  # noqa: E402

from core.curate.commands import SetField, SetTag, UndoStack  # noqa: E402
from core.store import Project  # noqa: E402
from core.teamwork.merge import merge_packages  # noqa: E402
from core.teamwork.split import split_project  # noqa: E402

CURATORS = [f"Curator {k}" for k in range(1, 11)]


def curate(path: Path, seed: int) -> int:
    """Edit a package through Curate's commands; returns how many edits."""
    r = random.Random(seed)
    with Project.open(path) as project:
        stack = UndoStack(project)
        ids = [row[0] for row in project.conn.execute("SELECT id FROM samples ORDER BY id")]
        chosen = r.sample(ids, int(0.3 * len(ids)))
        stack.push(SetField(chosen, "quality", r.choice(["Benchmark", "Analysis", "Trash"])))
        edits = 1
        for sid in r.sample(ids, int(0.02 * len(ids))):
            stack.push(SetField([sid], "prompt", f"edited prompt {sid} {seed}", "Edit prompt"))
            edits += 1
        for sid in r.sample(ids, int(0.02 * len(ids))):
            stack.push(SetTag([sid], f"checked-{seed % 3}"))
            edits += 1
    return edits


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="keep (or reuse) the project here")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-team-"))
    root.mkdir(parents=True, exist_ok=True)
    source = root / "echo.winnow"
    if not source.exists():
        t = time.perf_counter()
        generate(source)
        print(f"generated {N_SAMPLES:,} samples in {time.perf_counter() - t:.1f} s")
    splits, merges, again, sizes, curation = [], [], [], [], []
    split_cpu: list[float] = []
    merge_cpu: list[float] = []
    for k in range(args.repeats):
        work = root / f"run{k}"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        shutil.copy(source, work / "echo.winnow")
        shutil.copytree(root / "echo.assets", work / "echo.assets") \
            if (root / "echo.assets").exists() else None
        with Project.open(work / "echo.winnow") as project:
            t, c = time.perf_counter(), time.process_time()
            report = split_project(project, work / "packages", CURATORS, overlap=0.1, seed=k,
                                   name=f"bench {k}")
            splits.append(time.perf_counter() - t)
            split_cpu.append(time.process_time() - c)
        files = [report.out / p["file"] for p in report.packages]
        sizes.append(sum(f.stat().st_size for f in files) / len(files) / 2**20)
        t = time.perf_counter()
        n_edits = sum(curate(f, j) for j, f in enumerate(files))
        curation.append(time.perf_counter() - t)
        with Project.open(work / "echo.winnow") as project:
            t, c = time.perf_counter(), time.process_time()
            results, refused = merge_packages(project, files)
            merges.append(time.perf_counter() - t)
            merge_cpu.append(time.process_time() - c)
            assert not refused, refused
            applied = sum(r.applied for r in results)
            conflicts = sum(r.conflicts for r in results)
            t = time.perf_counter()
            results2, refused2 = merge_packages(project, files)
            again.append(time.perf_counter() - t)
            assert not refused2 and all(r.already for r in results2)
        print(f"run {k}: split {splits[-1]:.2f} s, merge {merges[-1]:.2f} s "
              f"({applied:,} changes, {conflicts:,} conflicts from {n_edits:,} edits), "
              f"merge again {again[-1]:.2f} s, {sizes[-1]:.1f} MiB/package")
        shutil.rmtree(work)
    med = statistics.median
    print(f"\n{N_SAMPLES:,} samples, {len(CURATORS)} curators, 10 % overlap, "
          f"{args.repeats} run(s), medians:")
    print(f"  load average              : {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"  split into {len(CURATORS)} packages : {med(splits):.2f} s "
          f"(CPU {med(split_cpu):.2f} s)")
    print(f"  curate (Curate commands)  : {med(curation):.2f} s (all 10 packages)")
    print(f"  merge 10 packages back    : {med(merges):.2f} s (CPU {med(merge_cpu):.2f} s)")
    print(f"  merge them again (no-op)  : {med(again):.2f} s")
    print(f"  package size              : {med(sizes):.1f} MiB (images inside, once each)")
    if not args.keep:
        shutil.rmtree(root)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
