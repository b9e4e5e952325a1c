"""What blinding and tamper evidence cost (issue #12, ADRs 057–059).

Over a side-by-side session with 1024×768 JPEG outputs (4 models) and 10 % gold:

* image pipeline, per image: decode + canvas + encode of one output; a gold copy
  (degrade + grain matched to a length); the ratio of the two;
* ``write_session_files`` for the whole session (one rater file);
* ``RatingSession.submit`` with the MAC chain (format 2) and without it (the same
  file with its chain removed, as an earlier version wrote it), same disk, same run;
* ``merge_file`` of the answered file (read-only open, every rule, MAC chain, image
  digests) and ``audit_file`` with the project.

Run: ``.venv/bin/python benchmarks/bench_rating_integrity.py [--tasks 300] [--dir /tmp]``
"""

from __future__ import annotations

import argparse
import io
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def _jpeg(seed: int) -> bytes:
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    base = rng.integers(0, 255, (24, 32, 3), dtype=np.uint8)
    img = Image.fromarray(base).resize((1024, 768), Image.Resampling.BICUBIC)
    noisy = np.clip(np.asarray(img) + rng.normal(0, 6, (768, 1024, 3)), 0, 255)
    out = io.BytesIO()
    Image.fromarray(noisy.astype(np.uint8)).save(out, "JPEG", quality=90)
    return out.getvalue()


def build(base: Path, tasks: int) -> tuple[object, Path]:
    from bench_rating import populate

    from core.rating.design import SessionDesign
    from core.rating.sessions import create_session
    from core.store import Project

    models = ("m-a", "m-b", "m-c", "m-d")
    n_samples = max(2, tasks // 6 + 1)
    project = Project.create(base / "bench.winnow")
    populate(project, n_samples, models, _jpeg)
    design = SessionDesign(name="bench", protocol="side_by_side",
                           sample_ids=tuple(f"s{k:04d}" for k in range(n_samples)),
                           models=models, raters=1, tasks_per_rater=tasks, gold_rate=0.1,
                           gold_mode="auto")
    create_session(project, design)
    return project, base / "files"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--dir", type=Path, default=Path.cwd())
    args = parser.parse_args()
    import numpy as np
    from bench_rating import stats as line
    from PIL import Image

    from core.rating import images
    from core.rating.audit import audit_file
    from core.rating.merge import merge_file
    from core.rating.session_file import RatingSession
    from core.rating.sessions import write_session_files

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        project, out = build(Path(tmp), args.tasks)
        # per image, on one sample's outputs
        data = [_jpeg(900 + k) for k in range(20)]
        regular, gold = [], []
        for blob in data:
            s = time.perf_counter()
            encoded = images.encode(images.fit(images.decode(blob, "x"), (1024, 768)))
            regular.append((time.perf_counter() - s) * 1000)
            rgb = np.asarray(Image.open(io.BytesIO(blob)).convert("RGB"))
            s = time.perf_counter()
            images.encode_like(images.degrade(rgb), len(encoded), b"seed")
            gold.append((time.perf_counter() - s) * 1000)
        print(line("output: decode + canvas + encode", regular))
        print(line("gold copy: degrade + grain matched", gold))
        print(f"{'gold / output median ratio':<44} "
              f"{statistics.median(gold) / statistics.median(regular):.2f}")
        s = time.perf_counter()
        (path,) = write_session_files(project, "bench", out)  # type: ignore[arg-type]
        print(f"{'write_session_files (1 file)':<44} {time.perf_counter() - s:8.1f} s  "
              f"({args.tasks} tasks, {path.stat().st_size / 2**20:.1f} MiB)")
        legacy = Path(tmp) / "legacy.winnow-session"
        shutil.copy(path, legacy)
        conn = sqlite3.connect(legacy)
        conn.execute("DROP TABLE chain")
        conn.commit()
        conn.close()
        timings: dict[str, list[float]] = {"with MAC chain": [], "without (format 1)": []}
        for label, target in (("with MAC chain", path), ("without (format 1)", legacy)):
            session = RatingSession.open(target)
            session.set_rater("bench")
            k = 0
            while (task := session.next_task()) is not None:
                s = time.perf_counter()
                session.submit(task.task_id, {"winner": ("left", "right")[k % 2]},
                               time_ms=1000)
                timings[label].append((time.perf_counter() - s) * 1000)
                k += 1
            session.close()
            print(line(f"submit {label}", timings[label]))
        print(f"{'submit ratio (MAC / none), medians':<44} "
              f"{statistics.median(timings['with MAC chain']) / statistics.median(timings['without (format 1)']):.2f}")  # noqa: E501
        merges, audits = [], []
        for _ in range(5):
            s = time.perf_counter()
            merge_file(project, path)  # type: ignore[arg-type]
            merges.append((time.perf_counter() - s) * 1000)
            s = time.perf_counter()
            audit_file(path, project)
            audits.append((time.perf_counter() - s) * 1000)
        print(line(f"merge_file ({args.tasks} judgments)", merges))
        print(line("audit_file with the project", audits))
        project.close()  # type: ignore[attr-defined]
    return 0


if __name__ == "__main__":
    sys.exit(main())
