"""Gold tasks a rater cannot find in their own file (ADR 191).

An automatic gold task shows a degraded copy of an output.  It used to be drawn from any
sample: in a ranking where every rater ranks every sample (the demo's) each gold task
showed a prompt the rater had ranked already, and in Likert and checklist sessions the
degraded copy was, in most files, of an output the same rater also rated in the clear —
the blurred twin of an image seen before is a gold task.  Now gold shows what its raters
see nowhere else; where they see everything, it takes the place of one of their real
units.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from rating_helpers import MODELS, SAMPLES, make_session

from core.rating.design import GOLD_UNIT, SessionDesign
from core.rating.planning import plan_session
from core.rating.sessions import load_catalog

DESIGNS = [  # (raters, overlap, tasks per rater)
    (3, 3, None), (1, 1, None), (2, 1, None), (3, 2, None), (4, 2, 3)]


def _shows(protocol: str, task) -> set:  # type: ignore[no-untyped-def]
    """What of a task a rater recognises elsewhere: its prompt in a ranking, its output
    (sample and model, the degraded copy's source included) in Likert and checklist."""
    if protocol == "ranking":
        return {task.sample_id}
    return {(task.sample_id, o.model) for o in task.options}


@pytest.mark.parametrize("protocol", ["ranking", "likert", "checklist"])
@pytest.mark.parametrize("raters,overlap,cap", DESIGNS)
def test_gold_shows_nothing_its_rater_sees_in_another_task(
        rproject, protocol, raters, overlap, cap) -> None:  # type: ignore[no-untyped-def]
    catalog = load_catalog(rproject, SAMPLES, MODELS)
    for seed in range(8):
        design = SessionDesign(name="w", protocol=protocol, sample_ids=SAMPLES,
                               models=MODELS, raters=raters, overlap=overlap, seed=seed,
                               gold_rate=0.25, tasks_per_rater=cap)
        plan = plan_session(design, catalog)
        slots_of: dict[str, set[int]] = {}
        for t in plan.tasks:
            slots_of.setdefault(t.unit, set()).add(t.slot)
        for slot in range(raters):
            tasks = plan.for_slot(slot)
            gold = [t for t in tasks if t.gold is not None]
            real = [t for t in tasks if t.gold is None]
            assert gold and real, (seed, slot)
            assert len(gold) == pytest.approx(0.25 * len(tasks), abs=1.5), (seed, slot)
            seen = Counter(x for t in tasks for x in _shows(protocol, t))
            for g in gold:
                assert all(seen[x] == 1 for x in _shows(protocol, g)), (seed, slot, g)
                assert len(slots_of[g.unit]) == overlap  # in as many files as a real unit
        assert all(u.startswith(GOLD_UNIT) for t in plan.tasks if t.gold is not None
                   for u in [t.unit])


def test_where_every_rater_ranks_every_sample_gold_takes_a_samples_place(
        rproject) -> None:  # type: ignore[no-untyped-def]
    design = SessionDesign(name="all", protocol="ranking", sample_ids=SAMPLES, models=MODELS,
                           raters=3, overlap=3, seed=1, gold_rate=0.2)
    plan = plan_session(design, load_catalog(rproject, SAMPLES, MODELS))
    real = {t.sample_id for t in plan.tasks if t.gold is None}
    gold = {t.sample_id for t in plan.tasks if t.gold is not None}
    assert gold and real and not real & gold and real | gold == set(SAMPLES)
    assert plan.units_used == len(real) < plan.units_total == len(SAMPLES)
    for slot in range(3):
        tasks = plan.for_slot(slot)
        assert sorted(t.sample_id for t in tasks) == sorted(SAMPLES)  # each prompt once
        # the gold task shows every model once, one as a degraded copy: as many images
        # as a real task
        assert {len(t.options) for t in tasks} == {len(MODELS)}


def _file_view(path: Path) -> list[tuple[str, list[str]]]:
    """(prompt, image digests) of every task of a rater file, as the rater reads them."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return [(prompt, [sha for _tok, sha in json.loads(opts)])
                for prompt, opts in conn.execute("SELECT prompt, options FROM tasks")]
    finally:
        conn.close()


def test_written_files_show_each_prompt_once_and_no_output_next_to_its_copy(
        rproject, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The files as written: a ranking file names each prompt once; in a Likert file
    no degraded copy's source output is also shown (checked through the project's
    blinding record, which the rater does not have)."""
    ranking = make_session(rproject, tmp_path / "r", "ranking", raters=2, overlap=2,
                           gold_rate=0.25)
    for path in ranking:
        prompts = Counter(prompt for prompt, _shas in _file_view(path))
        assert max(prompts.values()) == 1, path.name
    likert = make_session(rproject, tmp_path / "l", "likert", raters=2, overlap=2,
                          gold_rate=0.25)
    rows = rproject.conn.execute(
        "SELECT f.path, b.source_sha256, b.degraded FROM rating_blinding b "
        "JOIN rating_tasks t ON t.session_id = b.session_id AND t.task_id = b.task_id "
        "JOIN rating_files f ON f.session_id = t.session_id AND f.slot = t.slot "
        "JOIN rating_sessions s ON s.id = b.session_id WHERE s.name = 'likert'").fetchall()
    assert {Path(p).name for p, _s, _d in rows} == {p.name for p in likert}
    for path in likert:
        mine = [(src, deg) for p, src, deg in rows if Path(p).name == path.name]
        copied = {src for src, deg in mine if deg}
        assert copied and not copied & {src for src, deg in mine if not deg}, path.name
