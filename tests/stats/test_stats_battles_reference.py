"""The published arena boards' method, reproduced from a battle file written here.

The references are written in this file, independently of Winnow's Newman iteration:

* FastChat's ``compute_mle_elo``: logistic regression without penalty on the battles
  *duplicated*, a tie counting once as an A win and once as a B win, features
  ``±ln(BASE)``, Elo = ``SCALE · β + INIT`` with SCALE=400, BASE=10, INIT=1000,
  solved here with scipy's L-BFGS on the log-loss;
* its bootstrap with the newer ``get_bootstrap_result_elo_mle_with_tie``: multinomial
  counts over the distinct (model_a, model_b, outcome) rows, refitted with those weights;
* its online ``compute_elo`` (K=4) transcribed line by line.

FastChat anchors its board on one model (mixtral-8x7b = 1114) when present; without
it the unpenalized fit from β = 0 keeps the mean Elo at INIT, as Winnow's does (the
gradient of every battle row sums to zero).  The tests still centre both on 1000.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize

from app.cli import run_cli
from core.stats.elo import bootstrap_elo
from core.stats.online_elo import bootstrap_online
from core.stats.votefiles import read_vote_file
from core.stats.votes import resample_cells, vote_cells

SCALE, BASE, INIT = 400.0, 10.0, 1000.0
MODELS = ["dalle-3", "flux-pro", "sd3-medium", "playground-v2.5", "sdxl-turbo"]
STRENGTH = {
    "dalle-3": 0.6,
    "flux-pro": 0.9,
    "sd3-medium": 0.1,
    "playground-v2.5": 0.3,
    "sdxl-turbo": -0.5,
}


def make_battles(n: int = 600, seed: int = 7) -> list[dict]:
    """A GenAI-Arena–shaped battle list: ties, both-bad ties, named battles, distinct times."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        a, b = rng.choice(len(MODELS), 2, replace=False)
        ma, mb = MODELS[a], MODELS[b]
        p = 1 / (1 + math.exp(-(STRENGTH[ma] - STRENGTH[mb])))
        u = rng.random()
        winner = (
            "tie (bothbad)"
            if u < 0.06
            else "tie"
            if u < 0.14
            else "model_a"
            if rng.random() < p
            else "model_b"
        )
        out.append(
            {
                "question_id": f"{i:032x}",
                "model_a": ma,
                "model_b": mb,
                "winner": winner,
                "judge": f"arena_user_{i % 37}",
                "anony": bool(rng.random() < 0.8),
                "language": "English",
                "turn": 1,
                "tstamp": 1707700514.3167 + 97.31 * i + rng.random(),
            }
        )
    return out


def write_battles(path: Path, battles: list[dict]) -> Path:
    path.write_text(json.dumps(battles, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


# -- the references ----------------------------------------------------------------------


def _fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """Unpenalized logistic regression without intercept, from β = 0 (sklearn's
    ``LogisticRegression(fit_intercept=False, penalty=None)``)."""
    w = np.ones(len(y)) if w is None else w

    def loss(beta: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ beta
        # log(1 + e^z) - y z, written to be stable for large |z|
        value = np.sum(w * (np.logaddexp(0.0, z) - y * z))
        p = 1.0 / (1.0 + np.exp(-z))
        return float(value), x.T @ (w * (p - y))

    res = minimize(
        loss,
        np.zeros(x.shape[1]),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 10_000, "gtol": 1e-11, "ftol": 0.0},
    )
    assert res.success or "ABNORMAL" in res.message, res.message
    return res.x


def fastchat_mle_elo(battles: list[dict]) -> dict[str, float]:
    """FastChat's ``compute_mle_elo``: duplicated battles, a tie = one A win + one B win."""
    models = list(dict.fromkeys(m for b in battles for m in (b["model_a"], b["model_b"])))
    col = {m: i for i, m in enumerate(models)}
    rows = battles + battles  # duplicate battles
    n = len(rows)
    x = np.zeros((n, len(models)))
    x[np.arange(n), [col[r["model_a"]] for r in rows]] = +math.log(BASE)
    x[np.arange(n), [col[r["model_b"]] for r in rows]] = -math.log(BASE)
    y = np.array([1.0 if r["winner"] == "model_a" else 0.0 for r in rows])
    tie = np.array([r["winner"] in ("tie", "tie (bothbad)") for r in rows])
    tie[n // 2 :] = False  # one tie => one A win + one B win
    y[tie] = 1.0
    beta = _fit_logistic(x, y)
    return dict(zip(models, SCALE * beta + INIT, strict=True))


def fastchat_weighted_elo(
    matchups: np.ndarray, outcomes: np.ndarray, weights: np.ndarray, n_models: int
) -> np.ndarray:
    """FastChat's ``fit_bt`` on distinct (a, b, outcome) rows with weights (outcome 1, ½, 0)."""
    x = np.zeros((len(matchups), n_models))
    x[np.arange(len(matchups)), matchups[:, 0]] = math.log(BASE)
    x[np.arange(len(matchups)), matchups[:, 1]] = -math.log(BASE)
    return SCALE * _fit_logistic(x, outcomes, weights) + INIT


def fastchat_online_elo(battles: list[dict], k: float = 4) -> dict[str, float]:
    """FastChat's ``compute_elo``, transcribed."""
    rating: dict[str, float] = defaultdict(lambda: INIT)
    for b in battles:
        model_a, model_b, winner = b["model_a"], b["model_b"], b["winner"]
        ra, rb = rating[model_a], rating[model_b]
        ea = 1 / (1 + BASE ** ((rb - ra) / SCALE))
        eb = 1 / (1 + BASE ** ((ra - rb) / SCALE))
        if winner == "model_a":
            sa = 1
        elif winner == "model_b":
            sa = 0
        elif winner in ("tie", "tie (bothbad)"):
            sa = 0.5
        else:
            raise AssertionError(winner)
        rating[model_a] += k * (sa - ea)
        rating[model_b] += k * (1 - sa - eb)
    return dict(rating)


def centred(ratings: dict[str, float]) -> dict[str, float]:
    shift = INIT - float(np.mean(list(ratings.values())))
    return {m: r + shift for m, r in ratings.items()}


def run(capsys, *argv: str) -> dict:
    code = run_cli(["stats", *argv])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


# -- the tests ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def battles() -> list[dict]:
    return make_battles()


def test_reference_fit_is_fastchat_anchor_free(battles) -> None:
    """Sanity of the reference: without the mixtral anchor the mean is INIT already."""
    ref = fastchat_mle_elo(battles)
    assert np.mean(list(ref.values())) == pytest.approx(INIT, abs=1e-6)
    assert max(ref, key=ref.get) == "flux-pro" and min(ref, key=ref.get) == "sdxl-turbo"


@pytest.mark.parametrize(
    ("options", "keep"),
    [
        ((), lambda b: True),
        (("--bothbad", "drop"), lambda b: b["winner"] != "tie (bothbad)"),
        (("--anonymous-only",), lambda b: b["anony"]),
    ],
)
def test_elo_and_bt_match_fastchat_compute_mle_elo(
    capsys, tmp_path, battles, options, keep
) -> None:
    path = write_battles(tmp_path / "clean_battle_20240220.json", battles)
    ref = centred(fastchat_mle_elo([b for b in battles if keep(b)]))
    out = run(capsys, "elo", str(path), "--bootstrap", "0", *options)
    got = {m: r["elo"] for m, r in out["ratings"].items()}
    assert set(got) == set(ref)
    for m in ref:
        assert got[m] == pytest.approx(ref[m], abs=1e-4), m
    bt = run(capsys, "bt", str(path), *options)
    assert bt["method"] == "ml"
    strength = {m: BASE ** ((r - INIT) / SCALE) for m, r in ref.items()}
    total = sum(strength.values())
    for m in ref:
        assert bt["scores"][m] == pytest.approx(100 * strength[m] / total, rel=1e-6), m


def test_bothbad_as_tie_differs_from_dropping_it(capsys, tmp_path, battles) -> None:
    """The option is not a no-op: both-bad votes move the board when counted as ties."""
    path = write_battles(tmp_path / "b.json", battles)
    kept = run(capsys, "elo", str(path), "--bootstrap", "0")["ratings"]
    dropped = run(capsys, "elo", str(path), "--bootstrap", "0", "--bothbad", "drop")["ratings"]
    assert max(abs(kept[m]["elo"] - dropped[m]["elo"]) for m in kept) > 0.5


def test_bootstrap_resamples_are_fastchat_weighted_refits(tmp_path, battles) -> None:
    """Each resample: the same multinomial counts FastChat draws over distinct outcomes,
    refitted by FastChat's weighted BT — equal to Winnow's resample Elo, resample by
    resample; the CLI's bounds are their quantiles."""
    path = write_battles(tmp_path / "b.json", battles)
    votes = read_vote_file(path).votes
    cells = vote_cells(votes.a, votes.b, votes.outcome, len(votes.models))
    n_boot, seed = 40, 11
    winnow, used_map = bootstrap_elo(cells, n_boot, seed=seed)
    assert not used_map.any()
    counts = resample_cells(cells, n_boot, np.random.default_rng(seed))
    matchups = np.stack([cells.i, cells.j], axis=1)
    outcomes = np.select([cells.kind == 0, cells.kind == 1], [1.0, 0.0], 0.5)
    for r in range(n_boot):
        ref = fastchat_weighted_elo(matchups, outcomes, counts[r] / cells.total, len(votes.models))
        ref += INIT - ref.mean()
        np.testing.assert_allclose(winnow[r], ref, atol=1e-4)


def test_cli_bounds_are_quantiles_of_the_reference_resamples(capsys, tmp_path, battles) -> None:
    path = write_battles(tmp_path / "b.json", battles)
    out = run(capsys, "elo", str(path), "--bootstrap", "60", "--seed", "3", "--ci", "0.9")
    votes = read_vote_file(path).votes
    cells = vote_cells(votes.a, votes.b, votes.outcome, len(votes.models))
    counts = resample_cells(cells, 60, np.random.default_rng(3))
    matchups = np.stack([cells.i, cells.j], axis=1)
    outcomes = np.select([cells.kind == 0, cells.kind == 1], [1.0, 0.0], 0.5)
    boot = np.array(
        [
            fastchat_weighted_elo(matchups, outcomes, c / cells.total, len(votes.models))
            for c in counts
        ]
    )
    boot += INIT - boot.mean(axis=1, keepdims=True)
    lo, hi = np.quantile(boot, [0.05, 0.95], axis=0)
    for i, m in enumerate(votes.models):
        assert out["ratings"][m]["lo"] == pytest.approx(lo[i], abs=1e-3)
        assert out["ratings"][m]["hi"] == pytest.approx(hi[i], abs=1e-3)


def test_online_elo_matches_fastchat_compute_elo_in_time_order(capsys, tmp_path, battles) -> None:
    shuffled = list(reversed(battles))  # the file is not in time order; FastChat sorts
    path = write_battles(tmp_path / "b.json", shuffled)
    ref = fastchat_online_elo(sorted(battles, key=lambda b: b["tstamp"]))
    out = run(capsys, "elo", str(path), "--online", "--bootstrap", "0")
    assert out["method"] == "online" and out["k"] == 4.0 and out["order"] == "tstamp"
    for m, r in out["ratings"].items():
        assert r["elo"] == pytest.approx(ref[m], abs=1e-9)
    assert np.mean([r["elo"] for r in out["ratings"].values()]) == pytest.approx(INIT)
    k8 = run(capsys, "elo", str(path), "--online", "--bootstrap", "0", "--k", "8")
    ref8 = fastchat_online_elo(sorted(battles, key=lambda b: b["tstamp"]), k=8)
    assert all(r["elo"] == pytest.approx(ref8[m], abs=1e-9) for m, r in k8["ratings"].items())


def test_online_elo_without_times_replays_file_order(capsys, tmp_path, battles) -> None:
    plain = [{k: v for k, v in b.items() if k != "tstamp"} for b in reversed(battles)]
    path = write_battles(tmp_path / "b.json", plain)
    ref = fastchat_online_elo(plain)
    out = run(capsys, "elo", str(path), "--online", "--bootstrap", "0")
    assert out["order"] == "file"
    assert all(r["elo"] == pytest.approx(ref[m], abs=1e-9) for m, r in out["ratings"].items())


def test_online_bootstrap_replays_resampled_battles_like_fastchat(tmp_path, battles) -> None:
    """Given the same draws, each replay is FastChat's compute_elo on the resampled battles."""
    small = battles[:120]
    path = write_battles(tmp_path / "b.json", small)
    votes = read_vote_file(path).votes
    got = bootstrap_online(votes, 3, seed=5)
    draws = np.random.default_rng(5).integers(0, len(votes), size=(3, len(votes)))
    words = {0: "model_a", 1: "model_b", 2: "tie"}
    as_battles = [
        {"model_a": votes.models[a], "model_b": votes.models[b], "winner": words[int(o)]}
        for a, b, o in zip(votes.a, votes.b, votes.outcome, strict=True)
    ]
    for r in range(3):
        ref = fastchat_online_elo([as_battles[i] for i in draws[r]])
        for i, m in enumerate(votes.models):
            if m in ref:
                assert got[r, i] == pytest.approx(ref[m], abs=1e-9)
            else:
                assert np.isnan(got[r, i])


def test_every_format_gives_the_same_board(capsys, tmp_path, battles) -> None:
    """JSON array, JSON Lines, pairwise CSV, parquet and a counts table: one board."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame(battles)
    files = {"json": write_battles(tmp_path / "b.json", battles)}
    files["jsonl"] = tmp_path / "b.jsonl"
    files["jsonl"].write_text("".join(json.dumps(b) + "\n" for b in battles), encoding="utf-8")
    files["csv"] = tmp_path / "pairs.csv"
    frame.to_csv(files["csv"], index=False)
    files["parquet"] = tmp_path / "pairs.parquet"
    frame.to_parquet(files["parquet"], index=False)
    column = {"model_a": "wins_a", "model_b": "wins_b", "tie": "ties", "tie (bothbad)": "bothbad"}
    tally: dict[tuple[str, str], dict[str, int]] = defaultdict(
        lambda: dict.fromkeys(column.values(), 0)
    )
    for b in battles:  # per ordered pair, as FastChat's pivot tables count them
        tally[b["model_a"], b["model_b"]][column[b["winner"]]] += 1
    counts = pd.DataFrame([{"Model_A": a, "Model_B": b, **c} for (a, b), c in tally.items()])
    files["counts"] = tmp_path / "counts.csv"
    counts.to_csv(files["counts"], index=False)
    ref = centred(fastchat_mle_elo(battles))
    for kind, path in files.items():
        out = run(capsys, "elo", str(path), "--bootstrap", "0")
        for m in ref:
            assert out["ratings"][m]["elo"] == pytest.approx(ref[m], abs=1e-4), (kind, m)
