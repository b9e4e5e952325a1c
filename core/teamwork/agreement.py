"""How well curators agree on the samples a split gave to two of them (ADR 134).

From each merged package's values of the shared (overlap) samples, as last merged:

- **quality labels, splits, image roles**: Krippendorff's α (nominal, all curators at
  once, :mod:`core.stats.krippendorff_alpha`), Cohen's κ for every pair of curators
  that shares samples (:mod:`core.stats.cohen_kappa`), and the share of identical
  values.  An unlabelled sample counts as its own label "(none)"; for roles the unit is
  (sample, image) and an image a curator did not use counts as "unused";
- **screenshot boxes**: boxes of the same image and role matched greedily by IoU; a
  box without a partner counts 0; reported as the mean IoU per pair of curators per
  sample, and the share of those ≥ 0.5;
- **prompts**: how often each curator edited the prompt they were given, and for two
  curators of one sample where at least one edited: how often the results are the same
  text and how far apart they are (1 − difflib's ratio, characters; 0 = identical);
- **per curator against the adjudicated result** (the project's values now): share of
  identical quality labels (and κ), splits, roles, prompts, and the mean box IoU.
"""

from __future__ import annotations

import difflib
import itertools
from collections import defaultdict
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

import numpy as np

from core.imaging.boxes import iou
from core.stats.cohen_kappa import KappaUndefinedError, cohen_kappa
from core.stats.krippendorff_alpha import AlphaUndefinedError, alpha, reliability_matrix
from core.store.project import Project
from core.teamwork.values import boxes, loads, read_values, roles

NONE = "(none)"
NOMINAL_FIELDS = ("quality", "split", "roles")

Labels = dict[str, dict[str, Any]]  # unit → curator → label


@dataclass
class FieldAgreement:
    """Agreement on one nominal field."""

    field: str
    units: int
    alpha: float | None
    note: str
    percent: float | None
    kappa: list[dict[str, Any]] = dataclass_field(default_factory=list)  # a, b, n, kappa, note


@dataclass
class Agreement:
    """Everything the Analyze view and ``winnow curate agreement`` show for one split."""

    split: str
    curators: list[str]
    packages_merged: int
    overlap_samples: int
    open_conflicts: int
    fields: list[FieldAgreement] = dataclass_field(default_factory=list)
    boxes: dict[str, Any] = dataclass_field(default_factory=dict)
    prompts: dict[str, Any] = dataclass_field(default_factory=dict)
    per_curator: list[dict[str, Any]] = dataclass_field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"split": self.split, "curators": self.curators,
                "packages_merged": self.packages_merged,
                "overlap_samples": self.overlap_samples,
                "open_conflicts": self.open_conflicts,
                "fields": [f.__dict__ for f in self.fields], "boxes": self.boxes,
                "prompts": self.prompts, "per_curator": self.per_curator}


def splits(project: Project) -> list[tuple[str, int]]:
    """(name, merged packages) of every split, newest first."""
    return [(r[0], int(r[1])) for r in project.conn.execute(
        "SELECT s.name, count(p.merged_at) FROM team_splits s LEFT JOIN team_packages p "
        "ON p.split_id = s.id GROUP BY s.id ORDER BY s.id DESC")]


def agreement(project: Project, split: str) -> Agreement:
    """Agreement on the overlap samples of the split named ``split`` (KeyError if none)."""
    row = project.conn.execute("SELECT id FROM team_splits WHERE name = ? ORDER BY id DESC",
                               (split,)).fetchone()
    if row is None:
        raise KeyError(f"no split named {split!r} in this project")
    curators = [r[0] for r in project.conn.execute(
        "SELECT curator FROM team_packages WHERE split_id = ? ORDER BY rowid", (row[0],))]
    values: dict[str, dict[str, dict[str, Any]]] = defaultdict(lambda: defaultdict(dict))
    given: dict[str, dict[str, dict[str, Any]]] = defaultdict(lambda: defaultdict(dict))
    merged = set()
    for curator, sid, name, value, base in project.conn.execute(
            "SELECT p.curator, v.sample_id, v.field, v.value, v.base FROM team_values v "
            "JOIN team_packages p ON p.package_uid = v.package_uid "
            "JOIN team_assignments a ON a.package_uid = v.package_uid "
            "AND a.sample_id = v.sample_id AND a.overlap = 1 WHERE p.split_id = ?",
            (row[0],)):
        values[sid][curator][name] = loads(value)
        given[sid][curator][name] = loads(base)
        merged.add(curator)
    shared = {sid: by for sid, by in values.items() if len(by) >= 2}
    final = read_values(project.conn, sorted(shared))
    open_conflicts = int(project.conn.execute(
        "SELECT count(*) FROM team_conflicts c JOIN team_packages p ON p.package_uid = "
        "c.package_uid WHERE p.split_id = ? AND c.status = 'open'", (row[0],)).fetchone()[0])
    out = Agreement(split, curators, len(merged), len(shared), open_conflicts)
    labels = {name: _labels(shared, name) for name in NOMINAL_FIELDS}
    out.fields = [_nominal(name, labels[name]) for name in NOMINAL_FIELDS]
    out.boxes = _boxes(shared)
    out.prompts = _prompts(shared, given)
    out.per_curator = [_against_final(c, shared, final, labels) for c in curators
                       if c in merged]
    return out


def _labels(shared: dict[str, dict[str, dict[str, Any]]], name: str) -> Labels:
    out: Labels = {}
    for sid, by in shared.items():
        if name != "roles":
            out[sid] = {c: NONE if v.get(name) is None else str(v.get(name))
                        for c, v in by.items() if name in v}
            continue
        used = {c: roles(v["images"]) for c, v in by.items() if "images" in v}
        for image in set().union(*(r.keys() for r in used.values())) if used else ():
            out[f"{sid} · {image}"] = {c: r.get(image, "unused") for c, r in used.items()}
    return {u: by for u, by in out.items() if len(by) >= 2}


def _nominal(name: str, labels: Labels) -> FieldAgreement:
    records = [(c, u, v) for u, by in labels.items() for c, v in by.items()]
    pairs_same = [a == b for by in labels.values()
                  for a, b in itertools.combinations(by.values(), 2)]
    percent = sum(pairs_same) / len(pairs_same) if pairs_same else None
    result = FieldAgreement(name, len(labels), None, "", percent)
    if records:
        codes = {v: float(i) for i, v in enumerate(sorted({v for _c, _u, v in records}))}
        data, _r, _u = reliability_matrix([r[0] for r in records], [r[1] for r in records],
                                          [codes[r[2]] for r in records])
        try:
            result.alpha = alpha(data, "nominal")
        except AlphaUndefinedError as exc:
            result.note = str(exc).split(": ", 1)[-1]
    else:
        result.note = "no shared sample was merged from two curators"
    curators = sorted({r[0] for r in records})
    for a, b in itertools.combinations(curators, 2):
        both = [(by[a], by[b]) for by in labels.values() if a in by and b in by]
        entry: dict[str, Any] = {"a": a, "b": b, "n": len(both), "kappa": None, "note": ""}
        if both:
            try:
                entry["kappa"] = cohen_kappa([x for x, _ in both], [y for _, y in both])
            except KappaUndefinedError as exc:
                entry["note"] = str(exc).split(": ", 1)[-1]
            result.kappa.append(entry)
    return result


def box_agreement(a: list[tuple[str, str, tuple[int, int, int, int]]],
                  b: list[tuple[str, str, tuple[int, int, int, int]]]) -> float | None:
    """Mean IoU of two curators' boxes on one sample (greedy matching within image and
    role; an unmatched box counts 0); None when neither drew a box."""
    if not a and not b:
        return None
    scores = sorted(((iou(x[2], y[2]), i, j) for i, x in enumerate(a)
                     for j, y in enumerate(b) if x[:2] == y[:2]), reverse=True)
    used_a, used_b, matched = set(), set(), []
    for score, i, j in scores:
        if i not in used_a and j not in used_b and score > 0:
            used_a.add(i)
            used_b.add(j)
            matched.append(score)
    return sum(matched) / max(len(a), len(b))


def _boxes(shared: dict[str, dict[str, dict[str, Any]]]) -> dict[str, Any]:
    per_pair = []
    for by in shared.values():
        drawn = {c: boxes(v["images"]) for c, v in by.items() if "images" in v}
        for a, b in itertools.combinations(sorted(drawn), 2):
            score = box_agreement(drawn[a], drawn[b])
            if score is not None:
                per_pair.append(score)
    return {"pairs": len(per_pair),
            "mean_iou": float(np.mean(per_pair)) if per_pair else None,
            "share_iou_50": (sum(s >= 0.5 for s in per_pair) / len(per_pair)
                             if per_pair else None)}


def prompt_distance(a: str, b: str) -> float:
    """1 − difflib's similarity ratio of two prompts (characters; 0 = identical)."""
    return 1.0 - difflib.SequenceMatcher(a=a, b=b, autojunk=False).ratio()


def _prompts(shared: dict[str, dict[str, dict[str, Any]]],
             given: dict[str, dict[str, dict[str, Any]]]) -> dict[str, Any]:
    edited: dict[str, list[bool]] = defaultdict(list)
    same, distances = [], []
    for sid, by in shared.items():
        prompts = {c: v["prompt"] for c, v in by.items() if "prompt" in v}
        changed = {c: p != given[sid][c].get("prompt") for c, p in prompts.items()}
        for c, flag in changed.items():
            edited[c].append(flag)
        for a, b in itertools.combinations(sorted(prompts), 2):
            if changed[a] or changed[b]:
                same.append(prompts[a] == prompts[b])
                distances.append(prompt_distance(prompts[a], prompts[b]))
    return {"edit_rate": {c: sum(f) / len(f) for c, f in sorted(edited.items())},
            "pairs_with_an_edit": len(same),
            "same_result": sum(same) / len(same) if same else None,
            "mean_distance": float(np.mean(distances)) if distances else None}


def _against_final(curator: str, shared: dict[str, dict[str, dict[str, Any]]],
                   final: dict[str, dict[str, Any]], labels: dict[str, Labels]) -> dict[str, Any]:
    mine = {sid: by[curator] for sid, by in shared.items() if curator in by and sid in final}
    out: dict[str, Any] = {"curator": curator, "samples": len(mine)}
    for name in ("quality", "split"):
        pairs = [(NONE if v.get(name) is None else str(v[name]),
                  NONE if final[sid][name] is None else str(final[sid][name]))
                 for sid, v in mine.items() if name in v]
        out[name] = sum(a == b for a, b in pairs) / len(pairs) if pairs else None
        if name == "quality":
            try:
                out["quality_kappa"] = cohen_kappa([a for a, _ in pairs], [b for _, b in pairs])
            except KappaUndefinedError:
                out["quality_kappa"] = None
    role_pairs = []
    scores = []
    for sid, v in mine.items():
        if "images" not in v:
            continue
        have, want = roles(v["images"]), roles(final[sid]["images"])
        role_pairs += [have.get(k, "unused") == want.get(k, "unused")
                       for k in set(have) | set(want)]
        score = box_agreement(boxes(v["images"]), boxes(final[sid]["images"]))
        if score is not None:
            scores.append(score)
    out["roles"] = sum(role_pairs) / len(role_pairs) if role_pairs else None
    prompts = [v["prompt"] == final[sid]["prompt"] for sid, v in mine.items() if "prompt" in v]
    out["prompt"] = sum(prompts) / len(prompts) if prompts else None
    out["box_iou"] = float(np.mean(scores)) if scores else None
    return out
