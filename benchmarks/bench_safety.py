"""What the data-safety rules cost (issue #11): probing before opening, fsynced atomic
exports with an ownership marker, and the ownership check before ``--overwrite``.

    PYTHONPATH=. python benchmarks/bench_safety.py [--samples 200] [--repeat 7]

Prints JSON: medians of ``--repeat`` runs in this one process, and ratios against a
baseline measured in the same run (a bare ``sqlite3.connect`` for opening; the same
bytes written with plain ``open().write()`` and no fsync, as the exports did before, for
exporting).
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path


def build(path: Path, n: int) -> None:
    """A project with ``n`` samples, each with one input and one output image."""
    from PIL import Image

    from core.ingest.importer import import_jsonl
    from core.store import Project

    src = path.parent / "src"
    (src / "img").mkdir(parents=True)
    lines = []
    for k in range(n):
        for role, seed in (("in", k), ("out", 10_000 + k)):
            img = Image.new("RGB", (256, 192), (seed % 256, seed * 7 % 256, seed * 13 % 256))
            for x in range(0, 256, 5):
                img.putpixel((x, (x * seed) % 192), (255, 255, 255))
            buf = io.BytesIO()
            img.save(buf, "PNG")
            (src / "img" / f"{role}{k}.png").write_bytes(buf.getvalue())
        lines.append({"id": f"p{k}", "text": f"post {k}",
                      "image_urls": [f"img/in{k}.png", f"img/out{k}.png"]})
        lines.append({"id": f"s{k:04d}", "post_id": f"p{k}", "prompt": f"edit {k}",
                      "quality": "Benchmark", "split": "i2i", "input_images": [0],
                      "output_images": [1]})
    (src / "posts.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    with Project.create(path) as project:
        import_jsonl(project, src / "posts.jsonl")


def timed(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    """Median seconds of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def plain_copy(src: Path, dst: Path) -> None:
    """The export's files written the old way: plain writes, no fsync, no marker."""
    for path in src.rglob("*"):
        rel = path.relative_to(src)
        if path.is_dir():
            (dst / rel).mkdir(parents=True, exist_ok=True)
        elif path.name != ".winnow-files.jsonl":
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            with open(dst / rel, "wb") as fh:
                fh.write(path.read_bytes())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    from core.curate.export import export_benchmark
    from core.export_folder import foreign_entries
    from core.store import Project

    work = Path(tempfile.mkdtemp(prefix="bench-safety-"))
    try:
        path = work / "p.winnow"
        build(path, args.samples)

        def bare_open() -> None:
            conn = sqlite3.connect(path)
            conn.execute("PRAGMA journal_mode = WAL").fetchone()
            conn.execute("SELECT count(*) FROM samples").fetchone()
            conn.close()

        def project_open() -> None:
            with Project.open(path) as project:
                project.conn.execute("SELECT count(*) FROM samples").fetchone()

        counter = iter(range(10**6))

        def export() -> None:
            with Project.open(path, readonly=True) as project:
                export_benchmark(project, work / f"e{next(counter)}")

        t_bare, t_open = timed(bare_open, args.repeat), timed(project_open, args.repeat)
        t_export = timed(export, args.repeat)
        reference = work / "e0"
        files = sum(1 for p in reference.rglob("*") if p.is_file())
        size = sum(p.stat().st_size for p in reference.rglob("*") if p.is_file())
        copies = iter(range(10**6))
        t_plain = timed(lambda: plain_copy(reference, work / f"plain{next(copies)}"),
                        args.repeat)
        t_check = timed(lambda: foreign_entries(reference), args.repeat)
        print(json.dumps({
            "samples": args.samples, "export_files": files, "export_mib": round(size / 2**20, 2),
            "repeat": args.repeat,
            "open_bare_sqlite_ms": round(t_bare * 1000, 2),
            "open_project_ms": round(t_open * 1000, 2),
            "open_ratio": round(t_open / t_bare, 2),
            "export_s": round(t_export, 3),
            "plain_write_same_files_s": round(t_plain, 3),
            "export_ratio": round(t_export / t_plain, 2),
            "overwrite_check_s": round(t_check, 3),
        }, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
