"""``winnow stats ...``: exact JSON keys (SPEC §6), values from core, clean errors (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.cli import run_cli
from core import stats

REPO = Path(__file__).resolve().parents[2]


def _run(capsys, *argv: str) -> dict:
    code = run_cli(["stats", *argv])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def _rankings(write_csv, seed: int = 0, raters: int = 3, items: int = 6, models: str = "ABCD"):
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(raters):
        for i in range(items):
            for m, rank in zip(models, rng.permutation(len(models)) + 1, strict=True):
                rows.append([f"r{r}", f"i{i}", m, int(rank)])
    return write_csv("rankings.csv", ["rater", "item", "model", "rank"], rows)


def test_bt(capsys, data_dir: Path) -> None:
    out = _run(capsys, "bt", str(data_dir / "agresti_1987_votes.csv"))
    assert set(out) == {"scores", "method"} and out["method"] == "ml"
    assert sum(out["scores"].values()) == pytest.approx(100.0)
    assert list(out["scores"])[0] == "Milwaukee"
    log = np.log(out["scores"]["Milwaukee"] / out["scores"]["Baltimore"])
    assert log == pytest.approx(1.58, abs=0.005)


def test_bt_map_and_forced_ml_error(capsys, write_csv) -> None:
    path = write_csv("v.csv", ["a", "b", "winner"], [["x", "y", "a"], ["y", "z", "a"]])
    assert _run(capsys, "bt", str(path))["method"] == "map"
    assert run_cli(["stats", "bt", str(path), "--method", "ml"]) == 2
    assert "do not exist" in capsys.readouterr().err


def test_elo(capsys, data_dir: Path) -> None:
    path = str(data_dir / "agresti_1987_votes.csv")
    out = _run(capsys, "elo", path, "--bootstrap", "300", "--ci", "0.99", "--seed", "0")
    assert set(out) == {"ratings", "ci", "bootstrap"}
    assert out["ci"] == 0.99 and out["bootstrap"] == 300
    ratings = out["ratings"]
    assert all(set(r) == {"elo", "lo", "hi"} for r in ratings.values())
    assert np.mean([r["elo"] for r in ratings.values()]) == pytest.approx(1000.0)
    assert all(r["lo"] <= r["elo"] <= r["hi"] for r in ratings.values())
    assert _run(capsys, "elo", path, "--bootstrap", "300", "--ci", "0.99", "--seed", "0") == out
    with pytest.raises(SystemExit) as exc:  # argparse rejects the option value
        run_cli(["stats", "elo", path, "--ci", "1.5"])
    assert exc.value.code == 2
    assert "--ci: expected a number between 0 and 1" in capsys.readouterr().err


def test_winrate(capsys, write_csv) -> None:
    rows = [["1", "A", 9, "g"], ["1", "B", 7, "g"], ["2", "A", 2, "g"], ["2", "B", 5, "g"]]
    path = write_csv("s.csv", ["sample", "model", "score", "judge"], rows)
    assert _run(capsys, "winrate", str(path)) == {"win_rate": {"A": 0.5, "B": 0.5}}


def test_kemeny(capsys, write_csv) -> None:
    path = _rankings(write_csv)
    out = _run(capsys, "kemeny", str(path))
    assert set(out) == {"consensus", "score"}
    ref = stats.kemeny_table(stats.tables.read_rankings(path))
    assert out == {"consensus": ref.consensus, "score": ref.score}
    assert isinstance(out["score"], int)


def test_kemeny_heuristic_marks_inexact(capsys, write_csv) -> None:
    models = [f"m{i:02d}" for i in range(stats.EXACT_MAX_ITEMS + 2)]
    path = _rankings(write_csv, raters=2, items=2, models=models)
    assert run_cli(["stats", "kemeny", str(path)]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["exact"] is False and len(out["consensus"]) == len(models)
    # a person reading the terminal is told too, not only a script reading the JSON
    assert f"{len(models)} models" in captured.err and "local search" in captured.err
    small = _run(capsys, "kemeny", str(_rankings(write_csv)))
    assert "exact" not in small


def test_kendall(capsys, write_csv) -> None:
    path = _rankings(write_csv)
    out = _run(capsys, "kendall", str(path))
    assert set(out) == {"pairs", "vs_consensus"}
    assert [(p["a"], p["b"]) for p in out["pairs"]] == [("r0", "r1"), ("r0", "r2"), ("r1", "r2")]
    assert all(set(p) == {"a", "b", "tau_b", "p"} for p in out["pairs"])
    assert set(out["vs_consensus"]) == {"r0", "r1", "r2"}
    per_item = _run(capsys, "kendall", str(path), "--consensus", "item")
    assert per_item["pairs"] == out["pairs"]


def test_friedman(capsys, write_csv) -> None:
    path = _rankings(write_csv)
    out = _run(capsys, "friedman", str(path))
    assert set(out) == {"statistic", "p", "posthoc"}
    assert len(out["posthoc"]) == 6
    assert all(set(p) == {"a", "b", "p", "p_adj"} for p in out["posthoc"])
    assert all(p["p_adj"] == pytest.approx(min(1.0, 6 * p["p"])) for p in out["posthoc"])
    nem = _run(capsys, "friedman", str(path), "--posthoc", "nemenyi")
    assert nem["statistic"] == out["statistic"]


def test_alpha(capsys, data_dir: Path, write_csv) -> None:
    path = str(data_dir / "krippendorff_2011.csv")
    for level, published in (
        ("nominal", 0.743),
        ("ordinal", 0.815),
        ("interval", 0.849),
        ("ratio", 0.797),
    ):
        out = _run(capsys, "alpha", path, "--level", level)
        assert set(out) == {"alpha", "level"} and out["level"] == level
        assert out["alpha"] == pytest.approx(published, abs=5e-4)
    const = write_csv("c.csv", ["rater", "unit", "value"], [["a", "u", 3], ["b", "u", 3]])
    assert run_cli(["stats", "alpha", str(const)]) == 2
    err = capsys.readouterr().err
    assert "alpha is undefined" in err and "nan" not in err.lower().replace("krippendorff", "")


def test_success(capsys, write_csv) -> None:
    rows = [["a", "u1", "M", "IF", 4], ["b", "u1", "M", "IF", 5], ["a", "u1", "M", "VQ", 3]]
    path = write_csv("l.csv", ["rater", "unit", "model", "criterion", "value"], rows)
    out = _run(capsys, "success", str(path), "--tau", "4")
    assert out == {"success": {"M": {"IF": 1.0, "VQ": 0.0, "overall": 0.0}}, "tau": 4.0}


def test_idea(capsys, write_csv) -> None:
    header = ["model", "category", "subtask", "case", "q1", "q2", "q3", "q4", "q5", "q6"]
    rows = [
        ["M", "T2I", "logo", "c1", 1, 1, 1, 1, 0, 0],
        ["M", "I2I", "edit", "c1", 0, 1, 1, 1, 1, 1],
    ]
    out = _run(capsys, "idea", str(write_csv("c.csv", header, rows)))
    assert out["scores"]["M"] == pytest.approx(
        {"I2I": 100 / 6, "T2I": 100 * 4 / 6, "overall": (100 / 6 + 400 / 6) / 2}
    )


def test_malformed_csv_exit_2_names_row_and_column(capsys, write_csv) -> None:
    path = write_csv("VOTES.csv", ["a", "b", "winner"], [["x", "y", "a"]] * 5 + [["x", "y", "x"]])
    assert run_cli(["stats", "bt", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err
        == "winnow stats: error: VOTES.csv row 7, column 'winner': expected one of a, b, tie, got 'x'"
        ": that is the winner's name; write a or b (the side that won) or tie"  # 'x' is a's
    )
    assert run_cli(["stats", "kemeny", str(path.parent / "missing.csv")]) == 2
    assert "missing.csv" in capsys.readouterr().err


def test_empty_input(capsys, write_csv) -> None:
    for cmd, header in (
        ("bt", ["a", "b", "winner"]),
        ("winrate", ["sample", "model", "score"]),
        ("kendall", ["rater", "item", "model", "rank"]),
        ("alpha", ["rater", "unit", "value"]),
    ):
        assert run_cli(["stats", cmd, str(write_csv(f"{cmd}.csv", header, []))]) == 2
        assert "only a header" in capsys.readouterr().err


def test_module_entry_point(data_dir: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "stats", "bt", str(data_dir / "agresti_1987_votes.csv")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["method"] == "ml"


def test_winrate_says_which_models_had_no_comparison(capsys, write_csv) -> None:
    """A model scored only on samples no other model was scored on has no win rate: it is
    left out of the JSON (ADR 015) and the command says so on stderr, naming it — before,
    it vanished from the output without a word."""
    path = write_csv("scores.csv", ["sample", "model", "score"],
                     [["s1", "x", 1], ["s1", "y", 2], ["s2", "z", 5], ["s3", "w", 1]])
    assert run_cli(["stats", "winrate", str(path)]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out) == {"win_rate": {"y": 1.0, "x": 0.0}}
    assert "2 models" in out.err and "'w', 'z'" in out.err and "left out" in out.err
    write_csv("all.csv", ["sample", "model", "score"], [["s1", "x", 1], ["s1", "y", 2]])
    assert run_cli(["stats", "winrate", str(path.parent / "all.csv")]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(("method", "header", "rows", "says"), [
    ("friedman", ["rater", "item", "model", "rank"],
     [["r1", "i1", "x", 1], ["r1", "i1", "y", 2], ["r2", "i1", "x", 1]],
     "rater 'r2' on item 'i1' does not rank model(s) 'y'"),
    ("friedman", ["rater", "item", "model", "rank"], [["r1", "i1", "x", 1]], "at least 2 models"),
    ("alpha", ["rater", "unit", "value"], [["a", "u", 3], ["a", "v", 4]], "alpha is undefined"),
    ("winrate", ["sample", "model", "score"], [["s", "x", 1], ["t", "y", 2]], "no comparisons"),
    ("bt", ["a", "b", "winner"], [["x", "y", "a"]], "'x' never loses"),
])
def test_a_statistic_the_data_cannot_give_names_the_file(
        capsys, write_csv, method, header, rows, says) -> None:
    """Refusals that come from the statistic, not the reading, named no file: with
    several files in a script the user could not tell which one (every other error
    names it)."""
    path = write_csv("named.csv", header, rows)
    extra = ["--method", "ml"] if method == "bt" else []
    assert run_cli(["stats", method, str(path), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("winnow stats: error: named.csv: ") and says in err, err
    assert err.count("named.csv") == 1
