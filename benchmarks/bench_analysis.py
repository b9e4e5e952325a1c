"""Analyze workspace computations on realistic synthetic data (8 models, 200 items, 5 raters).

Run: .venv/bin/python benchmarks/bench_analysis.py  — prints median / p95 per case.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "analyze"))

import analyze_data as data  # noqa: E402

from core.analysis.report import AnalysisOptions, analyze, export_html  # noqa: E402


def timed(fn, repeat: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(0.95 * len(times)))]


def main() -> None:
    cases = {
        "rankings 8x200x5 (8,000 rows)": ("rankings", data.rankings(200, 5)),
        "votes 20,000 x 3 criteria, 5 raters": ("votes", data.votes(
            20_000, criteria=("preference", "coherence", "alignment"), raters=5)),
        "likert 200 units x 8 models x 5 raters x 3 (24,000 rows)": ("likert",
                                                                    data.likert(200, 5)),
        "scores 200 samples x 8 models x 3 judges": ("scores", data.scores(200)),
        "checklist 8 models x 60 cases": ("checklist", data.checklist()),
    }
    opt = AnalysisOptions(n_boot=1000, ci=0.95, seed=0)
    print(f"{'case':58s} {'analyze median':>15s} {'p95':>8s} {'export':>8s}")
    for name, (kind, rows) in cases.items():
        med, p95 = timed(lambda rows=rows, kind=kind: analyze(rows, kind, opt), 5)
        res = analyze(rows, kind, opt)
        with tempfile.TemporaryDirectory() as tmp:
            exp, _ = timed(lambda res=res, tmp=tmp: export_html(res, Path(tmp) / "r"), 1)
        print(f"{name:58s} {med:14.2f}s {p95:7.2f}s {exp:7.2f}s")


if __name__ == "__main__":
    main()
