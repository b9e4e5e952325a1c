"""A no-op team re-merge at 31,000 samples: old code against new, alternating.

Prepares once (into ``--dir``, with the first tree's code, which must be the oldest:
a newer schema is not opened by older code): bench_curate.py's 31k-sample project,
split into 10 curator packages with 10 % overlap, curated as bench_team.py does.  Each
tree in ``--trees`` (a folder holding ``core/``, e.g. a ``git archive`` of main and this
worktree) merges the packages back once into its own copy.  Then, for ``--repeats``
rounds, alternating the order, each tree merges the same 10 packages again into a fresh
copy of its merged project, in a fresh process; reports each tree's median wall-clock
time, their ratio and the load average.

Usage:  .venv/bin/python benchmarks/bench_team_remerge.py --dir /tmp/remerge \
            --trees /tmp/main-tree . [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

_CHILD = """
import json, sys, time
from pathlib import Path
from core.store import Project
from core.teamwork.merge import merge_packages
project_path, files, first = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3] == "first"
with Project.open(Path(project_path)) as project:
    t = time.perf_counter()
    results, refused = merge_packages(project, files)
    took = time.perf_counter() - t
assert not refused and all(r.already != first for r in results), (refused, results)
print(json.dumps({"seconds": took}))
"""


def prepare(root: Path) -> list[str]:
    """The split project and its curated packages under ``root`` (made once, reused)."""
    listing = root / "packages.json"
    if listing.exists():
        return list(json.loads(listing.read_text()))
    import core  # from PYTHONPATH (the first tree), before bench_curate puts HERE's parent first

    assert Path(core.__file__).resolve().is_relative_to(Path(os.environ["PYTHONPATH"]).resolve())
    sys.path[:0] = [str(HERE)]
    from bench_curate import generate
    from bench_team import CURATORS, curate

    from core.store import Project
    from core.teamwork.split import split_project

    root.mkdir(parents=True, exist_ok=True)
    project_path = root / "echo.winnow"
    generate(project_path)
    with Project.open(project_path) as project:
        report = split_project(project, root / "packages", CURATORS, overlap=0.1, seed=0,
                               name="bench")
    files = [str(report.out / p["file"]) for p in report.packages]
    for j, f in enumerate(files):
        curate(Path(f), j)
    listing.write_text(json.dumps(files))
    return files


def merge(tree: Path, source: Path, target: Path, files: list[str], first: bool) -> float:
    """Seconds one fresh process of ``tree`` takes to merge ``files`` into a copy of
    ``source`` made at ``target``."""
    shutil.rmtree(target.parent, ignore_errors=True)
    target.parent.mkdir(parents=True)
    shutil.copy(source, target)
    assets = source.with_suffix(".assets")
    if assets.exists():
        shutil.copytree(assets, target.with_suffix(".assets"))
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    out = subprocess.run([sys.executable, "-c", _CHILD, str(target), json.dumps(files),
                          "first" if first else "again"], env=env, capture_output=True,
                         text=True, cwd=tree)
    if out.returncode:
        raise SystemExit(f"{tree}: the merge failed:\n{out.stderr[-3000:]}")
    return float(json.loads(out.stdout.strip().splitlines()[-1])["seconds"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--trees", type=Path, nargs="+", required=True)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--prepare-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.prepare_only:
        prepare(args.dir)
        return 0
    t = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--dir", str(args.dir), "--trees",
                    str(args.trees[0]), "--prepare-only"], check=True, cwd=args.trees[0],
                   env={**os.environ, "PYTHONPATH": str(args.trees[0].resolve())})
    files = list(json.loads((args.dir / "packages.json").read_text()))
    merged = {}
    for k, tree in enumerate(args.trees):
        merged[tree] = args.dir / f"merged{k}" / "echo.winnow"
        if not merged[tree].exists():
            took = merge(tree, args.dir / "echo.winnow", merged[tree], files, first=True)
            print(f"{tree}: first merge {took:.2f} s")
    print(f"prepared in {time.perf_counter() - t:.1f} s: {len(files)} packages")
    times: dict[Path, list[float]] = {tree: [] for tree in args.trees}
    for k in range(args.repeats):
        for tree in args.trees if k % 2 == 0 else reversed(args.trees):
            times[tree].append(merge(tree, merged[tree], args.dir / "work" / "echo.winnow",
                                     files, first=False))
        print(f"round {k + 1}: " + ", ".join(f"{tree}: {v[-1]:.2f} s"
                                              for tree, v in times.items()))
    first = statistics.median(times[args.trees[0]])
    print(f"\nmerge {len(files)} packages again (nothing new), medians of {args.repeats}, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores:")
    for tree, values in times.items():
        med = statistics.median(values)
        print(f"  {tree}: {med:.2f} s ({first / med:.1f}× the first tree's speed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
