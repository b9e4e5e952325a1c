"""The analysis sections against core.stats, reference libraries and hand-computed cases."""

from __future__ import annotations

import math

import analyze_data as data
import krippendorff
import numpy as np
import pytest
from scipy import stats as sps

from core import stats
from core.analysis.report import AnalysisOptions, analyze
from core.analysis.results import SECTIONS


def _all_cells(analysis) -> list[str]:  # type: ignore[no-untyped-def]
    return [t.display(i, j) for _, t in analysis.tables()
            for i in range(len(t.rows)) for j in range(len(t.columns))]


def _row(table, model: str) -> dict:  # type: ignore[no-untyped-def]
    i = table.column("Model").index(model)
    return dict(zip(table.columns, table.rows[i], strict=True))


HAND_VOTES = ([("A", "B", "a")] * 2 + [("A", "B", "b")] + [("B", "C", "a")] * 2
              + [("B", "C", "b")] + [("A", "C", "a"), ("A", "C", "b"), ("A", "B", "tie")])


def test_votes_leaderboard_hand_computed_and_equal_to_core_stats() -> None:
    rows = [{"a": a, "b": b, "winner": w} for a, b, w in HAND_VOTES]
    res = analyze(rows, "votes", AnalysisOptions(n_boot=200, ci=0.9, seed=7))
    board = res.section("leaderboard").tables[0]
    want_rate = {"A": 3.5 / 6, "B": 3.5 / 7, "C": 2 / 5}
    want_votes = {"A": 6, "B": 7, "C": 5}
    bt = stats.bradley_terry(*zip(*HAND_VOTES, strict=True)).scores_dict()
    ref = stats.elo(*zip(*HAND_VOTES, strict=True), n_boot=200, ci=0.9, seed=7).ratings_dict()
    for m in "ABC":
        r = _row(board, m)
        assert r["Win rate"] == pytest.approx(want_rate[m], abs=1e-12)
        assert r["Votes"] == want_votes[m]
        assert r["BT/100"] == pytest.approx(bt[m], abs=1e-9)
        assert (r["Elo"], r["CI low"], r["CI high"]) == pytest.approx(
            (ref[m]["elo"], ref[m]["lo"], ref[m]["hi"]), abs=1e-9)
    assert board.column("Model") == sorted("ABC", key=lambda m: -ref[m]["elo"])
    assert sum(board.column("BT/100")) == pytest.approx(100)
    # the note says what each column is and which way is better (the A/B shares above)
    assert board.note.startswith("Votes = the votes a model took part in; Win rate = the "
                                 "share of them it won, ties counting half. BT/100 = "
                                 "Bradley-Terry strength π, scaled to sum to 100")
    assert "higher is better for both" in board.note
    chart = res.section("leaderboard").charts[0]
    assert chart.ci == 0.9 and chart.panels[0].models == ["A", "B", "C"]
    assert res.section("significance").message and res.section("success").message


def test_votes_per_criterion_and_agreement_needs_raters() -> None:
    rows = data.votes(600, criteria=("preference", "coherence"))
    res = analyze(rows, "votes", AnalysisOptions(n_boot=0))
    board = res.section("leaderboard").tables[0]
    assert set(board.column("Criterion")) == {"preference", "coherence"}
    assert len(res.section("leaderboard").charts[0].panels) == 2
    assert "'rater' and 'item'" in res.section("agreement").message
    with_raters = analyze(data.votes(600, raters=3), "votes", AnalysisOptions(n_boot=0))
    alpha = with_raters.section("agreement").tables[0]
    assert alpha.columns[:2] == ["Criterion", "α"] and isinstance(alpha.rows[0][1], float)


def test_rankings_match_kemeny_friedman_tau_and_win_rate() -> None:
    rows = data.rankings(30, 4)
    res = analyze(rows, "rankings", AnalysisOptions(n_boot=100, seed=1, posthoc="siegel"))
    table = stats.ranking_table([r["rater"] for r in rows], [r["item"] for r in rows],
                                [r["model"] for r in rows], [r["rank"] for r in rows])
    board = res.section("leaderboard").tables[0]
    assert board.column("Model") == stats.kemeny_table(table).consensus
    wr = stats.win_rates([r["item"] for r in rows], [r["model"] for r in rows],
                         [-r["rank"] for r in rows], [r["rater"] for r in rows])
    for m, rate in wr.win_rate_dict().items():
        assert _row(board, m)["Win rate"] == pytest.approx(rate, abs=1e-12)
    blocks = table.rankings()
    # how many rankings back each model: every one of 30 items × 4 raters ranks all
    assert board.column("Rankings") == [blocks.shape[0]] * len(table.models)
    assert "intervals are somewhat narrower" in board.note  # the votes of one ranking
    partial = [r for r in rows if not (r["model"] == table.models[0] and r["item"] == "i000")]
    part = analyze(partial, "rankings", AnalysisOptions(n_boot=0)).section("leaderboard")
    assert _row(part.tables[0], table.models[0])["Rankings"] == blocks.shape[0] - 4
    chi2, p = sps.friedmanchisquare(*blocks.T)
    sig = res.section("significance")
    assert f"χ² = {chi2:.3f}" in sig.summary[0]
    ref = stats.friedman(blocks, table.models, posthoc="siegel")
    posthoc = sig.tables[1]
    assert posthoc.column("p adjusted") == pytest.approx([x.p_adj for x in ref.posthoc])
    matrix = res.section("agreement").charts[0]
    r1 = table.ranks[0].ravel()
    r2 = table.ranks[1].ravel()
    assert matrix.values[0, 1] == pytest.approx(sps.kendalltau(r1, r2).statistic, abs=1e-12)
    assert matrix.measure == "Kendall τ-b"
    alpha = res.section("agreement").tables[0]
    data_ru = np.array([[r for r in table.ranks[k].ravel()] for k in range(4)])
    assert alpha.rows[0][1] == pytest.approx(
        krippendorff.alpha(data_ru, level_of_measurement="ordinal"), abs=1e-9)


def test_rankings_breakdown_is_the_win_rate_within_each_group() -> None:
    rows = data.rankings(24, 3)
    res = analyze(rows, "rankings", AnalysisOptions(n_boot=0))
    brk = res.section("breakdown").tables[0]
    portrait = [r for r in rows if r["category"] == "portrait"]
    wr = stats.win_rates([r["item"] for r in portrait], [r["model"] for r in portrait],
                         [-r["rank"] for r in portrait], [r["rater"] for r in portrait])
    col = next(c for c in brk.columns if c.startswith("portrait"))
    for m, rate in wr.win_rate_dict().items():
        assert _row(brk, m)[col] == pytest.approx(rate, abs=1e-12)
    assert res.groups == ["category"] and res.options.group_by == "category"


def test_likert_success_alpha_and_undefined_alpha_text() -> None:
    rows = data.likert(12, 3)
    for r in rows:  # every rater gives VQ the same value: alpha undefined there
        if r["criterion"] == "VQ":
            r["value"] = 3.0
    res = analyze(rows, "likert", AnalysisOptions(tau=3.5))
    means = stats.likert_means(*([r[k] for r in rows] for k in
                                 ("rater", "unit", "model", "criterion", "value")))
    ref = stats.success_rates(means, 3.5).as_dict()
    success = res.section("success").tables[0]
    for m, rates in ref.items():
        got = _row(success, m)
        for crit, rate in rates.items():
            assert got["Overall" if crit == "overall" else crit] == pytest.approx(rate)
    alpha = {r[0]: r[1] for r in res.section("agreement").tables[0].rows}
    assert alpha["VQ"].startswith("undefined: every pairable rating has the same value")
    rel = np.full((3, 12 * len(data.MODELS)), np.nan)
    cells = {}
    for r in rows:
        if r["criterion"] == "IF":
            c = cells.setdefault((r["unit"], r["model"]), len(cells))
            rel[int(r["rater"][-1]) - 1, c] = r["value"]
    assert alpha["IF"] == pytest.approx(
        krippendorff.alpha(rel, level_of_measurement="interval"), abs=1e-9)
    sweep = res.section("success").charts[0]
    assert sweep.tau == 3.5 and sweep.taus[0] == 1.0 and sweep.taus[-1] == 5.0
    assert not any("nan" in c.lower() for c in _all_cells(res))
    assert res.section("idea").message and res.section("leaderboard").charts == []


def test_rater_filter_drops_the_random_rater_everywhere() -> None:
    rows = data.likert(20, 5)
    off = analyze(rows, "likert", AnalysisOptions(threshold=0.5))
    on = analyze(rows, "likert", AnalysisOptions(rater_filter=True, threshold=0.5))
    flt = {r[0]: r[3] for r in on.section("agreement").tables[1].rows}
    assert flt == {f"rater{k}": "kept" for k in range(1, 5)} | {"rater5": "dropped"}
    assert on.n_rows == off.n_rows * 4 // 5
    assert "dropped rater5" in " ".join(on.section("agreement").summary)
    assert on.section("agreement").charts[0].labels == [f"rater{k}" for k in range(1, 5)]
    a_off = dict((r[0], r[1]) for r in off.section("agreement").tables[0].rows)
    a_on = dict((r[0], r[1]) for r in on.section("agreement").tables[0].rows)
    assert a_on["IF"] > a_off["IF"]
    kept = [r for r in rows if r["rater"] != "rater5"]
    ref = stats.success_rates(stats.likert_means(*([r[k] for r in kept] for k in (
        "rater", "unit", "model", "criterion", "value"))), 4.0)
    assert on.section("success").tables[0].column("Overall") == pytest.approx(
        list(ref.overall))


def test_checklist_hand_computed_idea_score() -> None:
    rows = [{"model": "M", "category": "T2I", "subtask": "s", "case": "c1",
             **dict(zip([f"q{k}" for k in range(1, 7)], [1, 1, 0, 1, 1, 1], strict=True))},
            {"model": "M", "category": "T2I", "subtask": "s", "case": "c2",
             **dict(zip([f"q{k}" for k in range(1, 7)], [1, 1, 1, 1, 1, 0], strict=True))},
            {"model": "N", "category": "I2I", "subtask": "t", "case": "c1",
             **{f"q{k}": 0 for k in range(1, 7)}}]
    res = analyze(rows, "checklist")
    cats = res.section("idea").tables[0]
    m = _row(cats, "M")
    assert m["T2I"] == pytest.approx(100 * (0.5 + 5 / 6) / 2)
    assert m["I2I"] == 0.0  # no cases there: counts 0 (IDEA-Bench)
    assert m["Overall"] == pytest.approx(100 * (0.5 + 5 / 6) / 4)
    assert res.section("leaderboard").tables[0].column("Model") == ["M", "N"]
    assert res.section("agreement").message.startswith("Checklist data carry no rater")


def test_scores_respect_lower_is_better_and_judges() -> None:
    rows = [{"sample": f"s{k}", "model": m, "score": float(v + k), "judge": j}
            for k in range(6) for m, v in (("X", 1), ("Y", 2)) for j in ("j1", "j2")]
    better_low = analyze(rows, "scores", AnalysisOptions(n_boot=0, higher_is_better=False))
    better_high = analyze(rows, "scores", AnalysisOptions(n_boot=0))
    assert _row(better_low.section("leaderboard").tables[0], "X")["Win rate"] == 1.0
    assert _row(better_high.section("leaderboard").tables[0], "X")["Win rate"] == 0.0
    assert better_low.section("leaderboard").tables[0].column("Model") == ["X", "Y"]
    agreement = better_low.section("agreement")
    assert agreement.charts[0].measure == "Pearson r"
    assert math.isclose(agreement.charts[0].values[0, 1], 1.0)


def test_every_kind_fills_every_tab_or_says_why() -> None:
    cases = {"votes": data.votes(300), "rankings": data.rankings(10, 3),
             "likert": data.likert(6, 3), "scores": data.scores(10), "checklist":
             data.checklist()}
    for kind, rows in cases.items():
        res = analyze(rows, kind, AnalysisOptions(n_boot=50))
        assert [k for k, _ in SECTIONS] == list(res.sections)
        for sec in res.sections.values():
            assert sec.message or sec.tables or sec.charts, (kind, sec.key)
        assert not any(c.lower() == "nan" for c in _all_cells(res)), kind


def test_bad_options_and_data_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="interval level"):
        analyze(data.votes(10), "votes", AnalysisOptions(ci=1.5))
    with pytest.raises(ValueError, match="no data"):
        analyze([], "votes")
    with pytest.raises(ValueError, match="unknown data set kind"):
        analyze(data.votes(10), "opinions")


def test_likert_leaderboard_breaks_success_ties_by_mean() -> None:
    """At a τ no model reaches, the order comes from the mean ratings, not the alphabet."""
    rows = [{"rater": f"r{k}", "unit": f"u{u}", "model": m, "criterion": c, "value": v}
            for k in range(2) for u in range(3) for c in ("IF", "IC", "VQ")
            for m, v in (("alpha", 2.0), ("beta", 3.0), ("gamma", 1.0))]
    lead = analyze(rows, "likert", AnalysisOptions(tau=4.5)).section("leaderboard").tables[0]
    assert [r[1] for r in lead.rows] == ["beta", "alpha", "gamma"]
    assert [r[0] for r in lead.rows] == [1, 2, 3]
    assert lead.column("Units") == [3, 3, 3]  # how many units back each model's means
    fewer = [r for r in rows if not (r["model"] == "gamma" and r["unit"] == "u0")]
    lead = analyze(fewer, "likert", AnalysisOptions(tau=4.5)).section("leaderboard").tables[0]
    assert _row(lead, "gamma")["Units"] == 2


def test_online_elo_per_criterion_in_the_given_battle_order() -> None:
    from core.analysis.online import positions
    from core.stats.online_elo import online_elo_ratings
    from core.stats.votes import encode_votes

    rows = data.votes(300, criteria=("preference", "coherence"), seed=5)
    order = np.arange(len(rows))[::-1]  # the last row was the first battle
    opt = AnalysisOptions(n_boot=50, ci=0.9, seed=1, online_elo=True, online_k=8.0)
    res = analyze(rows, "votes", opt, order=order, ordered_by="tstamp")
    lead = res.section("leaderboard")
    table = next(t for t in lead.tables if t.key == "online-elo")
    assert table.columns == ["Criterion", "Rank", "Model", "Elo", "CI low", "CI high"]
    for crit in ("coherence", "preference"):
        sub = [r for r in rows if r["criterion"] == crit]
        votes = encode_votes([r["a"] for r in sub], [r["b"] for r in sub],
                             [r["winner"] for r in sub])
        ref = online_elo_ratings(votes, np.arange(len(sub))[::-1], n_boot=50, ci=0.9, k=8.0,
                                 seed=1).ratings_dict()
        got = {r[2]: r[3:] for r in table.rows if r[0] == crit}
        assert list(got) == list(ref)
        for m, (elo, lo, hi) in got.items():
            assert (elo, lo, hi) == pytest.approx((ref[m]["elo"], ref[m]["lo"], ref[m]["hi"]))
    assert [p.title for p in lead.charts[-1].panels] == ["coherence", "preference"]
    assert "time order (tstamp)" in table.note
    without = analyze(rows, "votes", AnalysisOptions(n_boot=0))
    assert [t.key for t in without.section("leaderboard").tables] == ["leaderboard"]
    likert = analyze(data.likert(8, 3), "likert", AnalysisOptions(n_boot=0, online_elo=True))
    assert all(t.key != "online-elo" for t in likert.section("leaderboard").tables)
    with pytest.raises(ValueError, match="each of the 3 votes once"):
        positions([0, 0, 1], 3)
    with pytest.raises(ValueError, match="K of the online Elo"):
        analyze(rows, "votes", AnalysisOptions(online_elo=True, online_k=0.0))


def test_the_online_elo_bootstrap_can_be_cancelled() -> None:
    from core.jobs import Cancelled, JobState
    from core.stats.online_elo import online_elo_ratings
    from core.stats.votes import encode_votes

    rows = data.votes(3000, criteria=("preference",), seed=2)
    votes = encode_votes([r["a"] for r in rows], [r["b"] for r in rows],
                         [r["winner"] for r in rows])
    calls = []
    online_elo_ratings(votes, n_boot=1000, seed=0, check=lambda: calls.append(1))
    assert len(calls) == 3  # one check per 1,000 battles of 1,000 replays

    def checks(online: bool) -> int:
        state, seen = JobState(title="Analyze"), []
        state.check = lambda: seen.append(1)  # type: ignore[method-assign]  # count calls
        analyze(rows, "votes", AnalysisOptions(n_boot=1000, online_elo=online), state=state)
        return len(seen)

    assert checks(True) - checks(False) == 3  # Analyze's job can stop the replays
    state = JobState(title="Analyze")
    state.cancel()
    with pytest.raises(Cancelled):
        online_elo_ratings(votes, n_boot=10, seed=0, check=state.check)


def test_a_table_of_vote_counts_has_no_online_elo(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from core.analysis.datafiles import open_data_file
    from core.analysis.online import NO_ORDER

    path = tmp_path / "counts.csv"
    path.write_text("model_a,model_b,wins_a,wins_b,ties\nx,y,30,20,5\ny,z,25,25,0\n"
                    "x,z,40,10,2\n", encoding="utf-8")
    ds = open_data_file(path)
    assert ds.kind == "votes" and ds.meta["ordered_by"] == NO_ORDER
    res = analyze(ds.load(None), "votes", AnalysisOptions(n_boot=0, online_elo=True),
                  order=ds.meta["order"], ordered_by=ds.meta["ordered_by"])
    lead = res.section("leaderboard")
    assert [t.key for t in lead.tables] == ["leaderboard"]  # as the command, no replay
    assert any("table of vote counts" in line for line in lead.summary)


def test_online_elo_after_the_rater_filter_keeps_the_battle_order() -> None:
    from core.analysis.agreement import filter_for, rater_data
    from core.stats.online_elo import online_elo_ratings
    from core.stats.votes import encode_votes

    rows = data.votes(400, seed=9, raters=5)
    rows[3]["rater"] = rows[7]["rater"] = "contrarian"  # a rater the others disagree with
    for r in rows:
        if r["rater"] == "contrarian":
            r["winner"] = {"a": "b", "b": "a", "tie": "tie"}[r["winner"]]
    order = np.random.default_rng(1).permutation(len(rows))
    opt = AnalysisOptions(n_boot=20, seed=4, online_elo=True, rater_filter=True, threshold=0.3)
    res = analyze(rows, "votes", opt, order=order, ordered_by="tstamp")
    kept = set(filter_for(rater_data(rows, "votes", True), 0.3).kept_raters)
    keep = [i for i, r in enumerate(rows) if r["rater"] in kept]
    assert 0 < len(keep) < len(rows)  # the filter dropped someone
    place = np.empty(len(rows), dtype=int)
    place[order] = np.arange(len(rows))
    sub = [rows[i] for i in keep]
    votes = encode_votes([r["a"] for r in sub], [r["b"] for r in sub], [r["winner"] for r in sub])
    ref = online_elo_ratings(votes, np.argsort(place[keep], kind="stable"), n_boot=20,
                             seed=4).ratings_dict()
    table = next(t for t in res.section("leaderboard").tables if t.key == "online-elo")
    got = {r[-4]: r[-3:] for r in table.rows}
    assert list(got) == list(ref)
    for m, v in ref.items():
        assert got[m] == pytest.approx([v["elo"], v["lo"], v["hi"]])
