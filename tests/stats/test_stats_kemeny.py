"""Kemeny-Young: published example, brute force over all permutations, heuristic."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest

from core.stats import kemeny, kemeny_order, kemeny_per_item, pairwise_preferences, ranking_table
from core.stats.kemeny import EXACT_MAX_ITEMS, kemeny_from_rankings, order_score


def _brute(p: np.ndarray) -> float:
    """Best agreement over all k! orders (vectorized over the permutations)."""
    k = p.shape[0]
    perms = np.array(list(permutations(range(k))), dtype=np.int64).reshape(-1, k)
    total = np.zeros(perms.shape[0])
    for a in range(k):
        for b in range(a + 1, k):
            total += p[perms[:, a], perms[:, b]]
    return float(total.max())


def test_tennessee_capital_example() -> None:
    """Wikipedia "Kemeny-Young method": 100 voters, 42/26/15/17 %; best N > C > K > M, score 393."""
    blocs = {
        ("Memphis", "Nashville", "Chattanooga", "Knoxville"): 42,
        ("Nashville", "Chattanooga", "Knoxville", "Memphis"): 26,
        ("Chattanooga", "Knoxville", "Nashville", "Memphis"): 15,
        ("Knoxville", "Chattanooga", "Nashville", "Memphis"): 17,
    }
    rater, item, model, rank = [], [], [], []
    v = 0
    for order, count in blocs.items():
        for _ in range(count):
            for r, city in enumerate(order, start=1):
                rater.append(f"v{v}")
                item.append("capital")
                model.append(city)
                rank.append(r)
            v += 1
    res = kemeny(rater, item, model, rank)
    assert res.consensus == ["Nashville", "Chattanooga", "Knoxville", "Memphis"]
    assert res.score == 393 and isinstance(res.score, int)
    assert res.exact


@pytest.mark.parametrize("seed", range(40))
def test_matches_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 8))
    n = int(rng.integers(1, 8))
    r = np.array([rng.permutation(k) + 1 for _ in range(n)], dtype=float)
    if seed % 3 == 1:
        r = np.ceil(r / 2)  # ties
    if seed % 3 == 2 and k > 1:
        r[rng.random(r.shape) < 0.3] = np.nan  # partial rankings
    p = pairwise_preferences(r)
    order, score, exact = kemeny_order(p)
    assert exact and sorted(order) == list(range(k))
    assert score == pytest.approx(_brute(p))
    assert order_score(p, order) == pytest.approx(score)


def test_nine_items_exact_against_brute_force() -> None:
    rng = np.random.default_rng(99)
    r = np.array([rng.permutation(9) + 1 for _ in range(7)], dtype=float)
    p = pairwise_preferences(r)
    order, score, exact = kemeny_order(p)
    assert exact
    assert score == pytest.approx(_brute(p))


def test_pairwise_preferences_counts_strict_only() -> None:
    r = np.array([[1, 2, 2], [2, 1, np.nan]])
    np.testing.assert_array_equal(pairwise_preferences(r), [[0, 1, 1], [1, 0, 0], [0, 0, 0]])


def test_heuristic_beyond_exact_limit() -> None:
    k = EXACT_MAX_ITEMS + 4
    rng = np.random.default_rng(3)
    base = rng.permutation(k)
    rows = []
    for _ in range(30):  # noisy copies of one order: the optimum is (close to) that order
        noisy = base + rng.normal(scale=1.0, size=k)
        rows.append(np.argsort(np.argsort(noisy)) + 1)
    res = kemeny_from_rankings(np.asarray(rows, dtype=float), [f"m{i}" for i in range(k)])
    assert not res.exact
    p = pairwise_preferences(np.asarray(rows, dtype=float))
    # at least as good as the generating order, and no single move improves it
    assert res.score >= order_score(p, list(np.argsort(base)))
    assert res.score == pytest.approx(order_score(p, res.order))
    _assert_locally_optimal(p, list(res.order))


def _assert_locally_optimal(p: np.ndarray, order: list[int]) -> None:
    base = order_score(p, order)
    for i in range(len(order)):
        for j in range(len(order)):
            moved = order.copy()
            moved.insert(j, moved.pop(i))
            assert order_score(p, moved) <= base + 1e-9


@pytest.mark.parametrize("seed", range(10))
def test_heuristic_is_locally_optimal_and_near_exact(seed: int) -> None:
    rng = np.random.default_rng(seed)
    r = np.array([rng.permutation(7) + 1 for _ in range(9)], dtype=float)
    p = pairwise_preferences(r)
    order, score, exact = kemeny_order(p, exact_max_items=0)
    assert not exact
    _assert_locally_optimal(p, order)
    assert score <= _brute(p) + 1e-9
    assert score >= 0.95 * _brute(p)


def test_heuristic_finds_unanimous_order() -> None:
    k = 25
    order = list(np.random.default_rng(1).permutation(k))
    ranks = np.empty(k)
    ranks[order] = np.arange(1, k + 1)
    res = kemeny_from_rankings(np.tile(ranks, (3, 1)), [str(i) for i in range(k)])
    assert list(res.order) == order
    assert res.score == 3 * k * (k - 1) // 2


def test_per_item_consensus() -> None:
    t = ranking_table(
        ["r1", "r1", "r2", "r2", "r3", "r3", "r1", "r1"],
        ["i1", "i1", "i1", "i1", "i1", "i1", "i2", "i2"],
        ["A", "B", "A", "B", "A", "B", "A", "B"],
        [1, 2, 1, 2, 2, 1, 2, 1],
    )
    np.testing.assert_array_equal(kemeny_per_item(t), [[1, 2], [2, 1]])


@pytest.mark.parametrize("seed", range(5))
def test_per_item_batched_equals_item_by_item(seed: int) -> None:
    rng = np.random.default_rng(seed)
    rec = ([], [], [], [])
    for r in range(4):
        for i in range(25):
            k = int(rng.integers(2, 7))
            for m, rank in zip(
                rng.choice(list("ABCDEF"), k, replace=False), rng.permutation(k) + 1, strict=True
            ):
                for lst, x in zip(rec, (f"r{r}", f"i{i:02d}", str(m), int(rank)), strict=True):
                    lst.append(x)
    t = ranking_table(*rec)
    got = kemeny_per_item(t)
    for i in range(len(t.items)):
        block = t.ranks[:, i, :]
        present = np.flatnonzero(~np.all(np.isnan(block), axis=0))
        p = pairwise_preferences(block[:, present])
        order, score, _ = kemeny_order(p)
        expected = np.full(len(t.models), np.nan)
        expected[present[order]] = np.arange(1, present.size + 1)
        np.testing.assert_array_equal(got[i], expected)


def test_errors() -> None:
    with pytest.raises(ValueError, match="no rankings"):
        kemeny([], [], [], [])
    with pytest.raises(ValueError, match="more than once"):
        kemeny(["r", "r"], ["i", "i"], ["A", "A"], [1, 2])


def test_all_ties_give_score_zero_and_a_deterministic_order() -> None:
    res = kemeny(["r", "r", "r", "s", "s", "s"], ["i"] * 6, list("ABC") * 2, [1] * 6)
    assert res.score == 0 and res.exact
    assert res.consensus == kemeny(["r"] * 3, ["i"] * 3, list("ABC"), [2] * 3).consensus


def test_heuristic_work_grows_with_sweeps_not_with_moves(monkeypatch) -> None:
    """300 models, 3 random rankings: each sweep looks at every model once (two running
    sums each), so a local optimum is a few sweeps away. The old search restarted from the
    top after every move — ~100 times this work, minutes at 1,000 models (new-user sweep).
    The budget is counted, not timed: the search stops with an error once it is spent."""
    k = 300
    rng = np.random.default_rng(0)
    p = pairwise_preferences(np.array([rng.permutation(k) + 1 for _ in range(3)], dtype=float))
    budget = [2 * k * 30]  # two running sums per model per sweep, 30 sweeps
    real = np.cumsum

    def counted(*args, **kwargs):
        budget[0] -= 1
        if budget[0] < 0:
            raise AssertionError("the local search looked at models more than 30 sweeps' worth")
        return real(*args, **kwargs)

    monkeypatch.setattr(np, "cumsum", counted)
    order, score, exact = kemeny_order(p)
    monkeypatch.undo()
    assert not exact and sorted(order) == list(range(k))
    assert score == pytest.approx(order_score(p, order))
    _assert_locally_optimal_fast(p, order)


def _assert_locally_optimal_fast(p: np.ndarray, order: list[int]) -> None:
    """No single move of one model to another place raises the agreement (every move's
    gain from running sums of the margins, checked against order_score on a sample)."""
    margin = p - p.T
    o = np.asarray(order)
    for pos, x in enumerate(o):
        d = margin[x, o].astype(float)
        up = np.cumsum(d[:pos][::-1])[::-1]  # x moved above o[q:pos]
        down = -np.cumsum(d[pos + 1 :])  # x moved below o[pos+1:q+1]
        assert (up <= 1e-9).all() and (down <= 1e-9).all(), f"model {x} at {pos} can move"
    base = order_score(p, order)
    for i, j in ((0, len(order) - 1), (len(order) // 2, 3), (5, len(order) // 3)):
        moved = list(order)
        moved.insert(j, moved.pop(i))
        assert order_score(p, moved) <= base + 1e-9


def test_pairwise_preferences_memory_is_bounded_by_the_models_not_the_rankings() -> None:
    """400 rankings of 400 models: comparing all rankings at once built a 64 MB boolean
    cube (1,000 rankings of 2,000 models: 4 GB); chunks keep it to a few K × K arrays."""
    import tracemalloc

    rng = np.random.default_rng(5)
    r = np.array([rng.permutation(400) + 1 for _ in range(400)], dtype=float)
    r[rng.random(r.shape) < 0.1] = np.nan  # partial rankings
    tracemalloc.start()
    try:
        p = pairwise_preferences(r)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 24 * 2**20, f"peak {peak / 2**20:.0f} MB"
    loop = np.zeros((400, 400), dtype=np.int64)
    for row in r[:40]:
        with np.errstate(invalid="ignore"):
            loop += row[:, None] < row[None, :]
    np.testing.assert_array_equal(pairwise_preferences(r[:40]), loop)
    assert p.sum() == sum(
        int((~np.isnan(row)).sum() * ((~np.isnan(row)).sum() - 1) // 2) for row in r
    )


def test_per_item_consensus_memory_is_bounded() -> None:
    """40 items ranked by 8 raters over 150 models: the per-item preferences were one
    boolean cube of all items at once (14 MB here; 1,000 items of 300 models: 1.8 GB)."""
    import tracemalloc

    rng = np.random.default_rng(8)
    k, items, raters = 150, 40, 8
    ranks = np.array([[rng.permutation(k) + 1 for _ in range(items)] for _ in range(raters)],
                     dtype=float)
    from core.stats.rankings import RankingTable

    table = RankingTable(tuple(f"r{i}" for i in range(raters)),
                         tuple(f"i{i:03d}" for i in range(items)),
                         tuple(f"m{i:03d}" for i in range(k)), ranks)
    tracemalloc.start()
    try:
        got = kemeny_per_item(table)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 5 * 2**20, f"peak {peak / 2**20:.0f} MB"
    for i in (0, 17, 39):
        order, _, _ = kemeny_order(pairwise_preferences(ranks[:, i, :]))
        np.testing.assert_array_equal(np.argsort(got[i]), order)


def test_all_ties_keep_the_models_sorted_order() -> None:
    """Every order is optimal: the consensus is the names' order, not its reverse (a
    reader takes an unexplained y above x as a finding); the heuristic's Copeland start
    breaks ties the same way."""
    res = kemeny(["r"] * 3 + ["s"] * 3, ["i"] * 6, list("ABC") * 2, [1] * 6)
    assert res.consensus == ["A", "B", "C"] and res.score == 0
    heur = kemeny_from_rankings(np.ones((2, 3)), ["A", "B", "C"], exact_max_items=0)
    assert heur.consensus == ["A", "B", "C"]


@pytest.mark.parametrize("seed", range(30))
def test_among_optimal_orders_the_first_in_name_order_is_chosen(seed: int) -> None:
    """Of all optimal orders, the exact consensus is the lexicographically first (by
    model index = sorted names): brute force over the permutations."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 7))
    r = np.ceil(np.array([rng.permutation(k) + 1 for _ in range(int(rng.integers(1, 5)))],
                         dtype=float) / 2)  # many ties: many optimal orders
    p = pairwise_preferences(r)
    best = _brute(p)
    first = next(list(o) for o in permutations(range(k))
                 if order_score(p, o) == pytest.approx(best))
    order, score, exact = kemeny_order(p)
    assert exact and score == pytest.approx(best) and order == first
