"""A realistic, self-contained demo data set generated deterministically from a seed.

:func:`generate_demo_sources` writes, under one folder:

- ``posts.jsonl`` — raw posts (with ``replies_above`` / ``replies_below`` reply posts)
  and post-processed samples, in the format of ADR 001, images referenced by
  relative paths ``images/<name>.png``;
- ``images/`` — small Pillow-drawn pictures (inputs, outputs, chat screenshots and
  before/after collages);
- ``outputs/<model>/<sample_id>.png`` — outputs of four fictitious models for every
  Benchmark sample, each with a recognisable systematic behaviour, plus one missing
  file and one file that matches no sample;
- ``truth/<sample_id>/{input,output}_<k>.png`` — the exact pictures pasted into each
  screenshot (what a crop with the true box must give back);
- ``.winnow-files.jsonl`` — Winnow's ownership marker listing every file (ADR 005); the
  demo project adds its photos and rater files to it.

Nothing is read from outside the repository and nothing is fetched; the post
``url`` fields are never opened.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from PIL import Image

from core.demo import drawing as dd
from core.demo import edits as de
from core.demo.threads import Boxes, Generator, thread
from core.export_folder import ExportFolder

MODELS = ["aurora-xl", "brushwork-2", "pixelforge", "lumen-edit"]
MODEL_BEHAVIOUR = {
    "aurora-xl": "adds a yellow tint",
    "brushwork-2": "blurs",
    "pixelforge": "posterises",
    "lumen-edit": "close to the reference output",
}
#: what the folder's ownership marker says it is
KIND = "demo data set"
_START = datetime(2025, 3, 25, 17, 0, tzinfo=UTC)  # GPT-4o image generation launch


@dataclass
class DemoSources:
    """Where the demo data set lies and what it contains."""

    root: Path
    posts_jsonl: Path
    outputs_dir: Path
    screenshot_boxes: dict[str, Boxes]
    models: list[str]
    n_posts: int
    n_samples: int
    screenshot_truth: dict[str, dict[str, list[Path]]] = field(default_factory=dict)
    missing_outputs: list[Path] = field(default_factory=list)
    extra_outputs: list[Path] = field(default_factory=list)


class _Folder:
    """Writes the data set's files into an export folder (paths relative to its root)."""

    def __init__(self, export: ExportFolder) -> None:
        self.export = export
        self.root = export.target

    def png(self, img: Image.Image, rel: str, **params: Any) -> None:
        with self.export.open(rel, "wb") as fh:
            img.save(fh, "PNG", **params)

    def mkdir(self, rel: str) -> None:
        self.export.mkdir(rel)

    def text(self, rel: str, text: str) -> None:
        self.export.write_bytes(rel, text.encode("utf-8"))


def generate_demo_sources(root: Path, *, seed: int = 0, n_threads: int = 120) -> DemoSources:
    """Write the demo data set under ``root`` (deterministic for a given ``seed``) and
    describe it.

    The folder is built under a hidden name and published whole with Winnow's ownership
    marker (:class:`core.export_folder.ExportFolder`, ADR 005). ``root`` must be absent,
    empty, or a demo data set Winnow wrote there and nobody changed since (which is
    replaced); anything else raises :class:`core.export_files.NotOwnedError` naming what
    is in the way, before anything is written.
    """
    if n_threads < 4:
        raise ValueError("n_threads must be at least 4")
    root = Path(root)
    with ExportFolder(root, KIND, overwrite=True) as export:
        folder = _Folder(export)
        g = _generate(folder, seed, n_threads)
        missing, extra = _model_outputs(g, folder)
        export.publish({"seed": seed, "threads": n_threads})
    n_samples = sum(1 for line in g.lines if "prompt" in line)
    return DemoSources(root=root, posts_jsonl=root / "posts.jsonl", outputs_dir=root / "outputs",
                       screenshot_boxes=g.boxes, models=list(MODELS), n_posts=g.n_posts,
                       n_samples=n_samples, screenshot_truth=g.truth, missing_outputs=missing,
                       extra_outputs=extra)


def _generate(folder: _Folder, seed: int, n_threads: int) -> Generator:
    """Every thread, its pictures and posts.jsonl; returns the run's state."""
    g = Generator(folder.root, seed, folder.png)
    r = g.rnd
    raw = set(r.sample(range(n_threads), max(1, round(n_threads * 0.08))))
    rest = [t for t in range(n_threads) if t not in raw]
    templates = {rest[1], rest[len(rest) // 2]}
    eligible = [t for t in rest if t not in templates]
    shots = set(r.sample(eligible, max(1, round(n_threads * 0.16))))
    span = (datetime(2025, 9, 30, tzinfo=UTC) - _START).total_seconds()
    offsets = sorted(float(x) for x in g.np.uniform(0, span, n_threads))
    for t in range(n_threads):
        when = _START + timedelta(seconds=int(offsets[t]))
        thread(g, t, when, processed=t not in raw, screenshot=t in shots, template=t in templates)
    folder.text("posts.jsonl", "".join(json.dumps(line, ensure_ascii=False) + "\n"
                                       for line in g.lines))
    return g


def _model_outputs(g: Generator, folder: _Folder) -> tuple[list[Path], list[Path]]:
    """Write outputs/<model>/<sample_id>.png for every Benchmark sample, but one, and an
    orphan that matches no sample; returns (missing, extra) paths."""
    behave = {"aurora-xl": lambda im: de.yellow_tint(im, 0.3),
              "brushwork-2": lambda im: de.blur(im, 2.5),
              "pixelforge": lambda im: de.posterise(im, 2), "lumen-edit": de.near_copy}
    ids = sorted(g.refs)
    skip = (MODELS[2], g.rnd.choice(ids)) if ids else None
    missing: list[Path] = []
    for model in MODELS:
        folder.mkdir(f"outputs/{model}")
        for sid in ids:
            rel = f"outputs/{model}/{sid}.png"
            if (model, sid) == skip:
                missing.append(folder.root / rel)
                continue
            ref = g.refs[sid]
            if max(ref.size) > 320:
                ref = ref.resize((ref.width * 320 // max(ref.size),
                                  ref.height * 320 // max(ref.size)))
            g.save_png(behave[model](ref), rel, compress_level=6)
    extra = f"outputs/{MODELS[3]}/orphan-0001.png"
    folder.png(dd.draw_scene(dd.random_params("landscape", g.rnd), (256, 256)), extra)
    return missing, [folder.root / extra]
