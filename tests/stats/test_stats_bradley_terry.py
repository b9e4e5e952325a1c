"""Bradley-Terry (Newman's iteration): published example, choix reference, MAP prior, edge cases."""

from __future__ import annotations

import choix
import numpy as np
import pytest
from scipy import optimize

from core.stats import bradley_terry, encode_votes, fit_strengths, fit_votes, ml_exists, win_matrix
from core.stats.bradley_terry import scores_from_strengths, strongly_connected
from core.stats.votes import A_WINS, B_WINS, TIE, vote_cells

# Agresti, Categorical Data Analysis (2nd ed.), Table 10.10: 1987 American League East,
# W[i, j] = wins of row over column.  Published BT log-strengths (Baltimore = 0):
# Milwaukee 1.58, Detroit 1.44, Toronto 1.29, New York 1.25, Boston 1.11, Cleveland 0.68.
AGRESTI_W = np.array(
    [
        [0, 7, 9, 7, 7, 9, 11],
        [6, 0, 7, 5, 11, 9, 9],
        [4, 6, 0, 7, 7, 8, 12],
        [6, 8, 6, 0, 6, 7, 10],
        [6, 2, 6, 7, 0, 7, 12],
        [4, 4, 5, 6, 6, 0, 6],
        [2, 4, 1, 3, 1, 7, 0],
    ],
    dtype=float,
)
AGRESTI_LOG = np.array([1.58, 1.44, 1.29, 1.25, 1.11, 0.68, 0.0])


def _random_votes(rng: np.random.Generator, k: int, n: int, tie_p: float = 0.0):
    true = rng.normal(size=k)
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    p = 1 / (1 + np.exp(-(true[a] - true[b])))
    u = rng.random(n)
    out = np.where(u < tie_p, TIE, np.where(rng.random(n) < p, A_WINS, B_WINS))
    return a, b, out.astype(np.int8)


def _choix_log_strengths(w: np.ndarray) -> np.ndarray:
    """choix ML on the vote list; ties (half wins) handled by doubling every count."""
    k = w.shape[0]
    w2 = np.rint(2 * w).astype(int)
    data = [(i, j) for i in range(k) for j in range(k) for _ in range(w2[i, j])]
    params = choix.ilsr_pairwise(k, data, alpha=0.0, tol=1e-13, max_iter=10_000)
    return params - params.mean()


def test_agresti_published_example() -> None:
    pi, used_map = fit_strengths(AGRESTI_W)
    assert not used_map
    log = np.log(pi) - np.log(pi[-1])
    np.testing.assert_allclose(log, AGRESTI_LOG, atol=0.005)
    np.testing.assert_allclose(
        np.log(pi) - np.log(pi).mean(), _choix_log_strengths(AGRESTI_W), atol=1e-6
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("tie_p", [0.0, 0.2])
def test_ml_matches_choix(seed: int, tie_p: float) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 9))
    a, b, out = _random_votes(rng, k, int(rng.integers(200, 800)), tie_p)
    w = win_matrix(a, b, out, k)
    if not ml_exists(w):
        pytest.skip("random data without an ML estimate")
    pi, used_map = fit_strengths(w)
    assert not used_map
    np.testing.assert_allclose(np.log(pi) - np.log(pi).mean(), _choix_log_strengths(w), atol=1e-6)
    assert np.isclose(np.exp(np.mean(np.log(pi))), 1.0)


def _map_objective(theta: np.ndarray, w: np.ndarray) -> float:
    """Negative log posterior with Newman's prior: a win and a loss vs a player of strength 1."""
    d = theta[:, None] - theta[None, :]
    ll = np.sum(w * -np.logaddexp(0.0, -d))
    prior = np.sum(-np.logaddexp(0.0, -theta) - np.logaddexp(0.0, theta))
    return -(ll + prior)


def test_map_maximizes_newman_posterior() -> None:
    # model 2 never wins: ML does not exist
    w = np.array([[0, 3, 2, 1], [1, 0, 4, 2], [0, 0, 0, 0], [2, 1, 1, 0]], dtype=float)
    assert not ml_exists(w)
    pi, used_map = fit_strengths(w)
    assert used_map
    res = optimize.minimize(
        _map_objective, np.zeros(4), args=(w,), method="BFGS", options={"gtol": 1e-12}
    )
    np.testing.assert_allclose(np.log(pi), res.x, atol=1e-6)
    # fixed point of eq. 26
    s = pi[:, None] + pi[None, :]
    num = 1 / (pi + 1) + (w * pi[None, :] / s).sum(1)
    den = 1 / (pi + 1) + (w.T / s).sum(1)
    np.testing.assert_allclose(pi, num / den, rtol=1e-9)


def test_model_without_wins_uses_map() -> None:
    res = bradley_terry(["x", "x", "y"], ["y", "z", "z"], ["a", "a", "a"])
    assert res.method == "map"
    assert np.isclose(res.scores.sum(), 100.0)
    assert np.all(np.isfinite(res.scores)) and np.all(res.scores > 0)
    assert list(res.scores_dict()) == ["x", "y", "z"]


def test_disconnected_graph_uses_map() -> None:
    # two separate pairs, each with wins both ways: every model has a win and a loss,
    # but no comparison connects {p, q} with {r, s}
    a = ["p", "q", "r", "s", "p"]
    b = ["q", "p", "s", "r", "q"]
    res = bradley_terry(a, b, ["a"] * 5)
    assert res.method == "map"
    assert np.isclose(res.scores.sum(), 100)
    w = win_matrix(*_codes(a, b), 4)
    assert not strongly_connected(w)
    with pytest.raises(ValueError, match="do not exist"):
        fit_strengths(w, method="ml")


def _codes(a, b):
    v = encode_votes(a, b, ["a"] * len(a))
    return v.a, v.b, v.outcome


def test_weakly_connected_but_not_strongly_uses_map() -> None:
    # x beats y and z always, y and z split: x has no loss
    res = bradley_terry(["x", "x", "y", "z"], ["y", "z", "z", "y"], ["a", "a", "a", "a"])
    assert res.method == "map"


def test_all_ties() -> None:
    res = bradley_terry(["x", "y", "z"], ["y", "z", "x"], ["tie", "tie", "tie"])
    assert res.method == "ml"
    np.testing.assert_allclose(res.scores, [100 / 3] * 3)


def test_two_models_closed_form() -> None:
    # 7 wins vs 3: pi_x / pi_y = 7/3 (ML)
    res = bradley_terry(["x"] * 10, ["y"] * 10, ["a"] * 7 + ["b"] * 3)
    assert res.method == "ml"
    np.testing.assert_allclose(res.scores, [70.0, 30.0], atol=1e-8)


def test_ties_count_half() -> None:
    w = win_matrix(np.array([0, 0, 0]), np.array([1, 1, 1]), np.array([TIE, A_WINS, B_WINS]), 2)
    np.testing.assert_array_equal(w, [[0, 1.5], [1.5, 0]])


def test_orientation_does_not_matter() -> None:
    rng = np.random.default_rng(4)
    a, b, out = _random_votes(rng, 5, 400, 0.1)
    w1 = win_matrix(a, b, out, 5)
    flipped = np.where(out == TIE, TIE, 1 - out).astype(np.int8)
    w2 = win_matrix(b, a, flipped, 5)
    np.testing.assert_array_equal(w1, w2)
    cells = vote_cells(a, b, out, 5)
    np.testing.assert_array_equal(cells.win_matrices(cells.counts), w1)
    assert cells.total == 400


def test_batched_equals_single() -> None:
    rng = np.random.default_rng(5)
    ws = []
    for _ in range(4):
        a, b, out = _random_votes(rng, 4, 30)
        ws.append(win_matrix(a, b, out, 4))
    ws[1][:, 0] = 0  # model 0 never loses in matrix 1: MAP there
    batch, used = fit_strengths(np.stack(ws))
    for i, w in enumerate(ws):
        pi, m = fit_strengths(w)
        assert m == used[i]
        np.testing.assert_allclose(batch[i], pi, rtol=1e-9)


def test_scores_sum_to_100_and_model_order() -> None:
    res = fit_votes(encode_votes(["b", "a", "c"], ["a", "c", "b"], ["a", "a", "a"]))
    assert res.models == ("a", "b", "c")
    assert np.isclose(res.scores.sum(), 100.0)
    np.testing.assert_allclose(scores_from_strengths(res.strengths), res.scores)


def test_errors() -> None:
    with pytest.raises(ValueError, match="no votes"):
        bradley_terry([], [], [])
    with pytest.raises(ValueError, match="with itself"):
        bradley_terry(["x"], ["x"], ["a"])
    with pytest.raises(ValueError, match="winner"):
        bradley_terry(["x"], ["y"], ["left"])
    with pytest.raises(ValueError, match="unknown method"):
        fit_strengths(AGRESTI_W, method="magic")


@pytest.mark.parametrize(("a", "b", "winner", "says"), [
    (["x", "y"], ["y", "z"], ["a", "a"], "'x' never loses"),
    (["x", "y", "y"], ["y", "z", "x"], ["a", "a", "a"], "'z' never wins"),
    # every model wins and loses, but nobody outside {p, q} ever beats p or q
    (["p", "q", "r", "s", "p"], ["q", "p", "s", "r", "r"], ["a"] * 5,
     "no model outside ('p', 'q') ever beats one of them"),
])
def test_forced_ml_names_why_it_does_not_exist(a, b, winner, says) -> None:
    """--method ml on votes without an ML estimate names the model (or the group) that
    makes the likelihood unbounded, as every other refusal names its item."""
    with pytest.raises(ValueError, match="do not exist") as err:
        bradley_terry(a, b, winner, method="ml")
    assert says in str(err.value)


def test_forced_ml_on_groups_never_compared_says_so() -> None:
    with pytest.raises(ValueError, match="split into 2 groups of models never compared"):
        bradley_terry(["p", "q", "r", "s"], ["q", "p", "s", "r"], ["a"] * 4, method="ml")
