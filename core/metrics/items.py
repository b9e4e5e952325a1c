"""Turn a selection (sample ids × models) into the :class:`PairItem` units metrics score.

Inputs are the sample's images with role ``input`` (cropped to their box when the
sample is a screenshot), in position order.  The output is the model's imported
output (``model_outputs``), or, for the pseudo-model ``@sample``, the sample's own
first ``output`` image.  A (sample, model) without an output is simply absent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.metrics.base import SAMPLE_MODEL, ImageRef, PairItem
from core.store.project import Project


def available_models(project: Project) -> list[str]:
    """``@sample`` (when any sample has an output image) and every imported model."""
    models = [row[0] for row in project.conn.execute(
        "SELECT DISTINCT model FROM model_outputs ORDER BY model")]
    has_own = project.conn.execute(
        "SELECT 1 FROM sample_images WHERE role = 'output' AND sha256 IS NOT NULL LIMIT 1"
    ).fetchone()
    return ([SAMPLE_MODEL] if has_own else []) + models


def _ref(project: Project, sha: str, ext: str | None, bbox: Sequence[Any] | None) -> ImageRef:
    path = project.assets.path(sha, ext) if ext else project.assets.find(sha)
    if path is not None and not path.exists():
        path = project.assets.find(sha)
    box = None
    if bbox and all(v is not None for v in bbox):  # the four bbox_x, _y, _w, _h columns
        x, y, w, h = (int(v) for v in bbox)
        box = (x, y, w, h)
    return ImageRef(sha, path, box)


def collect_items(project: Project, sample_ids: Sequence[str],
                  models: Sequence[str]) -> list[PairItem]:
    """Items for every selected sample and model that has an output, in (sample, model) order."""
    ids = list(dict.fromkeys(sample_ids))
    wanted = list(dict.fromkeys(models))
    if not ids or not wanted:
        return []
    conn = project.conn
    prompts: dict[str, str] = {}
    inputs: dict[str, list[ImageRef]] = {}
    own: dict[str, ImageRef] = {}
    outputs: dict[tuple[str, str], ImageRef] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ",".join("?" * len(chunk))
        prompts.update(conn.execute(
            f"SELECT id, prompt FROM samples WHERE id IN ({marks})", chunk))
        rows = conn.execute(
            "SELECT si.sample_id, si.role, si.sha256, i.ext, si.bbox_x, si.bbox_y, si.bbox_w, "
            "si.bbox_h FROM sample_images si LEFT JOIN images i ON i.sha256 = si.sha256 "
            f"WHERE si.sample_id IN ({marks}) AND si.role IN ('input', 'output') "
            "AND si.sha256 IS NOT NULL ORDER BY si.sample_id, si.position, si.id", chunk)
        for sid, role, sha, ext, *box in rows:
            ref = _ref(project, sha, ext, box)
            if role == "input":
                inputs.setdefault(sid, []).append(ref)
            elif sid not in own:
                own[sid] = ref
        for sid, model, sha, ext in conn.execute(
                "SELECT m.sample_id, m.model, m.sha256, i.ext FROM model_outputs m "
                f"LEFT JOIN images i ON i.sha256 = m.sha256 WHERE m.sample_id IN ({marks})",
                chunk):
            outputs[(sid, model)] = _ref(project, sha, ext, None)
    items: list[PairItem] = []
    for sid in ids:
        if sid not in prompts:
            continue
        for model in wanted:
            out = own.get(sid) if model == SAMPLE_MODEL else outputs.get((sid, model))
            if out is None:
                continue
            items.append(PairItem(sid, model, prompts[sid] or "", tuple(inputs.get(sid, ())),
                                  out))
    return items


def rating_sessions(project: Project) -> list[tuple[str, list[str], list[str]]]:
    """``(name, sample ids, models)`` of each rating session, gold tasks excluded.

    Lets a run score exactly what raters saw (the other selection besides the
    Curate filter).
    """
    out = []
    sessions = project.conn.execute("SELECT id, name FROM rating_sessions ORDER BY name")
    for sid, name in sessions.fetchall():
        samples = [r[0] for r in project.conn.execute(
            "SELECT DISTINCT sample_id FROM rating_tasks WHERE session_id = ? AND gold IS NULL "
            "ORDER BY sample_id", (sid,))]
        models = [r[0] for r in project.conn.execute(
            "SELECT DISTINCT b.model FROM rating_blinding b JOIN rating_tasks t "
            "ON t.session_id = b.session_id AND t.task_id = b.task_id "
            "WHERE b.session_id = ? AND t.gold IS NULL ORDER BY b.model", (sid,))]
        out.append((name, samples, models))
    return out
