"""Synthetic data sets for the analysis tests and the screenshots (deterministic)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np

MODELS = ("aurora-xl", "brushwork-2", "pixelforge", "lumen-edit", "quill-3", "mosaic-v",
          "driftnet", "ember-1.5")
CATEGORIES = ("portrait", "landscape", "text", "object")
EDIT_TYPES = ("colour", "remove", "add", "style")


def strengths(k: int) -> np.ndarray:
    return np.linspace(1.2, -1.2, k)


def rankings(n_items: int = 200, n_raters: int = 5, models: tuple[str, ...] = MODELS,
             seed: int = 0, noisy_rater: bool = True) -> list[dict[str, Any]]:
    """Full rankings: latent quality + noise; the last rater ranks at random."""
    rng = np.random.default_rng(seed)
    q = strengths(len(models))
    rows = []
    for it in range(n_items):
        item_q = q + rng.normal(0, 0.6, len(models))
        for r in range(n_raters):
            noise = 3.0 if (noisy_rater and r == n_raters - 1) else 0.5
            order = np.argsort(-(item_q + rng.normal(0, noise, len(models))))
            for rank, m in enumerate(order, 1):
                rows.append({"rater": f"rater{r + 1}", "item": f"i{it:03d}",
                             "model": models[m], "rank": float(rank),
                             "category": CATEGORIES[it % len(CATEGORIES)]})
    return rows


def votes(n: int = 3000, models: tuple[str, ...] = MODELS, seed: int = 0,
          criteria: tuple[str, ...] = ("preference",), raters: int = 0) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    q = strengths(len(models))
    rows = []
    for k in range(n):
        i, j = rng.choice(len(models), 2, replace=False)
        p = 1 / (1 + np.exp(-(q[i] - q[j])))
        u = rng.random()
        winner = "tie" if abs(u - p) < 0.05 else ("a" if u < p else "b")
        row = {"a": models[i], "b": models[j], "winner": winner,
               "criterion": criteria[k % len(criteria)],
               "split": "text-to-image" if k % 3 else "image-to-image"}
        if raters:
            row["rater"] = f"rater{k % raters + 1}"
            row["item"] = f"v{k // raters:04d}"
        rows.append(row)
    return rows


def likert(n_units: int = 60, n_raters: int = 5, models: tuple[str, ...] = MODELS,
           seed: int = 0) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    q = strengths(len(models))
    rows = []
    for u in range(n_units):
        base = rng.normal(0, 0.5)
        for mi, m in enumerate(models):
            for r in range(n_raters):
                bad = r == n_raters - 1
                for c, crit in enumerate(("IF", "IC", "VQ")):
                    mu = 3.4 + q[mi] + base + 0.2 * c
                    v = rng.integers(1, 6) if bad else np.clip(round(mu + rng.normal(0, .6)), 1, 5)
                    rows.append({"rater": f"rater{r + 1}", "unit": f"u{u:03d}", "model": m,
                                 "criterion": crit, "value": float(v),
                                 "category": CATEGORIES[u % len(CATEGORIES)],
                                 "edit_type": EDIT_TYPES[(u // 4) % len(EDIT_TYPES)]})
    return rows


def scores(n_samples: int = 100, models: tuple[str, ...] = MODELS, judges: int = 3,
           seed: int = 0) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    q = strengths(len(models))
    rows = []
    for s in range(n_samples):
        for mi, m in enumerate(models):
            for j in range(judges):
                rows.append({"sample": f"s{s:03d}", "model": m, "judge": f"judge{j + 1}",
                             "score": float(np.clip(round(6 + 2 * q[mi] + rng.normal(0, 1.5)),
                                                    1, 10)),
                             "split": "text-to-image" if s % 2 else "image-to-image"})
    return rows


def checklist(models: tuple[str, ...] = MODELS, seed: int = 0) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    q = strengths(len(models))
    rows = []
    for mi, m in enumerate(models):
        for cat in ("T2I", "I2I", "Is2I", "T2Is", "I(s)2Is"):
            for sub in range(3):
                for case in range(4):
                    p = 1 / (1 + np.exp(-(q[mi] + 1.0)))
                    ans = (rng.random(6) < p).astype(int)
                    rows.append({"model": m, "category": cat, "subtask": f"{cat}-{sub}",
                                 "case": f"c{case}", **{f"q{k + 1}": int(ans[k])
                                                        for k in range(6)}})
    return rows


def write_csv(path: Path, rows: list[dict[str, Any]], columns: list[str] | None = None) -> Path:
    columns = columns or list(rows[0])
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(columns)
        for r in rows:
            w.writerow([r[c] for c in columns])
    return path


# -- a small project with rating sessions and metric results (through the core APIs) ----------

PROJECT_MODELS = ("aurora-xl", "brushwork-2", "pixelforge")


def _png(seed: int) -> bytes:
    import io

    from PIL import Image

    img = Image.new("RGB", (32, 24), ((seed * 53) % 256, (seed * 97) % 256, (seed * 31) % 256))
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


def build_project(path: Path, n_samples: int = 4) -> Any:
    """Samples s000… (alternating splits) with one input and outputs of PROJECT_MODELS."""
    from core.store import Project
    from core.store.project import now_iso

    project = Project.create(path)
    now = now_iso()
    with project.transaction() as conn:
        for k in range(n_samples):
            sid = f"s{k:03d}"
            split = "image-to-image" if k % 2 else "text-to-image"
            conn.execute("INSERT INTO samples(id, prompt, original_prompt, split, quality, "
                         "created_at, modified_at) VALUES (?,?,?,?,?,?,?)",
                         (sid, f"edit {k}", f"edit {k}", split, "Benchmark", now, now))
            for m, model in enumerate((None, *PROJECT_MODELS)):
                sha, _ = project.assets.put(_png(100 * k + m), "png")
                conn.execute("INSERT OR IGNORE INTO images(sha256, ext, created_at) "
                             "VALUES (?, 'png', ?)", (sha, now))
                if model is None:
                    conn.execute("INSERT INTO sample_images(sample_id, role, position, sha256) "
                                 "VALUES (?, 'input', 0, ?)", (sid, sha))
                else:
                    conn.execute("INSERT INTO model_outputs(sample_id, model, sha256, "
                                 "imported_at) VALUES (?,?,?,?)", (sid, model, sha, now))
    return project


def rated_session(project: Any, out: Path, protocol: str, answer: Any,
                  n_samples: int = 4) -> None:
    """Create a session with 2 raters on every task, answer everything, merge it back."""
    from core.rating.design import SessionDesign
    from core.rating.merge import merge_files
    from core.rating.session_file import RatingSession
    from core.rating.sessions import create_session, write_session_files

    design = SessionDesign(name=protocol, protocol=protocol,
                           sample_ids=tuple(f"s{k:03d}" for k in range(n_samples)),
                           models=PROJECT_MODELS, raters=2, overlap=2, seed=1)
    create_session(project, design)
    files = write_session_files(project, protocol, out)
    for n, f in enumerate(files):
        s = RatingSession.open(f)
        s.set_rater(f"Rater {n + 1}")
        while (t := s.next_task()) is not None:
            s.submit(t.task_id, answer(t, n), time_ms=1000)
        s.close()
    merge_files(project, files)


def save_metric(project: Any, metric: str, values: dict[tuple[str, str], Any]) -> None:
    """Store results of ``metric``: ``{(sample, model): value or details dict}``."""
    from core.metrics.base import MetricResult
    from core.metrics.store import save_results

    rows = []
    for (sample, model), v in values.items():
        result = (MetricResult.ok(v["value"], **v["details"]) if isinstance(v, dict)
                  else MetricResult.ok(v))
        rows.append((sample, model, f"h-{sample}-{model}", result, 0.1))
    save_results(project, metric, 1, {}, "cfg1", rows)
