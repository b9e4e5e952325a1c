"""Session design: seeded, reproducible randomization; overlap; gold; validation."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

import pytest
from rating_helpers import MODELS, SAMPLES

from core.rating.design import SessionDesign, gold_correct
from core.rating.integrity import plan_key, stored_secret
from core.rating.planning import plan_session
from core.rating.sessions import create_session, get_session, load_catalog


def _design(**kw) -> SessionDesign:  # type: ignore[no-untyped-def]
    args = {"name": "d", "protocol": "side_by_side", "sample_ids": SAMPLES, "models": MODELS,
            "raters": 3, "overlap": 2, "seed": 11, "criteria": ("preference", "coherence")}
    args.update(kw)
    return SessionDesign(**args)


def _signature(plan) -> list:  # type: ignore[no-untyped-def]
    return [(t.slot, t.position, t.sample_id, t.unit, t.criterion,
             [(o.token, o.model, o.degraded) for o in t.options], t.gold) for t in plan.tasks]


def test_same_seed_same_plan_other_seed_other_order(rproject) -> None:  # type: ignore[no-untyped-def]
    catalog = load_catalog(rproject, SAMPLES, MODELS)
    a = plan_session(_design(gold_rate=0.2), catalog)
    b = plan_session(_design(gold_rate=0.2), catalog)
    c = plan_session(_design(gold_rate=0.2, seed=12), catalog)
    assert _signature(a) == _signature(b)
    assert _signature(a) != _signature(c)
    # the randomization is real: orders and left/right differ between raters and seeds
    lefts = Counter(t.options[0].model for t in a.tasks if t.gold is None)
    assert len(lefts) == len(MODELS)
    assert [t.unit for t in a.for_slot(0)] != sorted(t.unit for t in a.for_slot(0))


def test_plan_recorded_in_project_is_reproducible_from_stored_design(rproject) -> None:  # type: ignore[no-untyped-def]
    design = _design(protocol="ranking", gold_rate=0.25)
    create_session(rproject, design)
    session = get_session(rproject, "d")
    stored_design = session.design
    assert stored_design == design
    secret = stored_secret(rproject.conn, session.id)
    assert secret is not None and len(secret) == 32
    replanned = plan_session(stored_design, load_catalog(rproject, SAMPLES, MODELS),
                             plan_key(secret))
    stored = rproject.conn.execute(
        "SELECT slot, position, task_id, sample_id, unit, gold FROM rating_tasks "
        "WHERE session_id = ? ORDER BY slot, position", (session.id,)).fetchall()
    expected = [(f"R{t.slot + 1}", t.position, t.task_id, t.sample_id, t.unit,
                 None if t.gold is None else json.dumps(t.gold, sort_keys=True))
                for t in sorted(replanned.tasks, key=lambda t: (t.slot, t.position))]
    assert stored == expected
    options = rproject.conn.execute(
        "SELECT task_id, position, token, model FROM rating_blinding WHERE session_id = ?",
        (session.id,)).fetchall()
    assert sorted(options) == sorted((t.task_id, k, o.token, o.model) for t in replanned.tasks
                                     for k, o in enumerate(t.options))


def test_the_seed_alone_does_not_replay_the_plan(rproject) -> None:  # type: ignore[no-untyped-def]
    """A rater who knows the seed (0 by default) and Winnow's code replays plan_session
    without the project's secret: no token, task order or option order of the real plan
    comes out of it (they used to: tokens and shuffles came from the seed alone)."""
    design = _design(protocol="ranking", gold_rate=0.25, seed=0)
    create_session(rproject, design)
    session = get_session(rproject, "d")
    catalog = load_catalog(rproject, SAMPLES, MODELS)
    guess = plan_session(design, catalog)
    real = rproject.conn.execute("SELECT token FROM rating_blinding WHERE session_id = ?",
                                 (session.id,)).fetchall()
    real_tasks = {r[0] for r in rproject.conn.execute(
        "SELECT task_id FROM rating_tasks WHERE session_id = ?", (session.id,))}
    assert not {o.token for t in guess.tasks for o in t.options} & {r[0] for r in real}
    assert not {t.task_id for t in guess.tasks} & real_tasks
    # what a replay would reveal: the model behind each displayed option (position)
    shown = {(r[0], r[1]): r[2] for r in rproject.conn.execute(
        "SELECT t.sample_id, b.position, b.model FROM rating_blinding b JOIN rating_tasks t "
        "ON t.session_id = b.session_id AND t.task_id = b.task_id WHERE b.session_id = ? "
        "AND t.gold IS NULL AND t.slot = 'R1'", (session.id,))}
    guessed = {(t.sample_id, k): o.model for t in guess.for_slot(0) if t.gold is None
               for k, o in enumerate(t.options)}
    agree = sum(guessed.get(key) == model for key, model in shown.items())
    assert agree < 0.75 * len(shown)  # chance is 1/4 per option; a replay gave all of them
    # tokens are unique and look alike whatever they stand for
    tokens = [r[0] for r in real]
    assert len(set(tokens)) == len(tokens)
    assert all(len(t) == 13 and t[0] == "o" and int(t[1:], 16) >= 0 for t in tokens)


def test_overlap_gives_each_unit_to_distinct_raters_with_balanced_load(rproject) -> None:  # type: ignore[no-untyped-def]
    plan = plan_session(_design(), load_catalog(rproject, SAMPLES, MODELS))
    units = Counter()
    raters_of: dict[str, set[int]] = {}
    for t in plan.tasks:
        units[t.unit] += 1
        raters_of.setdefault(t.unit, set()).add(t.slot)
    n_pairs = len(MODELS) * (len(MODELS) - 1) // 2
    assert len(units) == len(SAMPLES) * n_pairs * 2  # two criteria
    assert all(n == 2 for n in units.values())
    assert all(len(r) == 2 for r in raters_of.values())
    loads = Counter(t.slot for t in plan.tasks)
    assert max(loads.values()) - min(loads.values()) <= 1


def test_tasks_per_rater_caps_and_gold_rate_mixes_in(rproject) -> None:  # type: ignore[no-untyped-def]
    plan = plan_session(_design(tasks_per_rater=10, overlap=1, gold_rate=0.2),
                        load_catalog(rproject, SAMPLES, MODELS))
    for slot in range(3):
        tasks = plan.for_slot(slot)
        gold = [t for t in tasks if t.gold is not None]
        assert len(tasks) - len(gold) == 10
        assert len(gold) == round(10 * 0.2 / 0.8)
        assert [t.position for t in tasks] == list(range(len(tasks)))
        for t in gold:  # an output against its own degraded copy, side recorded
            assert {o.degraded for o in t.options} == {True, False}
            assert len({o.sha256 for o in t.options}) == 1
            good_side = "left" if not t.options[0].degraded else "right"
            assert t.gold == {"winner": good_side}


@pytest.mark.parametrize("protocol", ["ranking", "likert", "checklist"])
def test_auto_gold_for_other_protocols_uses_a_degraded_output(rproject, protocol) -> None:  # type: ignore[no-untyped-def]
    plan = plan_session(_design(protocol=protocol, overlap=1, gold_rate=0.3),
                        load_catalog(rproject, SAMPLES, MODELS))
    gold = [t for t in plan.tasks if t.gold is not None]
    assert gold
    for t in gold:
        assert sum(o.degraded for o in t.options) == 1
        if protocol == "ranking":
            normal = len(MODELS)
            assert len(t.options) == normal  # looks like any other task
            assert t.gold == {"last": next(o.token for o in t.options if o.degraded)}


def test_marked_gold_uses_the_designers_known_answers(rproject) -> None:  # type: ignore[no-untyped-def]
    items = ({"sample": "s001", "better": "lumen-edit", "worse": "pixelforge"},)
    plan = plan_session(_design(gold_mode="marked", gold_items=items, gold_rate=0.1,
                                overlap=1), load_catalog(rproject, SAMPLES, MODELS))
    gold = [t for t in plan.tasks if t.gold is not None]
    assert gold and all(t.sample_id == "s001" for t in gold)
    for t in gold:
        side = "left" if t.options[0].model == "lumen-edit" else "right"
        assert t.gold == {"winner": side}
        assert not any(o.degraded for o in t.options)


def test_gold_correct_rules() -> None:
    assert gold_correct("side_by_side", {"winner": "left"}, {"winner": "left"}, None)
    assert not gold_correct("side_by_side", {"winner": "left"}, {"winner": "tie"}, None)
    last = {"last": "x"}
    assert gold_correct("ranking", last, {"ranks": {"a": 1, "b": 2, "x": 3}}, None)
    assert not gold_correct("ranking", last, {"ranks": {"a": 1, "b": 3, "x": 3}}, None)
    assert not gold_correct("ranking", last, {}, "impossible")
    assert gold_correct("ranking", {"better": "a", "worse": "b"}, {"ranks": {"a": 1, "b": 2}},
                        None)
    assert gold_correct("likert", {"max": {"VQ": 2}}, {"IF": 5, "IC": 5, "VQ": 1}, None)
    assert not gold_correct("likert", {"max": {"VQ": 2}}, {"IF": 5, "IC": 5, "VQ": 3}, None)
    assert gold_correct("checklist", {"no": ["q6"]}, {"q6": 0}, None)
    assert not gold_correct("checklist", {"no": ["q6"]}, {"q6": 1}, None)


@pytest.mark.parametrize(("change", "message"), [
    ({"name": " "}, "needs a name"),
    ({"protocol": "vote"}, "unknown protocol"),
    ({"models": ("aurora-xl",)}, "at least 2"),
    # ranks are typed 1–9: a tenth output could only be dragged, an eleventh crashed
    # the rater view (it has ten tile letters)
    ({"protocol": "ranking", "models": tuple(f"m{k}" for k in range(10))},
     "a ranking shows at most 9 models .* not 10"),
    ({"overlap": 4}, "raters per task"),
    ({"gold_rate": 0.7}, "gold rate"),
    ({"criteria": ("beauty",)}, "unknown criterion"),
    ({"gold_mode": "marked", "gold_rate": 0.1}, "known answers"),
    # `winnow session create --raters 1000000000` ran for ever; --min-time / --penalty
    # nan or 1e309 were written into the rater files, where round(penalty * 1000)
    # crashed the rater's window (the designer's dialog allows 0–600 s and 0–120 s)
    ({"raters": 1_000_000_000}, "at most 1,000 raters"),
    ({"min_time_s": float("nan")}, "minimum time .* from 0 to 600"),
    ({"min_time_s": float("inf")}, "minimum time .* from 0 to 600"),
    ({"min_time_s": 601.0}, "minimum time .* from 0 to 600"),
    ({"penalty_s": float("nan")}, "penalty .* from 0 to 120"),
    ({"penalty_s": 1e300}, "penalty .* from 0 to 120"),
])
def test_bad_designs_are_refused_with_a_clear_message(change, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        replace(_design(), **change).validate()


def test_no_outputs_is_a_clear_error(rproject) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="import model outputs"):
        plan_session(_design(models=("nope-1", "nope-2")),
                     load_catalog(rproject, SAMPLES, ("nope-1", "nope-2")))


def test_duplicate_session_name_refused(rproject) -> None:  # type: ignore[no-untyped-def]
    create_session(rproject, _design())
    with pytest.raises(ValueError, match="already exists"):
        create_session(rproject, _design())


_MARKED = {
    "side_by_side": ({"sample": "s001", "better": "lumen-edit", "worse": "pixelforge"},
                     {"sample": "s002", "better": "aurora-xl", "worse": "brushwork-2",
                      "criterion": "coherence"}),
    "ranking": ({"sample": "s001", "better": "lumen-edit", "worse": "pixelforge"},
                {"sample": "s003", "better": "aurora-xl", "worse": "brushwork-2"}),
    "likert": ({"sample": "s001", "model": "lumen-edit", "criterion": "VQ", "max": 2},
               {"sample": "s004", "model": "aurora-xl", "criterion": "IF", "min": 4}),
    "checklist": ({"sample": "s001", "model": "lumen-edit", "question": 6, "value": 0},
                  {"sample": "s005", "model": "pixelforge", "question": 2, "value": 1}),
}


def _seen_as(protocol: str, task) -> tuple:  # type: ignore[no-untyped-def,type-arg]
    """What a rater recognises a task by: a ranking by its sample (prompt), any other task
    by its images and criterion."""
    if protocol == "ranking":
        return (task.sample_id,)
    return (task.criterion, frozenset((o.sha256, o.degraded) for o in task.options))


@pytest.mark.parametrize("protocol", sorted(_MARKED))
def test_no_rater_sees_a_marked_gold_task_twice(rproject, protocol) -> None:  # type: ignore[no-untyped-def]
    """Marked gold shows real outputs, so it must look like any other task: a rater who
    is shown the same images (or, in a ranking, the same prompt) twice knows one of the
    two is gold, from the file alone (two equal image digests).  Each known answer is
    used at most once per rater and never beside that rater's real task on the same unit;
    fewer gold tasks are planned rather than a repeat."""
    design = _design(protocol=protocol, gold_mode="marked", gold_items=_MARKED[protocol],
                     gold_rate=0.3, criteria=("preference", "coherence"))
    plan = plan_session(design, load_catalog(rproject, SAMPLES, MODELS))
    total_gold = 0
    for slot in range(design.raters):
        tasks = plan.for_slot(slot)
        seen = Counter(_seen_as(protocol, t) for t in tasks)
        assert [k for k, n in seen.items() if n > 1] == [], f"R{slot + 1}"
        total_gold += sum(t.gold is not None for t in tasks)
    assert total_gold > 0
