"""Gold tasks that raters comparing their files cannot find (ADR 184).

A real unit goes to ``overlap`` raters, and its images are the same bytes in each of
their files.  Gold copies used to be made per rater: a task whose image set appeared in
no other file of the session was gold, and its least-shared image the degraded copy —
every gold task of every protocol found, with no false alarm, by anyone holding two or
more files of a session (raters who swap files, one person given two slots, a shared
hand-out folder).  Now a gold unit is given to ``overlap`` raters too, with the same
bytes in each file.
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

PROTOCOLS = ("side_by_side", "ranking", "likert", "checklist")


def _file_tasks(path: Path) -> list[tuple[str, frozenset[str]]]:
    """(task id, the image digests it shows) of one rater file, read as a rater would."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return [(tid, frozenset(sha for _token, sha in json.loads(opts)))
                for tid, opts in conn.execute("SELECT task_id, options FROM tasks")]
    finally:
        conn.close()


def _gold_ids(project, name: str) -> set[str]:  # type: ignore[no-untyped-def]
    return {tid for (tid,) in project.conn.execute(
        "SELECT t.task_id FROM rating_tasks t JOIN rating_sessions s ON s.id = t.session_id "
        "WHERE s.name = ? AND t.gold IS NOT NULL", (name,))}


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_every_task_shows_its_images_in_as_many_files_gold_or_not(
        rproject, tmp_path, protocol) -> None:  # type: ignore[no-untyped-def]
    # a ranking shows each sample once per rater: its gold needs samples that enough
    # raters do not rank, as a session capped per rater has (see the test below)
    cap = {"tasks_per_rater": 2} if protocol == "ranking" else {}
    files = make_session(rproject, tmp_path, protocol, raters=3, overlap=2, gold_rate=0.2,
                         criteria=("preference",), **cap)
    per_file = [_file_tasks(path) for path in files]
    in_files = Counter(shas for tasks in per_file for shas in {s for _t, s in tasks})
    gold = _gold_ids(rproject, protocol)
    shown_gold = [tid for tasks in per_file for tid, _s in tasks if tid in gold]
    assert shown_gold, "the session has gold tasks"
    # the rule that found every gold task before: an image set in one file only
    lonely = {tid for tasks in per_file for tid, shas in tasks if in_files[shas] == 1}
    assert lonely & gold == set()
    for tasks in per_file:
        for tid, shas in tasks:
            assert in_files[shas] == 2, (tid, tid in gold)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_gold_unit_goes_to_overlap_raters_and_loads_stay_balanced(
        rproject, protocol) -> None:  # type: ignore[no-untyped-def]
    design = SessionDesign(name="g", protocol=protocol, sample_ids=SAMPLES, models=MODELS,
                           raters=4, overlap=2, seed=5, gold_rate=0.25)
    plan = plan_session(design, load_catalog(rproject, SAMPLES, MODELS))
    raters_of: dict[str, list[int]] = {}
    for t in plan.tasks:
        raters_of.setdefault(t.unit, []).append(t.slot)
    gold_units = {t.unit for t in plan.tasks if t.gold is not None}
    assert gold_units and all(u.startswith(GOLD_UNIT) for u in gold_units)
    for unit, slots in raters_of.items():
        assert len(slots) == len(set(slots)) == 2, unit  # no rater sees a unit twice
    for slot in range(4):
        tasks = plan.for_slot(slot)
        n_gold = sum(t.gold is not None for t in tasks)
        n_real = len(tasks) - n_gold
        wanted = round(n_real * 0.25 / 0.75)
        assert wanted <= n_gold <= wanted + 1, (slot, n_real, n_gold)
        if protocol == "ranking":  # each sample once per rater
            samples = Counter(t.sample_id for t in tasks)
            assert max(samples.values()) == 1, slot


def test_copies_of_a_gold_unit_differ_only_in_tokens_and_order(rproject) -> None:  # type: ignore[no-untyped-def]
    """The same output against the same degraded copy; each copy its own option tokens
    (tokens never repeat in a session) and its own left/right draw."""
    design = SessionDesign(name="g", protocol="side_by_side", sample_ids=SAMPLES,
                           models=MODELS, raters=3, overlap=3, seed=2, gold_rate=0.3)
    plan = plan_session(design, load_catalog(rproject, SAMPLES, MODELS))
    by_unit: dict[str, list] = {}  # type: ignore[type-arg]
    for t in plan.tasks:
        if t.gold is not None:
            by_unit.setdefault(t.unit, []).append(t)
    assert by_unit
    tokens = [o.token for t in plan.tasks for o in t.options]
    assert len(tokens) == len(set(tokens))
    for copies in by_unit.values():
        assert len(copies) == 3
        looks = {frozenset((o.model, o.sha256, o.degraded) for o in t.options) for t in copies}
        assert len(looks) == 1 and {t.sample_id for t in copies} == {copies[0].sample_id}


def test_a_known_answer_is_one_unit_and_not_also_a_real_task(rproject) -> None:  # type: ignore[no-untyped-def]
    """Marked gold shows real outputs: its images as a real unit too would be in more
    files than any real unit's, so its real unit is left out of the plan."""
    items = ({"sample": "s001", "better": "lumen-edit", "worse": "pixelforge",
              "criterion": "preference"},)
    design = SessionDesign(name="m", protocol="side_by_side", sample_ids=SAMPLES,
                           models=MODELS, raters=3, overlap=2, seed=4, gold_rate=0.2,
                           gold_mode="marked", gold_items=items, criteria=("preference",))
    plan = plan_session(design, load_catalog(rproject, SAMPLES, MODELS))
    gold = [t for t in plan.tasks if t.gold is not None]
    assert len(gold) == 2 and len({t.slot for t in gold}) == 2
    pair = {"lumen-edit", "pixelforge"}
    same_images = [t for t in plan.tasks if t.sample_id == "s001"
                   and {o.model for o in t.options} == pair]
    assert same_images == gold


def test_a_ranking_never_shows_a_sample_twice_even_when_gold_has_no_free_sample(
        rproject) -> None:  # type: ignore[no-untyped-def]
    """Every sample ranked by 2 of 3 raters leaves no sample that 2 raters do not rank:
    gold takes the place of a real unit, with its 2 raters (ADR 191), rather than show a
    rater one prompt twice, which the file alone tells, or go to one rater, which two
    files tell (ADR 184)."""
    design = SessionDesign(name="r", protocol="ranking", sample_ids=SAMPLES, models=MODELS,
                           raters=3, overlap=2, seed=7, gold_rate=0.2)
    plan = plan_session(design, load_catalog(rproject, SAMPLES, MODELS))
    assert any(t.gold is not None for t in plan.tasks)
    raters_of = Counter(t.unit for t in plan.tasks)
    assert all(n == 2 for n in raters_of.values())
    for slot in range(3):
        samples = Counter(t.sample_id for t in plan.for_slot(slot))
        assert max(samples.values()) == 1, slot
