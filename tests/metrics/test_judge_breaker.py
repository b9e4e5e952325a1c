"""A judge that keeps failing is no longer asked in that run (ADR 192).

Before, a dead endpoint cost every item its timeout times its attempts: 1,000 items at
2 minutes × 4 attempts over 4 connections is more than 33 hours of a run that could
only fail.  Now a client that fails ``BREAK_AFTER`` requests in a row stops sending;
the items still get an error each, one that says why.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from judge_server import JudgeServer
from metrics_helpers import gradient_image, pair, save

from core.jobs import JobState
from core.metrics import store
from core.metrics.base import MetricResult
from core.metrics.items import collect_items
from core.metrics.judge_client import BREAK_AFTER, JudgeClient, JudgeError
from core.metrics.registry import get
from core.metrics.runner import evaluate, run_metrics
from core.metrics.settings import JudgeEndpoint, MetricSettings
from core.selection import SampleFilter

N_ITEMS = 24
#: items a run works on at once: 2 × the judges' connections (judges.judge_items)
WINDOW = 2 * (2 + 2)


@pytest.fixture
def server():
    with JudgeServer() as srv:
        yield srv


def _judge(url: str, model: str, **kw) -> JudgeEndpoint:  # type: ignore[no-untyped-def]
    kw.setdefault("timeout", 0.3)
    kw.setdefault("backoff", 0.01)
    kw.setdefault("max_retries", 1)
    kw.setdefault("concurrency", 2)
    return JudgeEndpoint(url, model, api_key="sk-test", **kw)


@pytest.fixture
def items(tmp_path: Path):  # type: ignore[no-untyped-def]
    out = []
    for k in range(N_ITEMS):
        a = save(gradient_image(seed=2 * k + 1), tmp_path / f"in{k}.png")
        b = save(gradient_image(seed=2 * k + 2), tmp_path / f"out{k}.png")
        out.append(pair(a, b, prompt=f"make sky {k} pink"))
    return out


def _run(judges, items):  # type: ignore[no-untyped-def]
    return evaluate(get("judge_overall"), items, MetricSettings(judges=tuple(judges)))


@pytest.mark.parametrize(("model", "first_error"), [
    ("slow", "timed out"), ("nosuchmodel", "HTTP 404"), ("garbage", "not JSON")])
def test_a_judge_that_keeps_failing_is_not_asked_again(server, items, model,
                                                       first_error) -> None:
    results = _run([_judge(server.url, model)], items)
    assert [r.status for r in results] == ["error"] * N_ITEMS
    attempts = 1 if model == "nosuchmodel" else 2  # a 404 is not retried
    # at most the failures that break it and those already waiting for a connection
    assert server.calls[model] <= (BREAK_AFTER + 2) * attempts < N_ITEMS * attempts
    stopped = [r for r in results if "stopped asking it" in r.error]
    assert len(stopped) >= N_ITEMS - BREAK_AFTER - 2
    assert all(first_error in r.error and "failed 3 requests in a row" in r.error
               and server.url.rstrip("/") in r.error for r in stopped)
    assert sum(first_error in r.error for r in results) == N_ITEMS


def test_a_dead_judge_among_several_leaves_the_others_scoring(server, items) -> None:
    results = _run([_judge(server.url, "good:8"), _judge(server.url, "slow")], items)
    assert [r.status for r in results] == ["ok"] * N_ITEMS
    assert all(r.value == 8.0 for r in results)
    assert server.calls["good"] == N_ITEMS
    # those that broke it, and those that started before it broke: at most every item
    # of the run's window, each with its two attempts
    assert server.calls["slow"] <= WINDOW * 2 < N_ITEMS * 2
    assert "stopped asking it" in results[-1].details["errors"]["slow"]


def test_refusals_of_one_item_do_not_stop_a_judge(server, items) -> None:
    """HTTP 400 (this image refused by a content policy) and an answer without a score
    say nothing of the endpoint: every item is still sent."""
    for model in ("refuse", "noscore"):
        results = _run([_judge(server.url, model)], items)
        assert server.calls[model] == N_ITEMS
        assert not any("stopped asking" in r.error for r in results)


def test_a_success_between_failures_starts_the_count_again(server) -> None:
    message = [{"role": "user", "content": "x"}]

    async def go() -> list[str]:
        good = _judge(server.url, "good:5")
        out = []
        async with JudgeClient(good) as client:
            for k in range(3 * BREAK_AFTER):
                if k % BREAK_AFTER == BREAK_AFTER - 1:
                    out.append(await client.complete(message))
                    continue
                client.endpoint = _judge(server.url, "nosuchmodel")  # fails, not retried
                with pytest.raises(JudgeError, match="HTTP 404"):
                    await client.complete(message)
                client.endpoint = good
            assert client.broken is None
        return out

    assert len(asyncio.run(go())) == 3


@pytest.mark.parametrize("bad", [0, 5])
def test_the_repeats_of_one_item_count_as_one_failure(server, items, bad) -> None:
    """TECCI asks a judge the same question ``judge_repeats`` times: five failures of
    one item the server cannot process are that item's, not five of the endpoint's,
    so the items after it are still scored (before, the judge was dropped for the run)."""
    items[bad] = pair(Path(items[bad].inputs[0].path), Path(items[bad].output.path),
                      prompt="make sky poison pink")
    judge = _judge(server.url, "picky", concurrency=1)
    results = evaluate(get("judge_tecci"), items,
                       MetricSettings(judges=(judge,), judge_repeats=5))
    assert results[bad].status == "error" and "HTTP 500" in results[bad].error
    assert not any("stopped asking" in (r.error or "") for r in results)
    assert [r.status for k, r in enumerate(results) if k != bad] == ["ok"] * (N_ITEMS - 1)


def test_a_dead_judge_with_repeats_is_still_given_up_on(server, items) -> None:
    judge = _judge(server.url, "nosuchmodel")  # 404: not retried
    results = evaluate(get("judge_tecci"), items,
                       MetricSettings(judges=(judge,), judge_repeats=5))
    assert [r.status for r in results] == ["error"] * N_ITEMS
    # the items that broke it and those of the run's window (2 × 2 connections), 5 each
    assert server.calls["nosuchmodel"] <= (BREAK_AFTER + 4) * 5 < N_ITEMS * 5
    assert "failed 3 requests in a row" in results[-1].error


def test_items_a_judge_did_not_answer_are_computed_again(server, small_project) -> None:
    """With several judges, an item the others scored is stored with their mean, but the
    run after the dead judge is back asks again, as its message says: before, the
    one-judge mean was cached as the two-judge value for good."""
    project = small_project(6)
    items = collect_items(project, SampleFilter().sample_ids(project), ["tinted", "same"])
    settings = MetricSettings(judges=(_judge(server.url, "good:8"), _judge(server.url, "low:2")))
    metric = [get("judge_overall")]
    server.down.add("low")
    first = run_metrics(JobState(), project, metric, items, settings)
    assert first.computed == len(items) and first.errors == 0
    rows = store.load_results(project, metrics=["judge_overall"])
    assert all(r.value == 8.0 and "low:2" in r.details["errors"] for r in rows)
    assert any("computed again" in r.details["errors"]["low:2"] for r in rows)
    server.down.clear()
    again = run_metrics(JobState(), project, metric, items, settings)
    assert again.computed == len(items) and again.cached == 0
    rows = store.load_results(project, metrics=["judge_overall"])
    assert all(r.value == 5.0 and not r.details["errors"] for r in rows)
    assert run_metrics(JobState(), project, metric, items, settings).cached == len(items)


def test_the_cache_reads_details_sqlite_cannot_parse(small_project) -> None:
    """Details may hold NaN (Python's JSON, not SQLite's): reading the cache must not
    fail on them while it looks for judges that did not answer."""
    project = small_project(1)
    rows = [("s00", "tinted", "h1", MetricResult.ok(1.0, spread=float("nan")), None),
            ("s00", "same", "h2", MetricResult.ok(2.0, unanswered=["j"]), None)]
    store.save_results(project, "x", 1, {}, "p", rows)
    have = store.cached(project, "x", "p")
    assert not have[("s00", "tinted")].incomplete and have[("s00", "same")].incomplete
