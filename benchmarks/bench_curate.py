"""Curate at ECHO scale: 31,000 samples over 68,000 posts (generated with fast SQL inserts).

Measures, offscreen:
- first paint of the sample list (model + QTableView) and of the whole workspace;
- filter and full-text search latency (re-query + model reset), median and p95;
- next-sample latency with images in the cache (select next row + repaint);
- memory (RSS) after browsing 1,000 samples, and the image caches' bounded totals;
- search as typed and labelling 30,500 selected samples, before/after, quiet and with
  CPU hogs running (benchmarks/curate_scale.py).

Usage:  QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_curate.py [--keep DIR]
        [--hogs N] [--skip-scale]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from curate_scale import (  # noqa: E402  (benchmarks/ is on the path when run as a script)
    Hogs,
    background_jobs,
    measure_labelling,
    measure_search,
    search_queries,
    show_workspace,
    stats,
)

N_SAMPLES = 31_000
N_POSTS = 68_000
N_IMAGES = 60

_VOCABULARY = ("cat dog portrait ghibli watercolor sunset neon sign receipt coffee can soda label "
         "poster city night rain winter snow beach forest mountain castle robot astronaut "
         "vintage car bicycle studio anime pixel sketch oil painting logo font text glasses "
         "hat beard smile baby grandma wedding cake pizza sushi tiger zebra unicorn dragon "
         "spaceship galaxy moon flower garden kitchen office lego clay marble gold silver "
         "yellow tint blur colour shift identity face hands fingers shadow reflection mirror "
         "window door bridge tower river lake ocean desert jungle")
WORDS = _VOCABULARY.split()


def rss_mb() -> float:
    """Resident set size of this process in MiB (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def sentence(r: random.Random, n: int) -> str:
    return " ".join(r.choice(WORDS) for _ in range(n))


def generate(path: Path, seed: int = 0) -> None:
    """Write the 31k/68k project with executemany inserts (no importer, no network)."""
    import io

    from PIL import Image

    from core.store import Project, now_iso
    try:
        from core.store.schema import has_sample_raw
    except ImportError:  # a tree before schema 13

        def has_sample_raw(conn: object) -> bool:
            return False

    r = random.Random(seed)
    project = Project.create(path)  # only called when there is none yet
    stamp = now_iso()
    shas = []
    with project.transaction() as conn:
        for _k in range(N_IMAGES):
            img = Image.new("RGB", (768, 768), (r.randrange(256), r.randrange(256),
                                                r.randrange(256)))
            for _ in range(30):
                x, y = r.randrange(700), r.randrange(700)
                img.paste((r.randrange(256), r.randrange(256), r.randrange(256)),
                          (x, y, x + 60, y + 60))
            buf = io.BytesIO()
            img.save(buf, "PNG")
            sha, _p = project.assets.put(buf.getvalue(), "png")
            conn.execute("INSERT OR IGNORE INTO images(sha256, ext, mime, width, height, bytes, "
                         "created_at) VALUES (?, 'png', 'image/png', 768, 768, ?, ?)",
                         (sha, len(buf.getvalue()), stamp))
            shas.append(sha)
        posts = []
        for k in range(N_SAMPLES):
            posts.append((f"p{k}", None, sentence(r, r.randint(8, 40)), f"2025-03-{1 + k % 28:02d}T"
                          f"{k % 24:02d}:00:00Z", r.choice(WORDS), f"https://x.com/u/status/{k}",
                          f"@user{k % 5000}", json.dumps({"likes": r.randrange(5000),
                                                          "views": r.randrange(10**6)}), stamp))
        for k in range(N_SAMPLES, N_POSTS):
            parent = f"p{r.randrange(N_SAMPLES)}"
            posts.append((f"p{k}", parent, sentence(r, r.randint(3, 25)), "2025-03-30T00:00:00Z",
                          None, None, f"@user{k % 5000}", None, stamp))
        # ``raw`` as the importer keeps it (the line's canonical JSON), so rows have their
        # real size: a bulk UPDATE rewrites whole records
        posts = [(*row, *_raw(dict(zip(_POST_KEYS, row[:8], strict=True)))) for row in posts]
        conn.executemany("INSERT INTO posts(id, parent_id, text, timestamp, keyword, url, "
                         "author, engagement, imported_at, raw, raw_hash) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", posts)
        conn.executemany("INSERT INTO post_images(post_id, position, url, sha256) "
                         "VALUES (?, ?, ?, ?)",
                         [(f"p{k}", j, f"img/{k}_{j}.png", r.choice(shas))
                          for k in range(N_SAMPLES) for j in range(k % 3 + 1)])
        samples, images, feedback, tags = [], [], [], []
        for k in range(N_SAMPLES):
            prompt = sentence(r, r.randint(5, 30))
            edited = prompt + " please" if r.random() < 0.1 else prompt
            i2i = r.random() < 0.5
            shot = r.random() < 0.05
            samples.append((f"s{k:06d}", f"p{k}", edited, prompt,
                            r.choice(["Benchmark", "Analysis", "Trash", None]),
                            "image-to-image" if i2i else "text-to-image", int(shot),
                            "reviewed" if r.random() < 0.3 else "unreviewed", stamp, stamp))
            sha = r.choice(shas)
            if shot:
                images.append((f"s{k:06d}", "input", 0, "img/shot.png", sha, 10, 10, 200, 200))
                images.append((f"s{k:06d}", "output", 0, "img/shot.png", sha, 300, 300, 400, 400))
            else:
                if i2i:
                    images.append((f"s{k:06d}", "input", 0, f"img/{k}_0.png", r.choice(shas),
                                   None, None, None, None))
                images.append((f"s{k:06d}", "output", 0, f"img/{k}_1.png", sha,
                               None, None, None, None))
            for j in range(r.choice([0, 1, 1, 2, 3])):
                feedback.append((f"s{k:06d}", j, None, sentence(r, r.randint(3, 15))))
            if r.random() < 0.3:
                tags.append((f"s{k:06d}", r.choice(["colour", "text-rendering", "identity",
                                                    "style", "template"])))
        raws = [(row[0], *_raw(dict(zip(_SAMPLE_KEYS, row[:8], strict=True))))
                for row in samples]
        columns = ("id, post_id, prompt, original_prompt, quality, split, is_screenshot, "
                   "review_status, created_at, modified_at")
        if has_sample_raw(conn):  # schema 13 keeps them beside the row (ADR 027)
            conn.executemany(f"INSERT INTO samples({columns}) VALUES ({', '.join('?' * 10)})",
                             samples)
            conn.executemany("INSERT INTO sample_raw(sample_id, raw, raw_hash) "
                             "VALUES (?, ?, ?)", raws)
        else:  # earlier schemas in it
            conn.executemany(f"INSERT INTO samples({columns}, raw, raw_hash) VALUES "
                             f"({', '.join('?' * 12)})",
                             [(*row, *r[1:]) for row, r in zip(samples, raws, strict=True)])
        conn.executemany("INSERT INTO sample_images(sample_id, role, position, ref, sha256, "
                         "bbox_x, bbox_y, bbox_w, bbox_h) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         images)
        conn.executemany("INSERT INTO feedback(sample_id, position, post_id, text) "
                         "VALUES (?, ?, ?, ?)", feedback)
        conn.executemany("INSERT OR IGNORE INTO sample_tags(sample_id, tag) VALUES (?, ?)", tags)
    project.conn.execute("ANALYZE")
    project.close()


_POST_KEYS = ("id", "parent_id", "text", "timestamp", "keyword", "url", "author", "engagement")
_SAMPLE_KEYS = ("id", "post_id", "prompt", "original_prompt", "quality", "split",
                "is_screenshot", "review_status")


def _raw(obj: dict[str, object]) -> tuple[str, str]:
    """(raw, raw_hash) of a record as the importer stores them."""
    from core.ingest.records import canonical_json

    text = canonical_json(obj)
    return text, hashlib.sha1(text.encode("utf-8")).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", help="folder to keep the generated project in")
    parser.add_argument("--hogs", type=int, default=1,
                        help="CPU-spinning processes during the 'under load' search runs "
                             "(issue 18: a second process hammering the CPU)")
    parser.add_argument("--skip-scale", action="store_true",
                        help="leave out the before/after search and 30,500-row labelling runs")
    args = parser.parse_args()
    folder = Path(args.keep or tempfile.mkdtemp(prefix="bench-curate-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bench.winnow"
    t0 = time.perf_counter()
    if not path.exists():
        generate(path)
    gen_s = time.perf_counter() - t0

    from PySide6.QtWidgets import QApplication, QTableView

    import ui.curate.workspace  # noqa: F401  (imported before the first paint is timed)
    from core.selection import SampleFilter
    from core.store import Project
    from ui.context import AppContext
    from ui.curate.list_model import SampleListModel

    app = QApplication.instance() or QApplication([])
    project = Project.open(path)
    results: dict[str, object] = {"samples": project.counts()["samples"],
                                  "posts": project.counts()["posts"],
                                  "generate_s": round(gen_s, 1)}
    rss0 = rss_mb()

    # 1. first paint of the list alone, then of the whole workspace
    paint = []
    for _ in range(7):
        t = time.perf_counter()
        model = SampleListModel()
        view = QTableView()
        view.setModel(model)
        view.resize(600, 800)
        model.set_project(project)
        view.show()
        view.grab()
        paint.append(time.perf_counter() - t)
        view.close()
        view.deleteLater()
    app.processEvents()
    results["list_first_paint"] = stats(paint)

    context = AppContext()
    context.bind(lambda *a: None, lambda t, m: print("message:", t, m), lambda t, ms: None)
    t = time.perf_counter()
    ws = show_workspace(context, project)
    results["workspace_first_paint_ms"] = round((time.perf_counter() - t) * 1000, 1)

    # 2. filters and full-text search: re-query + model reset + repaint of the list
    filters = [SampleFilter(quality=("Benchmark",)), SampleFilter(review_status="unreviewed"),
               SampleFilter(split="text-to-image"), SampleFilter(is_screenshot=True),
               SampleFilter(modified=True), SampleFilter(tag="colour"),
               SampleFilter(quality=("Benchmark", "Analysis"), split="image-to-image",
                            review_status="unreviewed"),
               SampleFilter(quality=(None,)), SampleFilter()]

    def timed(selection: SampleFilter) -> float:
        t = time.perf_counter()
        ws.model.set_filter(selection)
        ws.table.viewport().repaint()
        return time.perf_counter() - t

    results["filter"] = stats([timed(f) for _ in range(5) for f in filters])
    r = random.Random(1)
    queries = search_queries(WORDS, r)
    results["search"] = stats([timed(SampleFilter(text=q)) for q in queries])
    results["search_hits_median"] = statistics.median(
        len(SampleFilter(text=q).sample_ids(project)) for q in queries[:10])
    ws.model.set_filter(SampleFilter())

    # 2b. search as the curator types it, before/after, quiet and under load (issue 18)
    if not args.skip_scale:
        results["search_quiet"] = measure_search(app, ws, queries)
        with Hogs(args.hogs):
            results["search_under_load"] = measure_search(app, ws, queries)
        results["search_under_load"]["cpu_hogs"] = args.hogs

    # 3. next sample with images cached: warm 200 samples, then step through them again
    ws.select_row(0)
    for _ in range(200):
        ws.step(1)
        app.processEvents()
    ws.select_row(0)
    app.processEvents()
    steps = []
    for _ in range(200):
        t = time.perf_counter()
        ws.step(1)
        app.processEvents()
        steps.append(time.perf_counter() - t)
    results["next_sample_cached"] = stats(steps)
    results["image_cache_hit_rate"] = round(
        ws.store.full.hits / max(1, ws.store.full.hits + ws.store.full.misses), 3)

    # 4. memory after browsing 1,000 samples
    ws.select_row(0)
    browse = []
    for _ in range(1000):
        t = time.perf_counter()
        ws.step(1)
        app.processEvents()
        browse.append(time.perf_counter() - t)
    results["browse_1000"] = stats(browse)
    results["rss_mb_before"] = round(rss0, 1)
    results["rss_mb_after_1000"] = round(rss_mb(), 1)
    results["image_cache_mb"] = round(ws.store.full.total / 2**20, 1)
    results["image_cache_budget_mb"] = round(ws.store.full.budget / 2**20, 1)
    results["thumb_cache_mb"] = round(ws.store.thumbs.total / 2**20, 2)
    results["list_pages_cached"] = len(ws.model._pages)

    # 5. label 30,500 selected samples (and undo), the real job runner behind the workspace
    if not args.skip_scale:
        stop = background_jobs(context)
        results["label_30500"] = measure_labelling(app, ws)
        stop()

    targets = {"list_first_paint": 300, "filter": 50, "search": 50, "next_sample_cached": 50}
    results["ratio_p95_to_target"] = {
        k: round(results[k]["p95_ms"] / v, 3) for k, v in targets.items()}  # type: ignore[index]
    print(json.dumps(results, indent=2))
    ws.close()
    project.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
