"""Numbers at the edge of float64 and data that break the maths (new-votes sweep).

Each case gives the reference's number or a clear error naming the condition — never
a NaN, an overflow warning on stderr, or a traceback.
"""

from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pytest

from app.cli import run_cli
from core.stats.krippendorff_alpha import alpha
from core.stats.winrate import win_rates_from_tensor

HUGE = np.array([[1e308, 1e308, 3.0, 2.0], [-1e308, 1e308, 4.0, 2.0]])


@pytest.mark.parametrize("level", ["interval", "ratio"])
def test_alpha_of_huge_values_is_the_scaled_reference(level: str) -> None:
    """Interval and ratio alpha do not change when every value is multiplied by one
    number, so the data divided by 1e308 is the reference (the ``krippendorff``
    package, which overflows on the data itself)."""
    data = np.abs(HUGE) if level == "ratio" else HUGE
    want = krippendorff.alpha(reliability_data=data / 1e308, level_of_measurement=level)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow warning fails the test
        got = alpha(data, level)
    assert np.isfinite(got) and got == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("level", ["interval", "ratio"])
def test_alpha_is_scale_free(level: str) -> None:
    rng = np.random.default_rng(3)
    data = rng.integers(1, 6, size=(4, 12)).astype(float)
    data[0, 3] = data[2, 7] = np.nan
    base = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    for scale in (1e-300, 1e-3, 1e300):
        assert alpha(data * scale, level) == pytest.approx(base, rel=1e-9)


def test_cli_alpha_with_huge_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.csv"
    rows = [f"r{r + 1},u{u + 1},{float(HUGE[r, u])!r}" for r in range(2) for u in range(4)]
    path.write_text("rater,unit,value\n" + "\n".join(rows) + "\n", encoding="utf-8")
    assert run_cli(["stats", "alpha", str(path), "--level", "interval"]) == 0
    out = capsys.readouterr()
    want = krippendorff.alpha(reliability_data=HUGE / 1e308, level_of_measurement="interval")
    assert json.loads(out.out)["alpha"] == pytest.approx(want, rel=1e-9)
    assert "Warning" not in out.err and out.err == ""


def test_win_rate_of_scores_at_the_float_limits_warns_nothing() -> None:
    """1e308 - (-1e308) overflows to inf, whose sign is still the right winner."""
    scores = np.array([[1e308, -1e308], [5e-324, 0.0], [-1.7e308, 1.7e308]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = win_rates_from_tensor(scores, ["A", "B"])
    assert result.win_rate_dict() == {"A": pytest.approx(2 / 3), "B": pytest.approx(1 / 3)}


def _elo(tmp_path: Path, capsys: pytest.CaptureFixture[str], rows: str) -> tuple[dict, str]:
    path = tmp_path / "v.csv"
    path.write_text("a,b,winner\n" + rows, encoding="utf-8")
    assert run_cli(["stats", "elo", str(path), "--bootstrap", "50", "--seed", "0"]) == 0
    out = capsys.readouterr()
    return json.loads(out.out), out.err


def test_one_vote_gives_a_zero_width_interval_and_says_it_is_not_certainty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Resampling one vote gives that vote every time: lo == elo == hi.  That is what the
    bootstrap computes, but read alone it claims certainty, so the command says so."""
    out, err = _elo(tmp_path, capsys, "A,B,a\nA,B,a\n")
    for r in out["ratings"].values():
        assert r["lo"] == pytest.approx(r["hi"])
    assert "warning: the bootstrap interval of A, B has zero width" in err
    assert "not that the rating is certain" in err


def test_varied_votes_give_no_zero_width_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, err = _elo(tmp_path, capsys, "A,B,a\nA,B,b\nB,C,a\nC,A,b\nA,C,tie\nB,C,b\n" * 3)
    assert all(r["hi"] > r["lo"] for r in out["ratings"].values())
    assert err == ""


def test_a_long_bootstrap_on_a_terminal_says_how_far_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """1,000 models with a few votes each: the default 1,000 resamples take minutes, so on
    a terminal the command says how far it is instead of looking hung (JSON on stdout
    unchanged); piped, stderr stays quiet."""
    import app.cli_stats as cli_stats
    elo_module = importlib.import_module("core.stats.elo")

    rng = np.random.default_rng(0)
    pairs = [rng.choice(60, 2, replace=False) for _ in range(400)]
    path = tmp_path / "many.csv"
    path.write_text("a,b,winner\n" + "".join(f"m{a},m{b},{'ab'[k % 2]}\n"
                                             for k, (a, b) in enumerate(pairs)))
    monkeypatch.setattr(elo_module, "batch_size", lambda n, limit=2000: 7)
    monkeypatch.setattr(cli_stats, "PROGRESS_EVERY_S", 0.0)
    args = ["stats", "elo", str(path), "--bootstrap", "30", "--seed", "1"]
    assert run_cli(args) == 0
    quiet = capsys.readouterr()
    assert "resample" not in quiet.err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert run_cli(args) == 0
    shown = capsys.readouterr()
    assert json.loads(shown.out) == json.loads(quiet.out)
    assert "bootstrap: 7 of 30 resamples" in shown.err
    assert "bootstrap: 30 of 30 resamples" in shown.err
