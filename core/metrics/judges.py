"""VLM-as-judge metrics over HTTP: ECHO overall grading, ECHO text score, TECCI IF/IC/VQ.

Each judge metric builds chat messages for an item, sends them to every configured
judge (``repeats`` times each), parses the answers and combines them:

* ``judge_overall`` (ECHO §5, appendix E): 1–10 single-answer grading with reasoning
  before the score; value = mean over judges.  Per-judge scores are kept, so the
  pseudo-pairwise win rate with a majority vote over judges can be computed
  (:func:`core.metrics.summary.judge_win_rates`).
* ``judge_text`` (ECHO Figure E.2): 1–10 accuracy of the rendered text; applicable
  when the prompt quotes text (same rule as the OCR metric).
* ``judge_tecci`` (TECCI §4.4, §5.8): instruction validity, then IF, IC, VQ on 1–5,
  averaged over ``repeats`` independent runs (default 5) and over judges; value =
  mean of the three criteria.  Not applicable when most runs call the instruction
  invalid.  Z-score calibration: :func:`core.metrics.summary.calibrate_tecci`.

A judge that fails for an item (HTTP error, timeout, garbage, refusal, an answer
without a score) is recorded in ``details.errors``; when every judge fails the item
is stored as an error, never raised.  An item scored without a judge that did not answer
(:class:`~core.metrics.judge_client.JudgeUnavailable`) names it in
``details.unanswered``: the next run computes that item again (ADR 192).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.metrics import judge_prompts as jp
from core.metrics.base import Metric, MetricResult, PairItem
from core.metrics.imageio import encode_png, open_rgb
from core.metrics.judge_client import JudgeClient, JudgeError, JudgeUnavailable, data_url
from core.metrics.settings import MetricSettings
from core.metrics.text_rendering import target_text

JUDGE_MAX_SIDE = 1024
MAX_REASONING = 4000


@dataclass
class Run:
    """One judge answer, parsed; ``error`` set when it failed."""

    judge: str
    score: float | None = None
    scores: dict[str, float] | None = None
    valid: bool = True
    reasoning: str = ""
    error: str | None = None
    unanswered: bool = False  # the judge did not answer (worth asking on the next run)


class JudgeMetric(Metric):
    """Common behaviour of judge metrics (subclasses: messages, parse, combine)."""

    is_judge = True
    uses_prompt = True
    repeats_setting = False  # True: run each judge ``settings.judge_repeats`` times

    def params(self, settings: MetricSettings) -> dict[str, Any]:
        p: dict[str, Any] = {"judges": [j.identity() for j in settings.judges],
                             "prompt_version": jp.PROMPT_VERSION}
        if self.repeats_setting:
            p["repeats"] = settings.judge_repeats
        return p

    def repeats(self, settings: MetricSettings) -> int:
        return max(1, settings.judge_repeats) if self.repeats_setting else 1

    def prepare(self, item: PairItem, setup: Any) -> list[str]:
        assert item.output is not None  # not_applicable said so before
        refs = (*item.inputs, item.output) if self.uses_inputs else (item.output,)
        return [data_url(encode_png(open_rgb(ref, JUDGE_MAX_SIDE))) for ref in refs]

    def messages(self, item: PairItem, images: list[str]) -> list[dict[str, Any]]:
        raise NotImplementedError

    def parse(self, judge: str, text: str) -> Run:
        score, reasoning = jp.parse_rating(text, 1, 10)
        return Run(judge, score=score, reasoning=reasoning[:MAX_REASONING])

    def combine(self, runs: list[Run]) -> MetricResult:
        good = [r for r in runs if r.error is None]
        errors = {r.judge: r.error for r in runs if r.error is not None}
        if not good:
            return MetricResult.fail("; ".join(f"{k}: {v}" for k, v in errors.items()),
                                     errors=errors)
        judges: dict[str, dict[str, Any]] = {}
        for r in good:
            entry = judges.setdefault(r.judge, {"runs": [], "reasoning": r.reasoning})
            entry["runs"].append(r.score)
        for entry in judges.values():
            entry["score"] = sum(entry["runs"]) / len(entry["runs"])
        value = sum(e["score"] for e in judges.values()) / len(judges)
        return MetricResult.ok(value, judges=judges, errors=errors)


class JudgeOverall(JudgeMetric):
    name = "judge_overall"
    title = "VLM judge: overall (1–10)"
    version = 1
    definition = ("ECHO single-answer grading: each judge explains, then rates the output 1–10 "
                  "for prompt following, fidelity to the reference images, realism and "
                  "aesthetics; the value is the mean over judges. Per-judge scores feed the "
                  "pseudo-pairwise win rate (majority vote over judges).")
    uses_inputs = True  # shown (and hashed) when present, but not required

    def applicable(self, item: PairItem) -> str | None:
        return None if item.output is not None else "no output image"

    def messages(self, item: PairItem, images: list[str]) -> list[dict[str, Any]]:
        text = jp.OVERALL.format(images_note=jp.images_note(len(images) - 1), prompt=item.prompt)
        return [{"role": "system", "content": jp.SYSTEM}, _user(text, images)]


class JudgeText(JudgeMetric):
    name = "judge_text"
    title = "VLM judge: text rendering (1–10)"
    version = 1
    definition = ("ECHO text rendering accuracy: the judge compares the text visible in the "
                  "output with the quoted text of the prompt (spelling, punctuation, grammar, "
                  "legibility), explains, then rates 1–10; mean over judges.")
    uses_inputs = False

    def applicable(self, item: PairItem) -> str | None:
        if item.output is None:
            return "no output image"
        if not (item.text or target_text(item.prompt)):
            return "the prompt quotes no text to render"
        return None

    def messages(self, item: PairItem, images: list[str]) -> list[dict[str, Any]]:
        text = jp.TEXT.format(target=item.text or target_text(item.prompt), prompt=item.prompt,
                              images_note=jp.images_note(0))
        return [{"role": "system", "content": jp.SYSTEM}, _user(text, images)]


class JudgeTecci(JudgeMetric):
    name = "judge_tecci"
    title = "VLM judge: TECCI IF / IC / VQ (1–5)"
    version = 1
    definition = ("TECCI autorater: the judge checks the instruction is valid, then rates "
                  "instruction following (IF), image consistency (IC) and visual quality "
                  "(VQ) on 1–5 after a step-by-step analysis; each criterion is averaged over "
                  "repeated runs (default 5) and judges; the value is the mean of the three. "
                  "Z-score calibration to human ratings is applied on request.")
    repeats_setting = True

    def messages(self, item: PairItem, images: list[str]) -> list[dict[str, Any]]:
        return [{"role": "system", "content": jp.SYSTEM},
                _user(jp.TECCI.format(prompt=item.prompt), images)]

    def parse(self, judge: str, text: str) -> Run:
        valid, scores, reasoning = jp.parse_tecci(text)
        return Run(judge, scores=scores, valid=valid, reasoning=reasoning[:MAX_REASONING])

    def combine(self, runs: list[Run]) -> MetricResult:
        good = [r for r in runs if r.error is None]
        errors = {r.judge: r.error for r in runs if r.error is not None}
        if not good:
            return MetricResult.fail("; ".join(f"{k}: {v}" for k, v in errors.items()),
                                     errors=errors)
        valid = [r for r in good if r.valid]
        if 2 * len(valid) <= len(good):
            return MetricResult.na("the judge found the instruction invalid",
                                   invalid_runs=len(good) - len(valid), runs=len(good))
        criteria = {c: sum(r.scores[c] for r in valid if r.scores) / len(valid)
                    for c in jp.TECCI_CRITERIA}
        per_judge: dict[str, dict[str, Any]] = {}
        for r in valid:
            entry = per_judge.setdefault(r.judge, {"runs": [], "reasoning": r.reasoning})
            entry["runs"].append(r.scores)
        value = sum(criteria.values()) / len(criteria)
        return MetricResult.ok(value, criteria=criteria, runs=len(valid),
                               invalid_runs=len(good) - len(valid), judges=per_judge,
                               errors=errors)


def _user(text: str, images: list[str]) -> dict[str, Any]:
    from core.metrics.judge_client import user_message

    return user_message(text, images)


async def judge_items(metric: JudgeMetric, settings: MetricSettings, items: list[PairItem],
                      on_result: Callable[[PairItem, MetricResult], None],
                      cancelled: Callable[[], bool], *, executor: Any = None,
                      clients: list[JudgeClient] | None = None) -> None:
    """Judge every item with every configured judge; ``on_result`` once per item.

    Images are encoded on ``executor`` threads; requests run concurrently up to each
    endpoint's limit.  Returns early (without more results) once ``cancelled()``.
    """
    if not settings.judges:
        raise ValueError(f"{metric.name} needs at least one judge endpoint (Metrics → Settings "
                         "or --judge-url/--judge-model)")
    own = clients is None
    clients = clients or [JudgeClient(j) for j in settings.judges]
    loop = asyncio.get_running_loop()
    window = asyncio.Semaphore(max(2, 2 * sum(c.endpoint.concurrency for c in clients)))
    repeats = metric.repeats(settings)

    async def one_run(client: JudgeClient, messages: list[dict[str, Any]]) -> Run:
        name = client.endpoint.name
        try:
            text = await client.complete(messages)
            return metric.parse(name, text)
        except JudgeUnavailable as exc:
            return Run(name, error=str(exc), unanswered=True)
        except (JudgeError, jp.AnswerError) as exc:
            return Run(name, error=str(exc))

    async def one_item(item: PairItem) -> None:
        async with window:
            if cancelled():
                return
            try:
                images = await loop.run_in_executor(executor, metric.prepare, item, None)
            except Exception as exc:  # a broken image: an error for this item only
                on_result(item, MetricResult.fail(str(exc)))
                return
            messages = metric.messages(item, images)
            runs = await asyncio.gather(*(one_run(c, messages) for c in clients
                                          for _ in range(repeats)))
            if not cancelled():
                result = metric.combine(list(runs))
                missing = sorted({r.judge for r in runs if r.unanswered})
                if missing and result.status != "error":  # errors are computed again anyway
                    result.details["unanswered"] = missing
                on_result(item, result)

    try:
        if own:
            for c in clients:
                await c.__aenter__()
        tasks = [asyncio.ensure_future(one_item(item)) for item in items]
        pending = set(tasks)
        while pending:
            done, pending = await asyncio.wait(pending, timeout=0.2)
            for t in done:
                t.result()  # on_result errors (e.g. database) propagate
            if cancelled():
                for t in pending:
                    t.cancel()
                await asyncio.gather(*pending, return_exceptions=True)
                return
    finally:
        if own:
            for c in clients:
                await c.__aexit__(None, None, None)
