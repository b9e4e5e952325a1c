"""ECHO pseudo-pairwise win rate: hand-worked examples and a brute-force reference."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from core.stats import win_rates


def _reference(records: list[tuple[str, str, float, str]]) -> dict[str, float]:
    """Loop-by-loop ECHO win rate: per sample and pair, majority verdict of the judges."""
    by_sample: dict[str, dict[str, dict[str, float]]] = {}
    for s, m, x, j in records:
        by_sample.setdefault(s, {}).setdefault(j, {})[m] = x
    points: Counter[str] = Counter()
    n: Counter[str] = Counter()
    models = sorted({r[1] for r in records})
    for judges in by_sample.values():
        for a, b in combinations(models, 2):
            verdicts = Counter()
            for sc in judges.values():
                if a in sc and b in sc:
                    verdicts["a" if sc[a] > sc[b] else "b" if sc[a] < sc[b] else "t"] += 1
            if not verdicts:
                continue
            top = max(verdicts.values())
            winners = [k for k, c in verdicts.items() if c == top]
            v = winners[0] if len(winners) == 1 else "t"
            pa = {"a": 1.0, "b": 0.0, "t": 0.5}[v]
            points[a] += pa
            points[b] += 1 - pa
            n[a] += 1
            n[b] += 1
    return {m: points[m] / n[m] for m in models if n[m]}


def _run(records):
    s, m, x, j = zip(*records, strict=True)
    return win_rates(list(s), list(m), list(x), list(j)).win_rate_dict()


def test_single_judge_hand_example() -> None:
    # sample 1: A 9, B 7, C 7 -> A beats B and C, B ties C
    # sample 2: A 2, B 5, C 8 -> C beats A and B, B beats A
    res = win_rates(
        ["1", "1", "1", "2", "2", "2"], ["A", "B", "C"] * 2, [9, 7, 7, 2, 5, 8]
    ).win_rate_dict()
    assert res == pytest.approx({"A": 2 / 4, "B": 1.5 / 4, "C": 2.5 / 4})
    assert list(res) == ["C", "A", "B"]


def test_majority_vote_of_judges() -> None:
    records = [
        # judges g1 and g2 prefer A, g3 prefers B -> A wins the pair
        ("s", "A", 5, "g1"), ("s", "B", 1, "g1"),
        ("s", "A", 5, "g2"), ("s", "B", 4, "g2"),
        ("s", "A", 1, "g3"), ("s", "B", 9, "g3"),
    ]  # fmt: skip
    assert _run(records) == {"A": 1.0, "B": 0.0}
    # one for A, one for B, one tie: no plurality -> tie
    records[3] = ("s", "B", 5, "g2")
    assert _run(records) == {"A": 0.5, "B": 0.5}


@pytest.mark.parametrize("seed", range(8))
def test_matches_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    records = []
    n_judges = int(rng.integers(1, 5))
    for s in range(int(rng.integers(1, 30))):
        for m in "ABCDE":
            for j in range(n_judges):
                if rng.random() < 0.85:  # some scores missing
                    records.append((f"s{s}", m, float(rng.integers(1, 5)), f"j{j}"))
    if not records:
        pytest.skip("no records")
    ref = _reference(records)
    if not ref:
        with pytest.raises(ValueError):
            _run(records)
        return
    got = _run(records)
    assert got.keys() == ref.keys()
    for k in ref:
        assert got[k] == pytest.approx(ref[k], abs=1e-12)


def test_rates_are_probabilities_and_average_half() -> None:
    rng = np.random.default_rng(9)
    s = [f"s{i}" for i in range(50) for _ in range(4)]
    m = list("ABCD") * 50
    res = win_rates(s, m, rng.normal(size=200).tolist())
    assert np.all((res.win_rate >= 0) & (res.win_rate <= 1))
    # complete design: every model has the same number of comparisons, mean is 1/2
    assert res.win_rate.mean() == pytest.approx(0.5)


def test_edge_cases() -> None:
    with pytest.raises(ValueError, match="no scores"):
        win_rates([], [], [])
    with pytest.raises(ValueError, match="no comparisons"):
        win_rates(["s1", "s2"], ["A", "B"], [1.0, 2.0])  # never on the same sample
    # one model (a rankings file naming one): said so, not "no sample has scores"
    with pytest.raises(ValueError, match=r"only one model \('solo'\)"):
        win_rates(["s1", "s2"], ["solo", "solo"], [1.0, 2.0])
    with pytest.raises(ValueError, match="more than once"):
        win_rates(["s1", "s1"], ["A", "A"], [1.0, 2.0])
    # all ties
    assert win_rates(["s"] * 3, ["A", "B", "C"], [1, 1, 1]).win_rate_dict() == {
        "A": 0.5, "B": 0.5, "C": 0.5,
    }  # fmt: skip
    # a model that never wins
    res = win_rates(["s"] * 3, ["A", "B", "C"], [1, 2, 3]).win_rate_dict()
    assert res["A"] == 0.0 and res["C"] == 1.0
