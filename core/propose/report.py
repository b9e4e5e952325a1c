"""How good are the proposals?  Acceptance and correction rates per field and template
version, confusion matrices (quality labels, image roles, feedback labels), the IoU of
proposed against corrected boxes, failure keywords, runs, tokens and cost.

Only *decided* fields (accepted or corrected) enter the confusion matrices and IoU: a
field still waiting for a curator says nothing about the model yet.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from core.imaging.boxes import iou
from core.propose.kinds import FEEDBACK_LABELS, QUALITIES, ROLES
from core.propose.store import failures
from core.store.project import Project

NO_LABEL = "(none)"


@dataclass
class Confusion:
    """Rows: what the model proposed; columns: what the field holds now."""

    labels: list[str]
    counts: dict[tuple[str, str], int] = field(default_factory=dict)

    def add(self, proposed: str, final: str) -> None:
        for label in (proposed, final):
            if label not in self.labels:
                self.labels.append(label)
        self.counts[(proposed, final)] = self.counts.get((proposed, final), 0) + 1

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def matrix(self) -> list[list[int]]:
        """Counts as rows (proposed) × columns (final), in :attr:`labels` order."""
        return [[self.counts.get((a, b), 0) for b in self.labels] for a in self.labels]

    def to_json(self) -> dict[str, Any]:
        return {"labels": self.labels, "rows": "proposed", "columns": "final",
                "matrix": self.matrix(), "total": self.total,
                "agreement": (sum(self.counts.get((x, x), 0) for x in self.labels) / self.total
                              if self.total else None)}


@dataclass
class Report:
    """Everything :func:`build` measures."""

    rates: list[dict[str, Any]]
    quality: Confusion
    roles: Confusion
    feedback: Confusion
    iou: dict[str, Any]
    keywords: list[tuple[str, int]]
    runs: list[dict[str, Any]]
    failures: list[dict[str, Any]]
    totals: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"rates": self.rates, "confusion": {"quality": self.quality.to_json(),
                                                   "roles": self.roles.to_json(),
                                                   "feedback": self.feedback.to_json()},
                "box_iou": self.iou, "failure_keywords": [
                    {"keyword": k, "count": n} for k, n in self.keywords],
                "runs": self.runs, "failures": self.failures, "totals": self.totals}


def keyword_counts(project: Project, limit: int | None = None) -> list[tuple[str, int]]:
    """Failure keywords of community feedback as the fields hold them now, most common
    first (a curator's correction counts, the model's replaced value does not)."""
    sql = ("SELECT keyword, count(*) AS n FROM feedback_labels WHERE label = 'failure' "
           "AND keyword != '' GROUP BY keyword ORDER BY n DESC, keyword")
    rows = project.conn.execute(sql + (f" LIMIT {int(limit)}" if limit else "")).fetchall()
    return [(r[0], int(r[1])) for r in rows]


def _rates(project: Project) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str, int, str], Counter[str]] = defaultdict(Counter)
    for fld, status, kind, version, model in project.conn.execute(
            "SELECT v.field, v.status, p.kind, t.version, p.model FROM proposal_field_status v "
            "JOIN proposals p ON p.id = v.proposal_id "
            "JOIN proposal_templates t ON t.id = p.template_id"):
        name = "feedback" if fld.startswith("feedback/") else fld
        groups[(name, kind, int(version), model)][status] += 1
    out = []
    for (name, kind, version, model), c in sorted(groups.items()):
        decided = c["accepted"] + c["corrected"]
        out.append({"field": name, "kind": kind, "template_version": version, "model": model,
                    "fields": sum(c.values()), "proposed": c["proposed"],
                    "accepted": c["accepted"], "corrected": c["corrected"],
                    "accepted_rate": c["accepted"] / decided if decided else None,
                    "corrected_rate": c["corrected"] / decided if decided else None})
    return out


def _decided(project: Project, where: str) -> list[tuple[Any, ...]]:
    return project.conn.execute(
        "SELECT v.sample_id, v.field, v.proposed, s.post_id, s.quality FROM "
        "proposal_field_status v JOIN samples s ON s.id = v.sample_id "
        f"WHERE v.status != 'proposed' AND {where}").fetchall()


def _roles(project: Project) -> Confusion:
    conf = Confusion(list(ROLES))
    for sid, _f, proposed, post_id, _q in _decided(project, "v.field = 'roles'"):
        keys = [r[0] or r[1] for r in project.conn.execute(
            "SELECT sha256, url FROM post_images WHERE post_id = ? ORDER BY position",
            (post_id,))]
        now = {r[0] or r[1]: r[2] for r in project.conn.execute(
            "SELECT sha256, ref, role FROM sample_images WHERE sample_id = ? AND bbox_x IS NULL",
            (sid,))}
        for item in json.loads(proposed or "[]"):
            k = item.get("index")
            if isinstance(k, int) and 0 <= k < len(keys):
                conf.add(item.get("role", "unused"), now.get(keys[k], "unused"))
    return conf


def _boxes(project: Project) -> dict[str, Any]:
    values: list[float] = []
    for sid, _f, proposed, post_id, _q in _decided(project, "v.field = 'boxes'"):
        keys = [r[0] or r[1] for r in project.conn.execute(
            "SELECT sha256, url FROM post_images WHERE post_id = ? ORDER BY position",
            (post_id,))]
        now = [(r[0] or r[1], r[2], (r[3], r[4], r[5], r[6])) for r in project.conn.execute(
            "SELECT sha256, ref, role, bbox_x, bbox_y, bbox_w, bbox_h FROM sample_images "
            "WHERE sample_id = ? AND bbox_x IS NOT NULL", (sid,))]
        for b in json.loads(proposed or "[]"):
            k = b.get("image")
            key = keys[k] if isinstance(k, int) and 0 <= k < len(keys) else None
            same = [box for img, role, box in now if img == key and role == b.get("role")]
            values.append(max((iou(tuple(b["box"]), box) for box in same), default=0.0))
    if not values:
        return {"boxes": 0, "mean": None, "median": None, "at_least_0_5": None}
    ordered = sorted(values)
    mid = len(ordered) // 2
    median = ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    return {"boxes": len(values), "mean": sum(values) / len(values), "median": median,
            "at_least_0_5": sum(v >= 0.5 for v in values) / len(values)}


def build(project: Project) -> Report:
    """Measure every proposal in the project."""
    quality = Confusion([*QUALITIES, NO_LABEL])
    for _s, _f, proposed, _p, now in _decided(project, "v.field = 'quality'"):
        quality.add(json.loads(proposed or "null") or NO_LABEL, now or NO_LABEL)
    fb = Confusion([*FEEDBACK_LABELS, NO_LABEL])
    for sid, fld, proposed, _p, _q in _decided(project, "v.field LIKE 'feedback/%'"):
        row = project.conn.execute("SELECT label FROM feedback_labels WHERE sample_id = ? "
                                   "AND post_id = ?", (sid, fld[len("feedback/"):])).fetchone()
        fb.add((json.loads(proposed or "{}") or {}).get("label", NO_LABEL),
               row[0] if row else NO_LABEL)
    runs = [{"run": r[0], "started": r[1], "finished": r[2], "model": r[3], "kinds": r[4],
             "posts": r[5], "outcome": r[6] or "running or killed",
             "totals": json.loads(r[7]) if r[7] else None}
            for r in project.conn.execute(
                "SELECT id, started_at, finished_at, model, kinds, posts, outcome, totals "
                "FROM proposal_runs ORDER BY id DESC LIMIT 50")]
    t = project.conn.execute(
        "SELECT count(*), sum(status = 'ok'), sum(status = 'failed'), "
        "coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0), "
        "sum(cost) FROM proposals").fetchone()
    totals = {"answers": t[0], "ok": t[1] or 0, "failed": t[2] or 0,
              "prompt_tokens": t[3], "completion_tokens": t[4], "cost": t[5]}
    return Report(_rates(project), quality, _roles(project), fb, _boxes(project),
                  keyword_counts(project), runs, failures(project), totals)
