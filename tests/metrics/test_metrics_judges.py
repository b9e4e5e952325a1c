"""VLM judges against a real local chat-completions server: success, faults, votes, calibration."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import numpy as np
import pytest
from judge_server import JudgeServer
from metrics_helpers import gradient_image, pair, save

from core.jobs import JobState
from core.metrics import store
from core.metrics.items import collect_items
from core.metrics.judge_client import JudgeClient, JudgeError
from core.metrics.judge_prompts import AnswerError, parse_rating, parse_tecci
from core.metrics.registry import get
from core.metrics.runner import evaluate, run_metrics
from core.metrics.settings import JudgeEndpoint, MetricSettings
from core.metrics.summary import calibrate_tecci, judge_win_rates
from core.selection import SampleFilter
from core.stats.success import likert_means


@pytest.fixture
def server():
    with JudgeServer() as srv:
        yield srv


def _judge(url: str, model: str, **kw) -> JudgeEndpoint:
    kw.setdefault("timeout", 0.5)
    kw.setdefault("backoff", 0.01)
    kw.setdefault("max_retries", 2)
    return JudgeEndpoint(url, model, api_key="sk-test", **kw)


@pytest.fixture
def images(tmp_path: Path) -> tuple[Path, Path]:
    return (save(gradient_image(seed=1), tmp_path / "in.png"),
            save(gradient_image(seed=2), tmp_path / "out.png"))


def _one(metric: str, judges, images, prompt="make the sky 'PINK'", **kw):
    settings = MetricSettings(judges=tuple(judges), **kw)
    return evaluate(get(metric), [pair(*images, prompt=prompt)], settings)[0]


def test_request_carries_images_key_and_reasoning_first(server, images) -> None:
    res = _one("judge_overall", [_judge(server.url, "good:7")], images)
    assert res.status == "ok" and res.value == 7.0
    entry = res.details["judges"]["good:7"]
    assert entry["score"] == 7.0 and "follows the prompt" in entry["reasoning"]
    body = server.requests[0]
    assert body["model"] == "good:7" and body["messages"][0]["role"] == "system"
    parts = body["messages"][1]["content"]
    assert "explanation" in parts[0]["text"] and "[[N]]" in parts[0]["text"]
    urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    assert len(urls) == 2 and all(u.startswith("data:image/png;base64,") for u in urls)
    assert base64.b64decode(urls[1].split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    assert server.headers[0]["Authorization"] == "Bearer sk-test"


@pytest.mark.parametrize(("model", "fragment"), [
    ("slow", "timed out"), ("garbage", "not JSON"), ("refuse", "refused: HTTP 400"),
    ("noscore", "no rating"), ("nosuchmodel", "HTTP 404"),
])
def test_failures_become_errors_for_the_item(server, images, model, fragment) -> None:
    res = _one("judge_overall", [_judge(server.url, model, timeout=0.3)], images)
    assert res.status == "error" and fragment in res.error


def test_retries_500_and_429_then_succeeds(server, images) -> None:
    flaky = _one("judge_overall", [_judge(server.url, "flaky")], images)
    assert flaky.status == "ok" and flaky.value == 6.0
    busy = _one("judge_overall", [_judge(server.url, "busy")], images)
    assert busy.status == "ok" and server.calls["busy"] == 2
    assert server.calls["flaky"] == 2
    # refusals are not retried; garbage is retried up to max_retries
    _one("judge_overall", [_judge(server.url, "refuse")], images)
    _one("judge_overall", [_judge(server.url, "garbage", max_retries=2)], images)
    assert server.calls["refuse"] == 1 and server.calls["garbage"] == 3


def test_unreachable_endpoint_is_an_error(images) -> None:
    res = _one("judge_overall", [_judge("http://127.0.0.1:9/v1", "good", max_retries=1)],
               images)
    assert res.status == "error" and "cannot reach" in res.error


def test_one_failing_judge_of_several_keeps_the_others(server, images) -> None:
    res = _one("judge_overall", [_judge(server.url, "good:8"), _judge(server.url, "low:4"),
                                 _judge(server.url, "refuse")], images)
    assert res.status == "ok" and res.value == 6.0
    assert set(res.details["judges"]) == {"good:8", "low:4"}
    assert "refused" in res.details["errors"]["refuse"]


def test_concurrency_limit_is_respected(server) -> None:
    endpoint = _judge(server.url, "count", concurrency=3, timeout=5)

    async def go() -> list[str]:
        async with JudgeClient(endpoint) as client:
            return await asyncio.gather(*(client.complete([{"role": "user", "content": "x"}])
                                          for _ in range(12)))

    answers = asyncio.run(go())
    assert len(answers) == 12 and server.max_in_flight == 3


def test_client_raises_judge_error_not_crash(server) -> None:
    async def go() -> None:
        async with JudgeClient(_judge(server.url, "garbage", max_retries=0)) as client:
            await client.complete([{"role": "user", "content": "x"}])

    with pytest.raises(JudgeError, match=r"gave up after 1 attempt\)"):
        asyncio.run(go())


def test_tecci_averages_repeated_runs(server, images) -> None:
    res = _one("judge_tecci", [_judge(server.url, "tecci")], images, judge_repeats=5)
    assert res.status == "ok" and res.details["runs"] == 5
    crit = res.details["criteria"]
    assert crit["IF"] == 4.0 and crit["VQ"] == 2.0 and crit["IC"] in (1, 2, 3, 4, 5)
    assert res.value == pytest.approx((6 + crit["IC"]) / 3)
    assert server.calls["tecci"] == 5
    invalid = _one("judge_tecci", [_judge(server.url, "invalid")], images, judge_repeats=3)
    assert invalid.status == "not_applicable" and invalid.details["invalid_runs"] == 3


def test_text_judge_only_when_the_prompt_quotes_text(server, images) -> None:
    res = _one("judge_text", [_judge(server.url, "good:9")], images)
    assert res.value == 9.0
    text = server.requests[-1]["messages"][1]["content"][0]["text"]
    assert "PINK" in text
    na = _one("judge_text", [_judge(server.url, "good:9")], images, prompt="make it pink")
    assert na.status == "not_applicable"


def test_parsers() -> None:
    assert parse_rating("fine... Rating: [[ 7.5 ]]") == (7.5, "fine... Rating:")
    with pytest.raises(AnswerError, match="outside"):
        parse_rating("Rating: [[11]]")
    valid, scores, _ = parse_tecci('analysis {"x": 1}\n{"instruction_valid": "yes", "IF": 5, '
                                   '"IC": 4, "VQ": 3}')
    assert valid and scores == {"IF": 5.0, "IC": 4.0, "VQ": 3.0}
    with pytest.raises(AnswerError, match="outside 1–5"):
        parse_tecci('{"IF": 9, "IC": 1, "VQ": 1}')


def test_run_on_project_majority_vote_win_rate_and_calibration(server, small_project) -> None:
    project = small_project(3)
    items = [i for i in collect_items(project, SampleFilter().sample_ids(project),
                                      ["tinted", "same"]) if i.sample_id != "t2i"]
    # three judges: two prefer "same" (score by model through a per-model endpoint trick)
    settings = MetricSettings(judges=(_judge(server.url, "good:8"), _judge(server.url, "low:3"),
                                      _judge(server.url, "flaky")))
    summary = run_metrics(JobState(), project, [get("judge_overall")], items, settings)
    assert summary.computed == 6 and summary.errors == 0
    rows = store.load_results(project, metrics=["judge_overall"])
    assert all(set(r.details["judges"]) == {"good:8", "low:3", "flaky"} for r in rows)
    # rewrite per-judge scores so the majority prefers "same" on every sample
    wr = judge_win_rates([_with_scores(r, {"same": (8, 7, 2), "tinted": (3, 4, 9)}[r.model])
                          for r in rows])
    assert wr.win_rate_dict() == {"same": 1.0, "tinted": 0.0}
    again = run_metrics(JobState(), project, [get("judge_overall")], items, settings)
    assert again.cached == 6 and again.computed == 0
    # TECCI + z-score calibration against human Likert means
    tecci = MetricSettings(judges=(_judge(server.url, "tecci"),), judge_repeats=5)
    run_metrics(JobState(), project, [get("judge_tecci")], items, tecci)
    tecci_rows = store.load_results(project, metrics=["judge_tecci"])
    assert len({r.details["criteria"]["IC"] for r in tecci_rows}) > 1
    humans = likert_means(
        ["r1"] * 6, [r.sample_id for r in tecci_rows], [r.model for r in tecci_rows],
        ["IC"] * 6, [2, 3, 4, 3, 2, 4])
    out = calibrate_tecci(tecci_rows, humans)
    cal = np.array([row["IC"] for row in out["rows"]])
    assert out["params"]["IC"]["n"] == 6
    assert cal.mean() == pytest.approx(3.0) and cal.std() == pytest.approx(np.std([2, 3, 4, 3,
                                                                                   2, 4]))


def _with_scores(row, scores):
    from dataclasses import replace

    judges = {name: {**e, "score": float(s)}
              for (name, e), s in zip(sorted(row.details["judges"].items()), scores, strict=True)}
    return replace(row, details={**row.details, "judges": judges})


def test_judges_run_on_a_worker_thread_under_the_guis_qasync_policy(server, images,
                                                                    qapp) -> None:
    """``winnow`` runs the GUI with qasync, whose event-loop policy makes every new loop a
    Qt loop; a metrics job's worker thread must still get a plain loop (ADR 002, 142)."""
    import threading

    qasync = pytest.importorskip("qasync")
    out: list[object] = []

    def job() -> None:
        try:
            out.append(_one("judge_overall", [_judge(server.url, "good:7")], images))
        except BaseException as exc:  # noqa: BLE001 - reported by the assert below
            out.append(exc)

    old = asyncio.get_event_loop_policy()
    asyncio.set_event_loop_policy(qasync.DefaultQEventLoopPolicy())
    try:
        worker = threading.Thread(target=job)
        worker.start()
        worker.join(30)
    finally:
        asyncio.set_event_loop_policy(old)
    assert len(out) == 1 and not isinstance(out[0], BaseException), out
    assert out[0].status == "ok" and out[0].value == 7.0
