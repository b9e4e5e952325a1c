"""Agreement on the shared samples (ADR 134): α against the ``krippendorff`` package,
Cohen's κ against hand-computed values, box IoU and prompt distances by hand."""

from __future__ import annotations

import random
from pathlib import Path

import krippendorff
import numpy as np
import pytest

from core.curate.commands import SetField
from core.curate.image_edits import add_box, set_image_role
from core.stats.cohen_kappa import KappaUndefinedError, cohen_kappa
from core.teamwork.agreement import agreement, box_agreement, prompt_distance, splits
from core.teamwork.merge import merge_packages
from core.teamwork.split import split_project
from tests.teamwork.team_helpers import Curator, make_project, package_path, split

QUALITIES = ("Benchmark", "Analysis", "Trash", None)


def _ref_alpha(rows: list[list[object]]) -> float:
    codes = {v: i for i, v in enumerate(sorted({str(v) for r in rows for v in r
                                                if v is not np.nan}))}
    data = np.array([[np.nan if v is np.nan else codes[str(v)] for v in r] for r in rows],
                    dtype=float)
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def test_cohen_kappa_by_hand() -> None:
    # p_o = 3/5, p_e = (2·2 + 2·1 + 1·2)/25 = 8/25, κ = (15/25 − 8/25)/(17/25) = 7/17
    a = ["B", "B", "T", "A", "T"]
    b = ["A", "B", "B", "A", "T"]
    assert cohen_kappa(a, b) == pytest.approx(7 / 17)
    assert cohen_kappa(a, a) == pytest.approx(1.0)
    # Cohen (1960)'s worked example: 2×2 with 40/10/20/30 → p_o .7, p_e .5, κ .4
    x = ["y"] * 50 + ["n"] * 50
    y = ["y"] * 40 + ["n"] * 10 + ["y"] * 20 + ["n"] * 30
    assert cohen_kappa(x, y) == pytest.approx(0.4)
    with pytest.raises(KappaUndefinedError):
        cohen_kappa(["a", "a"], ["a", "a"])
    with pytest.raises(KappaUndefinedError):
        cohen_kappa([], [])


def test_box_iou_and_prompt_distance_by_hand() -> None:
    # (5,5,30,30) vs (10,10,30,30): 25·25 / (900 + 900 − 625)
    one = [("img", "output", (5, 5, 30, 30))]
    two = [("img", "output", (10, 10, 30, 30))]
    assert box_agreement(one, two) == pytest.approx(625 / 1175)
    assert box_agreement(one, one) == 1.0
    assert box_agreement(one, []) == 0.0  # a box without a partner counts 0
    assert box_agreement([], []) is None
    assert box_agreement(one, [("img", "input", (5, 5, 30, 30))]) == 0.0  # other role
    # matching "abcd" / "abce": 3 matching characters of 8 → ratio 6/8
    assert prompt_distance("abcd", "abce") == pytest.approx(0.25)
    assert prompt_distance("same", "same") == 0.0


def test_two_curators_agreement_matches_the_references(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    report = split(project, tmp_path / "out")
    with Curator(package_path(report, "Alice")) as c:   # [B, B, T, A, T]
        c.label("s2", "Benchmark")
        c.label("s3", "Trash")
        c.prompt("s4", "a zebra-striped unicorn")
        shot = c.project.conn.execute("SELECT sha256 FROM sample_images WHERE "
                                      "sample_id = 's2' LIMIT 1").fetchone()[0]
        c.run(add_box("s2", shot, None, "output", (5, 5, 30, 30), (240, 160)))
    with Curator(package_path(report, "Bob")) as c:     # [A, B, B, A, T]
        c.label("s1", "Analysis")
        c.label("s2", "Benchmark")
        rid = c.project.conn.execute("SELECT id FROM sample_images WHERE sample_id = 's1' "
                                     "AND role = 'output'").fetchone()[0]
        c.run(set_image_role("s1", "unused", row_id=rid))
        shot = c.project.conn.execute("SELECT sha256 FROM sample_images WHERE "
                                      "sample_id = 's2' LIMIT 1").fetchone()[0]
        c.run(add_box("s2", shot, None, "output", (10, 10, 30, 30), (240, 160)))
    _results, refused = merge_packages(project, [package_path(report, "Alice"),
                                                 package_path(report, "Bob")])
    assert refused == []
    assert splits(project) == [("test split", 2)]
    got = agreement(project, "test split")
    assert (got.overlap_samples, got.packages_merged, got.open_conflicts) == (5, 2, 1)
    quality = next(f for f in got.fields if f.field == "quality")
    a = ["Benchmark", "Benchmark", "Trash", "Analysis", "Trash"]
    b = ["Analysis", "Benchmark", "Benchmark", "Analysis", "Trash"]
    assert quality.units == 5
    assert quality.alpha == pytest.approx(_ref_alpha([a, b]))
    assert quality.percent == pytest.approx(3 / 5)
    assert quality.kappa[0]["kappa"] == pytest.approx(7 / 17)
    roles = next(f for f in got.fields if f.field == "roles")
    # units (sample, image): s1 in, s1 out, s3 can, s4 missing
    ra = ["input", "output", "output", "output"]
    rb = ["input", "unused", "output", "output"]
    assert roles.units == 4
    assert roles.alpha == pytest.approx(_ref_alpha([ra, rb]))
    assert got.boxes["pairs"] == 1
    assert got.boxes["mean_iou"] == pytest.approx((2 + 625 / 1175) / 3)
    assert got.prompts["edit_rate"] == {"Alice": 0.2, "Bob": 0.0}
    assert got.prompts["pairs_with_an_edit"] == 1
    assert got.prompts["mean_distance"] == pytest.approx(
        prompt_distance("a zebra-striped unicorn", "a unicorn with zebra stripes"))
    # against the adjudicated result: s1 Analysis (Bob's), s3 Trash (Alice's)
    per = {p["curator"]: p for p in got.per_curator}
    assert per["Alice"]["quality"] == pytest.approx(4 / 5)
    assert per["Bob"]["quality"] == pytest.approx(4 / 5)
    assert per["Alice"]["prompt"] == 1.0 and per["Bob"]["prompt"] == pytest.approx(4 / 5)


def test_three_curators_with_missing_values_match_krippendorff(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    SetField(["s1", "s2", "s3", "s4", "s5"], "quality", None).do(project)
    report = split_project(project, tmp_path / "out", ["Ann", "Ben", "Cy"], overlap=1.0,
                           seed=11, name="three")
    rng = random.Random(5)
    chosen: dict[str, dict[str, object]] = {}
    for entry in report.packages:
        with Curator(report.out / entry["file"]) as c:
            ids = [r[0] for r in c.project.conn.execute("SELECT id FROM samples ORDER BY id")]
            chosen[entry["curator"]] = {}
            for sid in ids:
                label = rng.choice(QUALITIES)
                chosen[entry["curator"]][sid] = label
                if label is not None:
                    c.label(sid, label)
    _results, refused = merge_packages(project, [report.out / p["file"]
                                                 for p in report.packages])
    assert refused == []
    got = agreement(project, "three")
    samples = sorted({s for by in chosen.values() for s in by})
    rows = [[str(chosen[c][s]) if s in chosen[c] else np.nan for s in samples]
            for c in ("Ann", "Ben", "Cy")]
    quality = next(f for f in got.fields if f.field == "quality")
    assert quality.units == 5
    assert quality.alpha == pytest.approx(_ref_alpha(rows))
    for pair in quality.kappa:
        both = [s for s in samples if s in chosen[pair["a"]] and s in chosen[pair["b"]]]
        assert pair["n"] == len(both)
        if pair["kappa"] is not None:
            assert pair["kappa"] == pytest.approx(cohen_kappa(
                [str(chosen[pair["a"]][s]) for s in both],
                [str(chosen[pair["b"]][s]) for s in both]))


def test_no_merge_yet_gives_no_numbers(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    split(project, tmp_path / "out")
    got = agreement(project, "test split")
    assert got.overlap_samples == 0 and got.fields[0].alpha is None
    assert got.fields[0].note
    with pytest.raises(KeyError):
        agreement(project, "nope")
