"""Models never compared with each other (two islands) are named, in the CLI and in Analyze.

``winnow stats bt`` and ``elo`` said so on stderr and in ``"components"`` (ADR 021);
``winrate`` and ``kemeny`` printed win rates and a consensus across the islands without a
word, though nothing in the data compares one island with the other (ADR 217).
"""

from __future__ import annotations

import json

import pytest

from app.cli import run_cli
from core.analysis.report import AnalysisOptions, analyze
from core.stats.bradley_terry import describe_groups

ISLANDS = [["A", "B"], ["C", "D"]]
VOTES = [["A", "B", "a"], ["B", "A", "tie"], ["C", "D", "b"], ["D", "C", "a"]]
SCORES = [["s1", "A", 1], ["s1", "B", 2], ["s2", "A", 3], ["s2", "B", 1],
          ["t1", "C", 1], ["t1", "D", 2]]
RANKINGS = [["r1", "i1", "A", 1], ["r1", "i1", "B", 2], ["r2", "i1", "A", 2],
            ["r2", "i1", "B", 1], ["r1", "i2", "C", 1], ["r1", "i2", "D", 2]]


def _run(capsys, *args: str) -> tuple[dict, str]:  # type: ignore[no-untyped-def]
    assert run_cli(["stats", *args]) == 0
    out = capsys.readouterr()
    return json.loads(out.out), out.err


@pytest.mark.parametrize(("header", "rows", "what"), [
    (["a", "b", "winner"], VOTES, "votes"),
    (["sample", "model", "score"], SCORES, "scores"),
])
def test_winrate_names_the_islands(capsys, write_csv, header, rows, what) -> None:  # type: ignore[no-untyped-def]
    data, err = _run(capsys, "winrate", str(write_csv("w.csv", header, rows)))
    assert set(data["win_rate"]) == {"A", "B", "C", "D"}  # the contract's key is intact
    assert data["components"] == ISLANDS
    assert f"the {what} split into 2 groups of models that are never compared" in err
    assert "('A', 'B'); ('C', 'D')" in err and "not comparable" in err


def test_kemeny_names_the_islands(capsys, write_csv) -> None:  # type: ignore[no-untyped-def]
    path = write_csv("r.csv", ["rater", "item", "model", "rank"], RANKINGS)
    data, err = _run(capsys, "kemeny", str(path))
    assert sorted(data["consensus"]) == ["A", "B", "C", "D"]
    assert data["components"] == ISLANDS
    assert "2 groups of models that are never compared" in err and "arbitrary" in err


def test_connected_data_adds_nothing(capsys, write_csv) -> None:  # type: ignore[no-untyped-def]
    votes = write_csv("v.csv", ["a", "b", "winner"], [["A", "B", "a"], ["B", "C", "b"]])
    scores = write_csv("s.csv", ["sample", "model", "score"], SCORES[:4])
    ranks = write_csv("r.csv", ["rater", "item", "model", "rank"], RANKINGS[:4])
    for method, path in (("winrate", votes), ("winrate", scores), ("kemeny", ranks)):
        data, err = _run(capsys, method, str(path))
        assert "components" not in data and err == ""


def test_the_bt_warning_names_the_groups_too(capsys, write_csv) -> None:  # type: ignore[no-untyped-def]
    data, err = _run(capsys, "bt", str(write_csv("v.csv", ["a", "b", "winner"], VOTES)))
    assert data["components"] == ISLANDS and "('A', 'B'); ('C', 'D')" in err


def test_a_long_list_of_groups_is_cut() -> None:
    groups = [[f"m{g}-{i}" for i in range(8)] for g in range(6)]
    groups[0][0] = "L" * 10_000
    text = describe_groups(groups)
    assert text.startswith("6 groups of models that are never compared")
    assert "and 3 more)" in text and text.endswith("; and 3 more")  # 5 names, 3 groups
    assert "m3-0" not in text and len(text) < 600


@pytest.mark.parametrize(("kind", "keys", "rows", "bridge"), [
    ("votes", ("a", "b", "winner"), VOTES, [["B", "C", "a"]]),
    ("scores", ("sample", "model", "score"), SCORES, [["u1", "B", 1], ["u1", "C", 2]]),
    ("rankings", ("rater", "item", "model", "rank"), RANKINGS,
     [["r1", "i3", "B", 1], ["r1", "i3", "C", 2]]),
])
def test_analyze_leaderboard_warns_of_islands(kind, keys, rows, bridge) -> None:  # type: ignore[no-untyped-def]
    data = [dict(zip(keys, r, strict=True)) for r in rows]
    lead = analyze(data, kind, AnalysisOptions(n_boot=10)).sections["leaderboard"]
    warning = [s for s in lead.summary if s.startswith("Warning")]
    assert len(warning) == 1 and "('A', 'B'); ('C', 'D')" in warning[0]
    joined = data + [dict(zip(keys, r, strict=True)) for r in bridge]
    lead = analyze(joined, kind, AnalysisOptions(n_boot=10)).sections["leaderboard"]
    assert not [s for s in lead.summary if s.startswith("Warning")]
