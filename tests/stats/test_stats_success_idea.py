"""TECCI success rates (with τ sweep) and IDEA-Bench hierarchical scores."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from core.stats import case_scores, idea_scores, likert_means, success, success_rates, success_sweep


def _likert(seed: int):
    rng = np.random.default_rng(seed)
    rec = ([], [], [], [], [])
    for u in range(30):
        for m in ("A", "B"):
            for c in ("IF", "IC", "VQ"):
                for r in range(5):
                    if rng.random() < 0.9:
                        v = int(np.clip(rng.integers(2, 6) + (m == "A"), 1, 5))
                        for lst, x in zip(rec, (f"r{r}", f"u{u}", m, c, v), strict=True):
                            lst.append(x)
    return rec


def _reference(rec, tau):
    cells: dict[tuple, list[float]] = {}
    for _r, u, m, c, v in zip(*rec, strict=True):
        cells.setdefault((m, u, c), []).append(v)
    out = {}
    for m in sorted({k[0] for k in cells}):
        crits = sorted({k[2] for k in cells})
        units = sorted({k[1] for k in cells if k[0] == m})
        row = {}
        for c in crits:
            rated = [u for u in units if (m, u, c) in cells]
            row[c] = sum(np.mean(cells[(m, u, c)]) >= tau for u in rated) / len(rated)
        complete = [u for u in units if all((m, u, c) in cells for c in crits)]
        row["overall"] = sum(
            all(np.mean(cells[(m, u, c)]) >= tau for c in crits) for u in complete
        ) / len(complete)
        out[m] = row
    return out


@pytest.mark.parametrize("tau", [3.0, 3.5, 4.0, 4.6])
def test_success_matches_reference(tau: float) -> None:
    rec = _likert(0)
    res = success(*rec, tau=tau)
    ref = _reference(rec, tau)
    got = res.as_dict()
    assert got.keys() == ref.keys()
    for m in ref:
        assert got[m] == pytest.approx(ref[m], abs=1e-12)
    assert got["A"]["overall"] <= min(got["A"][c] for c in ("IF", "IC", "VQ"))


def test_hand_example_and_threshold_is_inclusive() -> None:
    # unit u1: IF mean 4 (4,4,4), VQ mean 4.5 -> overall success at tau 4
    # unit u2: IF mean 5, VQ mean 3.5 -> fails VQ
    res = success(
        ["a", "b", "c", "a", "b", "a", "b", "a", "b"],
        ["u1", "u1", "u1", "u1", "u1", "u2", "u2", "u2", "u2"],
        ["M"] * 9,
        ["IF", "IF", "IF", "VQ", "VQ", "IF", "IF", "VQ", "VQ"],
        [4, 4, 4, 4, 5, 5, 5, 3, 4],
        tau=4,
    )
    assert res.as_dict() == {"M": {"IF": 1.0, "VQ": 0.5, "overall": 0.5}}


def test_sweep_is_consistent_and_monotone() -> None:
    means = likert_means(*_likert(1))
    taus = np.linspace(1, 5, 17)
    per, overall = success_sweep(means.means, taus)
    assert per.shape == (17, 2, 3) and overall.shape == (17, 2)
    assert np.all(np.diff(per, axis=0) <= 1e-12) and np.all(np.diff(overall, axis=0) <= 1e-12)
    assert np.all(per[0] == 1.0)
    single = success_rates(means, tau=float(taus[9]))
    np.testing.assert_allclose(single.rates, per[9])
    np.testing.assert_allclose(single.overall, overall[9])


def test_missing_criterion_counts_only_complete_units() -> None:
    res = success(["a", "a", "a"], ["u1", "u1", "u2"], ["M"] * 3, ["IF", "VQ", "IF"], [5, 5, 1])
    assert res.as_dict()["M"] == {"IF": 0.5, "VQ": 1.0, "overall": 1.0}
    with pytest.raises(ValueError, match="no ratings"):
        success([], [], [], [], [])


# -- IDEA-Bench ------------------------------------------------------------------------


def _official_case(q: tuple[int, ...]) -> float:
    """Transcription of IDEA-Bench scripts/cal_scores.py for one judge run."""
    s = list(q)
    if s[0] == 0 or s[1] == 0:
        s[2:] = [0] * 4
    elif s[2] == 0 or s[3] == 0:
        s[4:] = [0] * 2
    return sum(s) / 6


def test_case_score_all_64_answer_patterns() -> None:
    patterns = np.array(list(product((0, 1), repeat=6)))
    got = case_scores(patterns)
    np.testing.assert_allclose(got, [_official_case(tuple(p)) for p in patterns])
    assert case_scores(np.array([1, 1, 1, 1, 0, 1])) == pytest.approx(5 / 6)
    assert case_scores(np.array([1, 0, 1, 1, 1, 1])) == pytest.approx(1 / 6)
    assert case_scores(np.array([1, 1, 0, 1, 1, 1])) == pytest.approx(3 / 6)


def test_category_and_overall() -> None:
    rows = [
        # model, category, subtask, case, answers
        ("M", "T2I", "logo", "c1", (1, 1, 1, 1, 1, 1)),  # 1
        ("M", "T2I", "logo", "c2", (1, 0, 1, 1, 1, 1)),  # 1/6
        ("M", "T2I", "poster", "c1", (1, 1, 1, 0, 1, 1)),  # 3/6
        ("M", "I2I", "edit", "c1", (0, 0, 0, 0, 0, 0)),  # 0
        ("N", "T2I", "logo", "c1", (1, 1, 1, 1, 1, 1)),  # N has no I2I and no poster
    ]
    m, c, s, k, a = zip(*rows, strict=True)
    res = idea_scores(list(m), list(c), list(s), list(k), np.array(a))
    d = res.as_dict()
    logo = (1 + 1 / 6) / 2
    t2i = 100 * (logo + 0.5) / 2
    assert d["M"] == pytest.approx({"I2I": 0.0, "T2I": t2i, "overall": t2i / 2})
    # N: poster counts 0 in T2I, I2I counts 0 in overall
    assert d["N"] == pytest.approx({"I2I": 0.0, "T2I": 50.0, "overall": 25.0})


def test_repeated_runs_are_averaged_and_paper_values() -> None:
    # three judge runs of one case (as IDEA-Bench's three API calls)
    res = idea_scores(
        ["M"] * 3,
        ["T2I"] * 3,
        ["s"] * 3,
        ["c"] * 3,
        np.array([[1, 1, 1, 1, 1, 1], [1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]]),
    )
    assert res.as_dict()["M"]["T2I"] == pytest.approx(100 * (1 + 2 / 6 + 0) / 3)
    # IDEA-Bench Table 2: a model supporting only I2I (InstructPix2Pix, 17.58) gets the
    # other four categories as 0, so its overall is 17.58 / 5 = 3.52
    cats = ["T2I", "I2I", "Is2I", "T2Is", "I(s)2Is", "I2I"]
    model = ["other"] * 5 + ["ip2p"]
    answers = np.zeros((6, 6))
    answers[5] = 1
    res = idea_scores(model, cats, ["s"] * 6, ["c"] * 6, answers)
    assert res.as_dict()["ip2p"] == pytest.approx(
        {"T2I": 0.0, "I2I": 100.0, "Is2I": 0.0, "T2Is": 0.0, "I(s)2Is": 0.0, "overall": 20.0}
    )


def test_idea_errors() -> None:
    with pytest.raises(ValueError, match="no cases"):
        idea_scores([], [], [], [], np.zeros((0, 6)))
    with pytest.raises(ValueError, match="0 or 1"):
        idea_scores(["M"], ["T2I"], ["s"], ["c"], np.array([[2, 1, 1, 1, 1, 1]]))
