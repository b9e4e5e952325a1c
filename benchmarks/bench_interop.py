"""Hugging Face dataset export and import (issue 17): time and peak memory by size.

Builds projects of N samples (one 256×256 noise PNG input and output each, ≈ 0.4 MB of
images a sample), then times, each in a fresh subprocess so peak RSS is its own:
the JSON Lines export (reference), the ``--format hf`` export, and ``import hf`` of that
export into a new project.  Memory should not grow with N (shards and import chunks are
bounded); time should grow linearly.

    .venv/bin/python benchmarks/bench_interop.py [--sizes 200,800] [--runs 3]
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHILD = """
import json, resource, sys, time
from pathlib import Path
from core.store import Project
mode, project, out = sys.argv[1:4]
t0 = time.perf_counter()
if mode == "import":
    from core.interop.hf_import import import_hf
    p = Project.create(out)
    n = import_hf(p, project).imported
else:
    p = Project.open(project, readonly=True)
    if mode == "hf":
        from core.interop.hf_export import export_benchmark_hf as export
    else:
        from core.curate.export import export_benchmark as export
    n = export(p, out).exported
p.close()
print(json.dumps({"seconds": time.perf_counter() - t0, "n": n,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def build(path: Path, n: int) -> None:
    """A project of ``n`` Benchmark samples with a noise PNG input and output each."""
    import numpy as np
    from PIL import Image

    sys.path.insert(0, str(REPO))
    from core.store import Project
    from core.store.project import now_iso

    rng = np.random.default_rng(0)
    project = Project.create(path)
    stamp = now_iso()
    with project.transaction() as conn:
        for k in range(n):
            sid = f"s{k:05d}"
            conn.execute("INSERT INTO samples(id, prompt, original_prompt, split, quality, "
                         "created_at, modified_at) VALUES (?, ?, ?, 'image-to-image', "
                         "'Benchmark', ?, ?)", (sid, f"edit {k}", f"edit {k}", stamp, stamp))
            for role in ("input", "output"):
                buf = io.BytesIO()
                Image.fromarray(rng.integers(0, 256, (256, 256, 3), dtype=np.uint8)).save(
                    buf, "PNG")
                sha, _ = project.assets.put(buf.getvalue(), "png")
                conn.execute("INSERT OR IGNORE INTO images(sha256, ext, created_at) "
                             "VALUES (?, 'png', ?)", (sha, stamp))
                conn.execute("INSERT INTO sample_images(sample_id, role, position, sha256) "
                             "VALUES (?, ?, 0, ?)", (sid, role, sha))
    project.close()


def run(mode: str, source: Path, out: Path) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", CHILD, mode, str(source), str(out)],
                          capture_output=True, text=True, check=True, cwd=REPO,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="200,800")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for n in (int(x) for x in args.sizes.split(",")):
            project = root / f"p{n}.winnow"
            build(project, n)
            results: dict[str, list[dict[str, float]]] = {"jsonl": [], "hf": [], "import": []}
            for r in range(args.runs):
                results["jsonl"].append(run("jsonl", project, root / f"j{n}-{r}"))
                results["hf"].append(run("hf", project, root / f"h{n}-{r}"))
                results["import"].append(run("import", root / f"h{n}-0",
                                             root / f"i{n}-{r}.winnow"))
            for mode, runs in results.items():
                secs = statistics.median(x["seconds"] for x in runs)
                peak = statistics.median(x["peak_mb"] for x in runs)
                rows.append((n, mode, secs, peak, n / secs))
            size = sum(f.stat().st_size for f in (root / f"h{n}-0").rglob("*") if f.is_file())
            print(f"N={n}: hf folder {size / 2**20:.1f} MiB", flush=True)
    print("| samples | what | median s | samples/s | peak RSS MB |")
    print("|---|---|---|---|---|")
    for n, mode, secs, peak, rate in rows:
        print(f"| {n} | {mode} | {secs:.2f} | {rate:.0f} | {peak:.0f} |")


if __name__ == "__main__":
    main()
