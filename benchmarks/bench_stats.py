"""Benchmark of core.stats on SPEC-sized inputs (not a test).

    .venv/bin/python benchmarks/bench_stats.py [--repeats 5] [--ref-repeats 3]

* 2,000,000 synthetic pairwise votes over 10 models: Bradley-Terry fit, and BT +
  1,000-round bootstrap (Elo intervals); reference: ``choix.ilsr_pairwise`` on the
  vote list (the straightforward way), ratio reported.
* Kemeny-Young on 8 models x 200 samples x 5 raters (1,000 input rankings): one
  consensus over all rankings, and one consensus per sample.
* Krippendorff's alpha (interval) on 1,315 units x 5 raters x 3 criteria; reference:
  the ``krippendorff`` package.

Times are medians over the repeats (wall clock, ``time.perf_counter``).

``--scale`` instead measures the pairwise statistics at arena scale (issue 13): Bradley-
Terry (and Elo with a 100-round bootstrap) on 100,000 votes over 150 and 1,000 models,
dense (any pair) and sparse (each model meets ~10 neighbours), each case in a fresh
subprocess for its peak RSS; plus reading a 2,000,000-vote CSV.  ``--csv`` measures only
that read as installed, with pyarrow alone, without pyarrow (the split parser), and with
the csv module alone (as quoted files are read), wall and CPU time.  ``--compare DIR`` runs
the same children with another source tree (e.g. a checkout of main) where that tree
can (its 150-model fit needs 5 GB, so it gets 100 models), for ratios from one run.

    .venv/bin/python benchmarks/bench_stats.py --scale [--compare ../main]
    .venv/bin/python benchmarks/bench_stats.py --csv --compare ../main [--repeats 5] [--id-column]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.stats import alpha, elo_ratings, fit_strengths, kemeny_per_item, tables, win_matrix  # noqa: E402
from core.stats.kemeny import kemeny_from_rankings  # noqa: E402
from core.stats.rankings import RankingTable  # noqa: E402
from core.stats.votes import A_WINS, B_WINS, Votes  # noqa: E402

N_VOTES = 2_000_000
N_MODELS = 10
N_BOOT = 1000


def median_time(fn: Callable[[], object], repeats: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def make_votes(rng: np.random.Generator) -> Votes:
    strength = np.linspace(-1.0, 1.0, N_MODELS)
    a = rng.integers(0, N_MODELS, N_VOTES)
    b = (a + rng.integers(1, N_MODELS, N_VOTES)) % N_MODELS
    p = 1.0 / (1.0 + np.exp(-(strength[a] - strength[b])))
    out = np.where(rng.random(N_VOTES) < p, A_WINS, B_WINS).astype(np.int8)
    return Votes(tuple(f"model{i}" for i in range(N_MODELS)), a, b, out)


def make_rankings(rng: np.random.Generator) -> RankingTable:
    raters, samples, models = 5, 200, 8
    quality = np.linspace(0, 2, models)
    noisy = quality + rng.normal(scale=1.5, size=(raters, samples, models))
    ranks = (np.argsort(np.argsort(-noisy, axis=-1), axis=-1) + 1).astype(float)
    return RankingTable(
        tuple(f"r{i}" for i in range(raters)),
        tuple(f"s{i:03d}" for i in range(samples)),
        tuple(f"m{i}" for i in range(models)),
        ranks,
    )


def make_ratings(rng: np.random.Generator) -> list[np.ndarray]:
    out = []
    for _ in range(3):  # criteria IF, IC, VQ
        truth = rng.integers(1, 6, 1315)
        data = np.clip(truth + rng.integers(-1, 2, (5, 1315)), 1, 5).astype(float)
        data[rng.random(data.shape) < 0.05] = np.nan
        out.append(data)
    return out


SCALE_CHILD = """
import json, resource, sys, time
import numpy as np
from core.stats import tables
kind, arg = sys.argv[1], sys.argv[2]
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = {}
if kind.startswith("csv"):
    from core.stats import csvcolumns
    if kind in ("csv-stdlib", "csv-module"):  # without pyarrow (the [parquet] extra)
        csvcolumns.FAST_MIN_BYTES = 10**12
    if kind in ("csv-pyarrow", "csv-module"):  # without the split (or a tree without it)
        csvcolumns.SPLIT_MIN_BYTES = 10**12
    t0, c0 = time.perf_counter(), time.process_time()
    v = tables.read_votes(arg)
    out["seconds"] = time.perf_counter() - t0
    out["cpu_seconds"] = time.process_time() - c0  # all threads (pyarrow reads in several)
    out["votes"] = len(v)
else:
    from core.stats import elo_ratings, fit_votes
    from core.stats.votes import Votes
    k, n, sparse, boot = (int(x) for x in arg.split(","))
    rng = np.random.default_rng(0)
    a = rng.integers(0, k, n)
    step = rng.integers(1, 11, n) if sparse else rng.integers(1, k, n)
    b = (a + step) % k
    s = rng.normal(size=k)
    p = 1 / (1 + np.exp(-(s[a] - s[b])))
    o = np.where(rng.random(n) < p, 0, 1).astype(np.int8)
    votes = Votes(tuple(f"m{i:04d}" for i in range(k)), a, b, o)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    res = fit_votes(votes)
    out["seconds"] = time.perf_counter() - t0
    out["method"] = res.method
    if boot:
        t0 = time.perf_counter()
        elo_ratings(votes, n_boot=boot, seed=0)
        out["boot_seconds"] = time.perf_counter() - t0
out["peak_growth_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
print(json.dumps(out))
"""


def _scale_child(tree: Path, kind: str, arg: str, timeout: float = 900) -> dict | None:
    import json
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(tree)}
    try:
        out = subprocess.run([sys.executable, "-c", SCALE_CHILD, kind, arg], cwd=tree, env=env,
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr else "failed"}
    return json.loads(out.stdout)


def scale(args: argparse.Namespace) -> int:
    here = Path(__file__).resolve().parent.parent
    trees = {"this tree": here}
    if args.compare:
        trees["baseline"] = Path(args.compare).resolve()
    print(f"| case | tree | fit (median of {args.repeats}) | peak RSS growth | note |")
    print("|---|---|---|---|---|")
    cases = [(150, 0, 100), (150, 1, 100), (1000, 0, 0), (1000, 1, 0), (100, 0, 0)]
    for k, sparse, boot in cases:
        for name, tree in trees.items():
            if name == "baseline" and k != 100:
                continue  # the old code needs ~5 GB at 150 models and far more at 1,000
            if name == "this tree" and k == 100 and not args.compare:
                continue
            runs = [_scale_child(tree, "fit", f"{k},100000,{sparse},{boot}")
                    for _ in range(args.repeats)]
            ok = [r for r in runs if r and "error" not in r]
            if not ok:
                print(f"| {k} models, {'sparse' if sparse else 'dense'} | {name} | — | — | "
                      f"{runs[0]} |")
                continue
            fit = statistics.median(r["seconds"] for r in ok)
            peak = statistics.median(r["peak_growth_mb"] for r in ok)
            note = f"method {ok[0]['method']}"
            if boot:
                note += f"; + Elo with {boot} bootstraps {statistics.median(r['boot_seconds'] for r in ok):.2f} s"
            print(f"| {k} models × 100,000 votes, {'sparse' if sparse else 'dense'} | {name} | "
                  f"{fit:.3f} s | {peak:.0f} MB | {note} |")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "votes.csv"
        _write_votes_csv(path, make_votes(np.random.default_rng(args.seed)))
        medians = {}
        for name, tree in trees.items():
            runs = [_scale_child(tree, "csv", str(path)) for _ in range(args.repeats)]
            medians[name] = statistics.median(r["seconds"] for r in runs if r)
            peak = statistics.median(r["peak_growth_mb"] for r in runs if r)
            print(f"| read + validate a 2,000,000-vote CSV | {name} | {medians[name]:.2f} s | "
                  f"{peak:.0f} MB | |")
        if args.compare:
            print(f"\nCSV read, baseline / this tree: {medians['baseline'] / medians['this tree']:.1f}x")
    return 0


#: what each child kind measures (a tree without SPLIT_MIN_BYTES reads "csv" and
#: "csv-pyarrow" both with pyarrow, "csv-stdlib" and "csv-module" with the csv module)
KINDS = {"csv": "as installed (pyarrow present)", "csv-pyarrow": "pyarrow",
         "csv-stdlib": "stdlib (no pyarrow)", "csv-module": "csv module (quoted files)"}


def csv_only(args: argparse.Namespace) -> int:
    """The 2,000,000-vote CSV read with each parser, this tree against ``--compare``,
    rounds interleaved; wall and CPU medians and their ratios."""
    here = Path(__file__).resolve().parent.parent
    trees = {"this tree": here}
    if args.compare:
        trees["baseline"] = Path(args.compare).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "votes.csv"
        _write_votes_csv(path, make_votes(np.random.default_rng(args.seed)), args.id_column)
        runs: dict[tuple[str, str], list[dict]] = {}
        for _ in range(args.repeats):
            for kind in KINDS:
                for name, tree in trees.items():
                    runs.setdefault((kind, name), []).append(_scale_child(tree, kind, str(path)))
    print(f"load average {os.getloadavg()[0]:.1f}; medians of {args.repeats}")
    print("| parser | tree | wall | CPU (all threads) | peak RSS growth |")
    print("|---|---|---:|---:|---:|")
    med: dict[tuple[str, str], tuple[float, float]] = {}
    for (kind, name), rs in runs.items():
        ok = [r for r in rs if r and "error" not in r]
        wall = statistics.median(r["seconds"] for r in ok)
        cpu = statistics.median(r["cpu_seconds"] for r in ok)
        med[kind, name] = wall, cpu
        peak = statistics.median(r["peak_growth_mb"] for r in ok)
        parser = KINDS[kind]
        print(f"| {parser} | {name} | {wall:.3f} s | {cpu:.3f} s | {peak:.0f} MB |")
    if args.compare:
        for kind in KINDS:
            (wt, ct), (wb, cb) = med[kind, "this tree"], med[kind, "baseline"]
            print(f"{kind}: this tree / baseline: wall {wt / wb:.2f}, CPU {ct / cb:.2f}")
    return 0


def _write_votes_csv(path: Path, votes: Votes, ids: bool = False) -> None:
    """``a,b,winner`` lines; with ``ids`` a first column ``id`` unique per line (every
    line distinct: the split parser's worst case)."""
    names = np.array(votes.models)
    winner = np.array(["a", "b", "tie"])[votes.outcome]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("id,a,b,winner\n" if ids else "a,b,winner\n")
        fh.writelines((f"v{k}," if ids else "") + f"{x},{y},{w}\n"
                      for k, (x, y, w) in enumerate(zip(names[votes.a], names[votes.b], winner,
                                                        strict=True)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--ref-repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scale", action="store_true", help="arena-scale memory and CSV reading")
    ap.add_argument("--compare", metavar="DIR",
                    help="another source tree (with --scale or --csv)")
    ap.add_argument("--id-column", action="store_true",
                    help="with --csv: a unique id first on every line (all lines distinct)")
    ap.add_argument("--csv", action="store_true",
                    help="only the 2M-vote CSV read, both parsers, wall and CPU")
    args = ap.parse_args()
    if args.csv:
        return csv_only(args)
    if args.scale:
        return scale(args)
    rng = np.random.default_rng(args.seed)
    rows: list[tuple[str, str, str]] = []

    print(
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs, repeats {args.repeats}"
    )

    votes = make_votes(rng)

    def bt_fit() -> np.ndarray:
        w = win_matrix(votes.a, votes.b, votes.outcome, N_MODELS)
        return fit_strengths(w)[0]

    t_bt, _ = median_time(bt_fit, args.repeats)
    rows.append(("BT fit, 2M votes, 10 models (aggregate + Newman ML)", f"{t_bt:.3f} s", ""))
    t_boot, _ = median_time(lambda: elo_ratings(votes, n_boot=N_BOOT, seed=1), args.repeats)
    rows.append(
        (f"BT + {N_BOOT}-round bootstrap (Elo with 95% CI)", f"{t_boot:.3f} s", "target <= 2 s")
    )

    try:
        import choix
    except ImportError:  # pragma: no cover - reference only
        choix = None
    if choix is not None:
        winners = np.where(votes.outcome == A_WINS, votes.a, votes.b)
        losers = np.where(votes.outcome == A_WINS, votes.b, votes.a)
        data = list(zip(winners.tolist(), losers.tolist(), strict=True))
        ref_params = choix.ilsr_pairwise(N_MODELS, data)
        t_ref, _ = median_time(lambda: choix.ilsr_pairwise(N_MODELS, data), args.ref_repeats)
        ours = np.log(bt_fit())
        gap = np.max(np.abs((ours - ours.mean()) - (ref_params - ref_params.mean())))
        rows.append(
            (
                "reference: choix.ilsr_pairwise on the 2M-vote list",
                f"{t_ref:.3f} s",
                f"max abs log-strength diff {gap:.1e}",
            )
        )
        rows.append(("speed-up, BT fit vs reference", f"{t_ref / t_bt:.0f}x", "target >= 25x"))
        rows.append(
            (
                f"speed-up, BT + {N_BOOT} bootstraps vs {N_BOOT + 1} reference fits (extrapolated)",
                f"{t_ref * (N_BOOT + 1) / t_boot:.0f}x",
                "",
            )
        )

    with tempfile.TemporaryDirectory() as tmp:  # end to end: the CLI's CSV reader
        path = Path(tmp) / "votes.csv"
        _write_votes_csv(path, votes)
        t_csv, _ = median_time(lambda: tables.read_votes(path), args.ref_repeats)
    rows.append(
        (
            "read + validate the same votes as a 2M-row CSV (tables.read_votes)",
            f"{t_csv:.2f} s",
            "stdlib csv parsing dominates",
        )
    )

    table = make_rankings(rng)
    t_kem, _ = median_time(
        lambda: kemeny_from_rankings(table.rankings(), table.models), args.repeats
    )
    rows.append(
        (
            "Kemeny-Young, 8 models, 1,000 rankings (200 samples x 5 raters), exact",
            f"{t_kem * 1000:.1f} ms",
            "target <= 0.5 s",
        )
    )
    t_kem_item, _ = median_time(lambda: kemeny_per_item(table), args.repeats)
    rows.append(
        ("Kemeny-Young per sample (200 consensuses of 5 raters)", f"{t_kem_item * 1000:.1f} ms", "")
    )

    ratings = make_ratings(rng)
    t_alpha, _ = median_time(lambda: [alpha(d, "interval") for d in ratings], args.repeats)
    rows.append(
        (
            "Krippendorff alpha (interval), 1,315 units x 5 raters x 3 criteria",
            f"{t_alpha * 1000:.1f} ms",
            "",
        )
    )
    try:
        import krippendorff
    except ImportError:  # pragma: no cover
        krippendorff = None
    if krippendorff is not None:

        def ref_alpha() -> list[float]:
            return [
                krippendorff.alpha(reliability_data=d, level_of_measurement="interval")
                for d in ratings
            ]

        t_kref, _ = median_time(ref_alpha, args.repeats)
        gap = max(
            abs(a - b)
            for a, b in zip(ref_alpha(), [alpha(d, "interval") for d in ratings], strict=True)
        )
        rows.append(
            (
                "reference: krippendorff.alpha",
                f"{t_kref * 1000:.1f} ms",
                f"{t_kref / t_alpha:.1f}x our time; max abs diff {gap:.1e}",
            )
        )

    width = max(len(r[0]) for r in rows)
    print()
    print(f"| {'what'.ljust(width)} | median | note |")
    print(f"|{'-' * (width + 2)}|--------|------|")
    for what, value, note in rows:
        print(f"| {what.ljust(width)} | {value} | {note} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
