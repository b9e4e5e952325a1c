"""Cancel reaches inside the Elo bootstrap of Analyze (new-votes sweep).

1,000 models with a few votes each take minutes at the default 1,000 resamples; Cancel
was only looked at between the stages, so it waited for the whole bootstrap.
"""

from __future__ import annotations

import importlib
import random

import pytest

from core.analysis.report import AnalysisOptions, analyze
from core.jobs import Cancelled, JobState


def _votes(n_models: int = 40, n: int = 300) -> list[dict[str, str]]:
    rng = random.Random(0)
    rows = []
    for _ in range(n):
        a, b = rng.sample(range(n_models), 2)
        rows.append({"a": f"m{a}", "b": f"m{b}", "winner": rng.choice("ab")})
    return rows


def test_cancel_stops_the_bootstrap_between_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    elo = importlib.import_module("core.stats.elo")
    monkeypatch.setattr(elo, "batch_size", lambda n, limit=2000: 10)
    fitted: list[int] = []
    real = elo.fit_strengths

    def counting(w, *args, **kwargs):  # type: ignore[no-untyped-def]
        fitted.append(1)
        if len(fitted) == 3:  # the full data, then two batches: the user presses Cancel
            state.cancel()
        return real(w, *args, **kwargs)

    monkeypatch.setattr(elo, "fit_strengths", counting)
    state = JobState(title="Analyze")
    with pytest.raises(Cancelled):
        analyze(_votes(), "votes", AnalysisOptions(n_boot=1000, seed=1), state=state)
    assert len(fitted) <= 4  # not the 100 batches of 10 resamples


def test_without_cancel_the_result_is_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _votes()
    plain = analyze(rows, "votes", AnalysisOptions(n_boot=50, seed=1))
    watched = analyze(rows, "votes", AnalysisOptions(n_boot=50, seed=1),
                      state=JobState(title="Analyze"))
    board = plain.sections["leaderboard"].tables[0].rows
    assert watched.sections["leaderboard"].tables[0].rows == board
