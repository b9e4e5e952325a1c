"""Gold plans under attack: designs that ADR 191's tests did not try.

- A ranking gold unit on a sample that other raters rank for real puts that prompt, and
  every output but the copied one, in twice as many files as a real unit's: two files,
  one of each, show one prompt with two image sets, which a real unit never does.
- A real unit replaced by gold gives gold to all its raters; given to raters who had
  their share already, again and again, a rater asked for 1 % gold got 3 gold tasks
  beside 1 real one.
- A sample selected twice was planned as two units of the same key: one prompt twice in
  a ranking file, one pair twice in a side-by-side file.
- With a model listed twice, a sample with one of the models' outputs counted as having
  two: a ranking gold unit on it showed its degraded copy alone.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from rating_helpers import make_session

from core.rating.design import Catalog, SampleInfo, SessionDesign
from core.rating.gold_plan import gold_count
from core.rating.planning import plan_session


def _catalog(n: int, models: tuple[str, ...] = ("a", "b", "c", "d")) -> Catalog:
    """``n`` samples s000… with an output of every model (digests made up)."""
    samples = {}
    for k in range(n):
        sid = f"s{k:03d}"
        outputs = {m: hashlib.sha256(f"{sid}/{m}".encode()).hexdigest() for m in models}
        samples[sid] = SampleInfo(sid, f"prompt {k}", None, (), outputs)
    return Catalog(samples)


def _design(protocol: str, n: int, **kw) -> SessionDesign:  # type: ignore[no-untyped-def]
    return SessionDesign(name="x", protocol=protocol,
                         sample_ids=tuple(f"s{k:03d}" for k in range(n)),
                         models=("a", "b", "c", "d"), **kw)


@pytest.mark.parametrize("raters,overlap", [(4, 2), (6, 3), (3, 1)])
def test_a_ranking_sample_is_shown_by_one_unit_only_where_a_real_unit_can_make_way(
        raters: int, overlap: int) -> None:
    """Every sample ranked for real by someone, each rater ranking several: gold takes a
    real unit's place rather than show a sample that other raters rank for real."""
    for seed in range(10):
        design = _design("ranking", 6, raters=raters, overlap=overlap, gold_rate=0.25,
                         seed=seed)
        plan = plan_session(design, _catalog(6), b"key")
        assert any(t.gold is not None for t in plan.tasks)
        units_of: dict[str, set[str]] = defaultdict(set)
        for t in plan.tasks:
            units_of[t.sample_id].add(t.unit)
        assert all(len(u) == 1 for u in units_of.values()), (seed, dict(units_of))


def test_in_written_ranking_files_every_image_is_in_as_many_files(
        rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """What two raters comparing files see: every prompt and every image of the session
    in exactly ``overlap`` files, gold or not."""
    files = make_session(rproject, tmp_path, "ranking", raters=4, overlap=2,
                         gold_rate=0.25, seed=1)
    prompts: Counter[str] = Counter()
    images: Counter[str] = Counter()
    for path in files:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
        try:
            prompts.update({p for (p,) in conn.execute("SELECT prompt FROM tasks")})
            images.update({s for (s,) in conn.execute("SELECT sha256 FROM images")})
        finally:
            conn.close()
    assert set(prompts.values()) == {2}
    assert set(images.values()) == {2}


@pytest.mark.parametrize("protocol,n,raters,overlap,rate", [
    ("ranking", 6, 5, 3, 0.01), ("ranking", 6, 3, 2, 0.5), ("ranking", 6, 5, 2, 0.5),
    ("likert", 6, 5, 3, 0.1), ("likert", 3, 5, 3, 0.5), ("checklist", 6, 5, 3, 0.25)])
def test_no_rater_gets_more_than_one_gold_task_over_the_rate(
        protocol: str, n: int, raters: int, overlap: int, rate: float) -> None:
    for seed in range(6):
        design = _design(protocol, n, raters=raters, overlap=overlap, gold_rate=rate,
                         seed=seed)
        plan = plan_session(design, _catalog(n), b"key")
        for slot in range(raters):
            tasks = plan.for_slot(slot)
            gold = sum(t.gold is not None for t in tasks)
            real = len(tasks) - gold
            assert real >= 1 and gold <= gold_count(real, design) + 1, (seed, slot, real,
                                                                        gold)


@pytest.mark.parametrize("protocol", ["ranking", "likert", "checklist", "side_by_side"])
def test_a_sample_selected_twice_is_planned_once(protocol: str) -> None:
    design = SessionDesign(name="x", protocol=protocol,
                           sample_ids=("s000", "s001", "s000", "s002", "s001"),
                           models=("a", "b", "c", "a"), raters=2, overlap=2,
                           gold_rate=0.25, seed=3)
    plan = plan_session(design, _catalog(3), b"key")
    once = plan_session(design.__class__(**{**design.__dict__,
                                            "sample_ids": ("s000", "s001", "s002")}),
                        _catalog(3), b"key")
    assert plan.units_total == once.units_total
    for slot in range(2):
        units = Counter(t.unit for t in plan.for_slot(slot))
        assert max(units.values()) == 1, units


def test_a_model_listed_twice_does_not_make_a_ranking_of_one_image() -> None:
    """s001 has no output of b: with a listed twice it counted as two models, and a gold
    unit on it ranked its degraded copy alone."""
    catalog = _catalog(3, ("a", "b"))
    outputs = dict(catalog.samples["s001"].outputs)
    del outputs["b"]
    catalog.samples["s001"] = SampleInfo("s001", "prompt 1", None, (), outputs)
    for seed in range(10):
        design = SessionDesign(name="x", protocol="ranking",
                               sample_ids=("s000", "s001", "s002"), models=("a", "b", "a"),
                               raters=2, overlap=1, gold_rate=0.25, seed=seed)
        plan = plan_session(design, catalog, b"key")
        assert min(len(t.options) for t in plan.tasks) >= 2, seed
        assert "s001" not in {t.sample_id for t in plan.tasks}


def test_a_session_where_every_rater_rates_every_output_is_planned_in_seconds() -> None:
    """400 Likert outputs, 30 raters each rating all of them (12,000 tasks): each gold
    unit looked up every unit's raters through every rater's list, for minutes (over 100
    s; 0.5 s before ADR 191), with no progress shown."""
    design = _design("likert", 100, raters=30, overlap=30, gold_rate=0.25)
    started = time.perf_counter()
    plan = plan_session(design, _catalog(100), b"key")
    assert time.perf_counter() - started < 30
    assert plan.units_used < plan.units_total == 400  # gold took real units' places
