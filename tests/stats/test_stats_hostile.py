"""Hostile and oversized statistics inputs: bounded memory, clear errors, honest output."""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest

from app.cli import run_cli
from core import stats
from core.stats import tables
from core.stats.bradley_terry import comparison_groups, fit_strengths
from core.stats.tables import CsvFormatError
from core.stats.votes import A_WINS, B_WINS, MAX_MODELS, TIE, Votes, vote_cells, win_matrix


def _random_votes(k: int, n: int, seed: int = 0, neighbours: int | None = None) -> Votes:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, k, n)
    step = rng.integers(1, neighbours + 1, n) if neighbours else rng.integers(1, k, n)
    b = (a + step) % k
    strength = rng.normal(size=k)
    p = 1 / (1 + np.exp(-(strength[a] - strength[b])))
    u = rng.random(n)
    out = np.where(np.abs(u - p) < 0.03, TIE, np.where(u < p, A_WINS, B_WINS)).astype(np.int8)
    return Votes(tuple(f"m{i:04d}" for i in range(k)), a, b, out)


def _loop_win_matrix(v: Votes) -> np.ndarray:
    w = np.zeros((len(v.models), len(v.models)))
    for x, y, o in zip(v.a, v.b, v.outcome, strict=True):
        if o == A_WINS:
            w[x, y] += 1
        elif o == B_WINS:
            w[y, x] += 1
        else:
            w[x, y] += 0.5
            w[y, x] += 0.5
    return w


def test_win_matrices_match_a_plain_loop_single_and_batched() -> None:
    v = _random_votes(12, 3000, seed=3)
    cells = vote_cells(v.a, v.b, v.outcome, len(v.models))
    np.testing.assert_array_equal(cells.win_matrices(cells.counts), _loop_win_matrix(v))
    batch = np.stack([cells.counts, 2 * cells.counts, np.zeros_like(cells.counts)])
    got = cells.win_matrices(batch)
    np.testing.assert_array_equal(got[1], 2 * _loop_win_matrix(v))
    assert not got[2].any()


def test_fit_memory_is_quadratic_not_quartic_in_models() -> None:
    """60 models: the old cells × K² operator alone was ~150 MB; now a few K² arrays."""
    v = _random_votes(60, 50_000, seed=1)
    tracemalloc.start()
    try:
        res = stats.fit_votes(v)
        elo = stats.elo_ratings(v, n_boot=20, seed=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 40 * 2**20, f"peak {peak / 2**20:.0f} MB"
    assert res.method == "ml" and len(elo.elo) == 60


def test_newton_start_reaches_the_newman_fixed_point_on_a_wide_sparse_graph() -> None:
    """400 models each compared with 3 neighbours: Newman's sweeps alone need minutes."""
    v = _random_votes(400, 40_000, seed=2, neighbours=3)
    w = win_matrix(v.a, v.b, v.outcome, 400)
    pi, used_map = fit_strengths(w)
    assert not used_map
    # stationarity of eq. 12: sum_j W_ij pi_j/(pi_i+pi_j) == sum_j W_ji pi_i/(pi_i+pi_j)
    s = pi[:, None] + pi[None, :]
    lhs = (w * pi[None, :] / s).sum(axis=1)
    rhs = (w.T * pi[:, None] / s).sum(axis=1)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-8)
    assert np.log(pi).mean() == pytest.approx(0.0, abs=1e-9)


def test_disconnected_groups_are_reported_in_json_and_on_stderr(capsys, write_csv) -> None:
    rows = [["x", "y", "a"], ["y", "x", "a"], ["p", "q", "a"], ["q", "r", "tie"]]
    path = write_csv("v.csv", ["a", "b", "winner"], rows)
    assert run_cli(["stats", "bt", str(path)]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert data["method"] == "map"
    assert data["components"] == [["p", "q", "r"], ["x", "y"]]
    assert "2 groups of models that are never compared" in out.err
    assert run_cli(["stats", "elo", str(path), "--bootstrap", "10", "--seed", "1"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["components"] == [["p", "q", "r"], ["x", "y"]]
    connected = write_csv("c.csv", ["a", "b", "winner"], [["x", "y", "a"], ["y", "x", "a"]])
    assert run_cli(["stats", "bt", str(connected)]) == 0
    out = capsys.readouterr()
    assert "components" not in json.loads(out.out) and out.err == ""


def test_comparison_groups_order() -> None:
    w = np.zeros((5, 5))
    w[3, 4] = w[0, 1] = w[1, 2] = 1
    assert comparison_groups(w) == [[0, 1, 2], [3, 4]]


def test_too_many_models_refused_before_allocating(write_csv, tmp_path) -> None:
    path = tmp_path / "many.csv"
    with open(path, "w") as fh:
        fh.write("a,b,winner\n")
        fh.writelines(f"m{k},n{k},a\n" for k in range(MAX_MODELS))  # 2 × MAX_MODELS models
    tracemalloc.start()
    try:
        with pytest.raises(CsvFormatError, match=r"4,000 distinct models is more than"):
            tables.read_votes(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20
    big = _random_votes(MAX_MODELS + 1, 10)
    with pytest.raises(ValueError, match="more than the 2,000"):
        stats.fit_votes(big)


def test_absurd_bootstrap_and_dense_tables_refused(capsys, write_csv) -> None:
    path = write_csv("v.csv", ["a", "b", "winner"], [["x", "y", "a"], ["y", "x", "b"]])
    assert run_cli(["stats", "elo", str(path), "--bootstrap", "100000000"]) == 2
    assert "at most 100,000 resamples" in capsys.readouterr().err
    # 3,000 raters × 3,000 items × 10 models in only 3,000 rows: a 90-billion-cell tensor
    rows = [[f"r{k}", f"i{k}", f"m{k % 10}", 1] for k in range(3000)]
    ranks = write_csv("r.csv", ["rater", "item", "model", "rank"], rows)
    assert run_cli(["stats", "kemeny", str(ranks)]) == 2
    err = capsys.readouterr().err
    assert "r.csv: 3,000 raters × 3,000 items × 10 models" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (["r", "u", "M", "IF", 99], "row 2, column 'value': expected a rating from 1 to 5, got '99'"),
        (["r", "u", "M", "IF", 0], "expected a rating from 1 to 5, got '0'"),
        (["r", "u", "M", "style", 3], "column 'criterion': expected one of IF, IC, VQ"),
        (["r", "u", "M", "overall", 3], "'overall' is reserved"),
    ],
)
def test_success_refuses_out_of_scale_values_and_unknown_criteria(write_csv, row, message) -> None:
    path = write_csv("l.csv", ["rater", "unit", "model", "criterion", "value"], [row])
    with pytest.raises(CsvFormatError, match=message):
        tables.read_likert(path)


def test_success_criteria_any_case_and_tau_range(capsys, write_csv) -> None:
    path = write_csv("l.csv", ["rater", "unit", "model", "criterion", "value"],
                     [["r", "u", "M", "if", 4], ["r", "u", "M", "Vq", 2]])
    assert run_cli(["stats", "success", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["success"] == {
        "M": {"IF": 1.0, "VQ": 0.0, "overall": 0.0}}
    with pytest.raises(SystemExit):
        run_cli(["stats", "success", str(path), "--tau", "1e308"])
    assert "expected a threshold from 1 to 5" in capsys.readouterr().err


def test_self_comparison_rejects_the_file_naming_the_row(write_csv) -> None:
    """ADR 018: a vote of a model against itself is an error, not a skipped row."""
    path = write_csv("v.csv", ["a", "b", "winner"], [["x", "y", "a"], ["z", "Z ", "a"],
                                                     ["q", " q", "tie"]])
    with pytest.raises(CsvFormatError, match=r"v.csv row 4, column 'b': the same model"):
        tables.read_votes(path)


def test_memory_error_and_huge_files_are_one_clear_line(capsys, write_csv, monkeypatch,
                                                        tmp_path) -> None:
    from core.stats import csvcolumns

    path = write_csv("v.csv", ["a", "b", "winner"], [["x", "y", "a"], ["y", "x", "b"]])

    def oom(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise MemoryError

    monkeypatch.setattr(stats, "fit_votes", oom)
    assert run_cli(["stats", "bt", str(path)]) == 2
    err = capsys.readouterr().err
    assert "not enough memory" in err and "Traceback" not in err
    monkeypatch.setattr(csvcolumns, "MAX_FILE_BYTES", 10)
    assert run_cli(["stats", "elo", str(path)]) == 2
    assert "a statistics file may have; split it" in capsys.readouterr().err


@pytest.mark.parametrize("category", ["overall", "Overall"])
def test_idea_refuses_a_category_named_overall(capsys, write_csv, category: str) -> None:
    """A category called 'overall' collided with the overall score's key: the JSON held
    one number under 'overall' and the category's own percentage was gone."""
    qh = ["model", "category", "subtask", "case", "q1", "q2", "q3", "q4", "q5", "q6"]
    path = write_csv("c.csv", qh, [["M", "T2I", "s", "c", 0, 0, 0, 0, 0, 0],
                                   ["M", category, "s", "c", 1, 1, 1, 1, 1, 1]])
    assert run_cli(["stats", "idea", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert ("c.csv row 3, column 'category': 'overall' is reserved for the overall score"
            in captured.err)


@pytest.mark.parametrize("k", ["1e300", "401"])
def test_online_elo_refuses_a_k_beyond_the_elo_scale(capsys, write_csv, k: str) -> None:
    """`--online --k 1e300` ended in an OverflowError traceback (10 ** (ΔR / 400))."""
    path = write_csv("v.csv", ["a", "b", "winner"], [["x", "y", "a"], ["y", "x", "a"]] * 3)
    with pytest.raises(SystemExit):
        run_cli(["stats", "elo", str(path), "--online", "--k", k])
    err = capsys.readouterr().err
    assert f"argument --k: expected a number from 0 to 400 (exclusive of 0), got '{k}'" in err
    from core.stats.online_elo import online_elo_ratings

    with pytest.raises(ValueError, match="K must be"):
        online_elo_ratings(tables.read_votes(path), k=float(k))


def test_online_elo_at_the_largest_k_stays_finite(capsys, write_csv) -> None:
    rows = [["x", "y", "a"]] * 300 + [["y", "z", "a"]] * 300 + [["z", "x", "tie"]]
    path = write_csv("v.csv", ["a", "b", "winner"], rows)
    assert run_cli(["stats", "elo", str(path), "--online", "--k", "400", "--seed", "1",
                    "--bootstrap", "50"]) == 0
    ratings = json.loads(capsys.readouterr().out)["ratings"]
    assert all(np.isfinite(list(r.values())).all() for r in ratings.values())


@pytest.mark.timeout(60)
@pytest.mark.parametrize("method", ["kemeny", "kendall", "friedman", "alpha", "success",
                                    "idea"])
@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_every_table_refuses_a_pipe_a_device_or_a_folder(tmp_path, capsys, method: str,
                                                         kind: str) -> None:
    """Only the vote files checked: `winnow stats kemeny PIPE` (and `metrics calibrate
    --human PIPE`) waited for a writer for ever, /dev/zero filled the memory."""
    import os
    from pathlib import Path

    path = {"fifo": tmp_path / "x.csv", "device": Path("/dev/zero"),
            "folder": tmp_path}[kind]
    if kind == "fifo":
        os.mkfifo(path)
    assert run_cli(["stats", method, str(path)]) == 2
    assert f"{path.name}: not a regular file" in capsys.readouterr().err
