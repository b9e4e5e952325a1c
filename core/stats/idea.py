"""IDEA-Bench hierarchical scoring of six binary questions per case.

Levels are (q1, q2), (q3, q4), (q5, q6).  A level's answers count only if every
lower level is all-yes (IDEA-Bench §3.3.1 and its ``scripts/cal_scores.py``):

    case = (q1 + q2 + [q1 q2] (q3 + q4) + [q1 q2 q3 q4] (q5 + q6)) / 6

Several rows for the same (model, category, subtask, case) -- repeated judge runs --
are averaged.  Subtask = mean over its cases; category = 100 x mean over the
category's subtasks; overall = mean over all categories.  Subtasks and categories are
the union over all models in the data: one a model has no cases in counts 0 (ADR 017).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

N_QUESTIONS = 6


def case_scores(answers: np.ndarray) -> np.ndarray:
    """Hierarchical case score in [0, 1] for answers ``(..., 6)`` of 0/1."""
    a = np.asarray(answers, dtype=float)
    if a.shape[-1] != N_QUESTIONS:
        raise ValueError("each case needs six answers q1..q6")
    if np.any((a != 0) & (a != 1)):
        raise ValueError("answers must be 0 or 1")
    l1 = a[..., 0] + a[..., 1]
    l2 = a[..., 2] + a[..., 3]
    l3 = a[..., 4] + a[..., 5]
    pass1 = l1 == 2
    pass2 = pass1 & (l2 == 2)
    scores: np.ndarray = (l1 + np.where(pass1, l2, 0.0) + np.where(pass2, l3, 0.0)) / N_QUESTIONS
    return scores


@dataclass(frozen=True)
class IdeaResult:
    """Category percentages and overall score per model."""

    models: tuple[str, ...]
    categories: tuple[str, ...]
    category_scores: np.ndarray  # (M, C) percent
    overall: np.ndarray  # (M,) percent
    subtasks: tuple[tuple[str, str], ...]  # (category, subtask)
    subtask_scores: np.ndarray  # (M, S) percent, 0 where the model has no case

    def as_dict(self) -> dict[str, dict[str, float]]:
        """``{model: {category: percent, ..., "overall": percent}}``."""
        return {
            m: {
                **{c: float(self.category_scores[i, j]) for j, c in enumerate(self.categories)},
                "overall": float(self.overall[i]),
            }
            for i, m in enumerate(self.models)
        }


def idea_scores(
    model: Sequence[str],
    category: Sequence[str],
    subtask: Sequence[str],
    case: Sequence[str],
    answers: np.ndarray,
) -> IdeaResult:
    """IDEA-Bench scores from one row per (model, category, subtask, case[, run])."""
    n = len(model)
    if not (n == len(category) == len(subtask) == len(case)):
        raise ValueError("model, category, subtask and case must have the same length")
    if n == 0:
        raise ValueError("no cases")
    ans = np.asarray(answers, dtype=float).reshape(n, N_QUESTIONS)
    score = case_scores(ans)
    models = tuple(sorted(set(model)))
    categories = tuple(sorted(set(category)))
    subtasks = tuple(sorted(set(zip(category, subtask, strict=True))))
    cases = {k: i for i, k in enumerate(sorted(set(zip(category, subtask, case, strict=True))))}
    mi = {x: i for i, x in enumerate(models)}
    si = {x: i for i, x in enumerate(subtasks)}
    ci = {x: i for i, x in enumerate(categories)}
    m = np.fromiter((mi[x] for x in model), dtype=np.int64, count=n)
    k = np.fromiter(
        (cases[x] for x in zip(category, subtask, case, strict=True)), dtype=np.int64, count=n
    )
    n_cases = len(cases)
    # average repeated rows of one case
    key = m * n_cases + k
    sums = np.bincount(key, weights=score, minlength=len(models) * n_cases)
    cnt = np.bincount(key, minlength=len(models) * n_cases)
    present = cnt > 0
    case_mean = np.where(present, sums / np.maximum(cnt, 1), 0.0).reshape(len(models), n_cases)
    present = present.reshape(len(models), n_cases)
    case_sub = np.empty(n_cases, dtype=np.int64)
    for (cat, sub, _), idx in cases.items():
        case_sub[idx] = si[(cat, sub)]
    # subtask = mean over the model's cases in it (0 when it has none)
    sub_sum = np.zeros((len(models), len(subtasks)))
    sub_cnt = np.zeros((len(models), len(subtasks)))
    np.add.at(sub_sum.T, case_sub, case_mean.T)
    np.add.at(sub_cnt.T, case_sub, present.T.astype(float))
    sub_score = np.where(sub_cnt > 0, sub_sum / np.maximum(sub_cnt, 1), 0.0)
    sub_cat = np.fromiter((ci[c] for c, _ in subtasks), dtype=np.int64, count=len(subtasks))
    cat_sum = np.zeros((len(models), len(categories)))
    np.add.at(cat_sum.T, sub_cat, sub_score.T)
    cat_n = np.bincount(sub_cat, minlength=len(categories)).astype(float)
    cat_score = 100.0 * cat_sum / cat_n
    overall = cat_score.mean(axis=1)
    return IdeaResult(models, categories, cat_score, overall, subtasks, 100.0 * sub_score)
