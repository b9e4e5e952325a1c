"""The proposal job: every selected post × kind to the model, N requests in flight.

``run_proposals(project, endpoint, kinds, post_ids, state)`` is a plain job function
(ADR 002): it runs its own selector event loop on the calling thread (the job's
worker thread in the GUI, the main thread in the CLI; ADR 121).  Posts are taken
lazily, at most ``2 × concurrency`` at a time, so memory stays flat whatever the
number of posts.  Each answer is recorded (and written into its sample) in its own
transaction the moment it arrives: a crash or Cancel loses at most the requests in
flight, and the next run finds the rest in the cache (post, template version, model,
input hash).  A request that fails, or whose answer does not validate, is a failed
proposal with its reason; the run goes on.  An endpoint that refuses everything (a
wrong key, an unknown model) stops the run with that message.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.jobs import Cancelled, JobState
from core.propose import store
from core.propose.apply import apply_value
from core.propose.client import Answer, EndpointError, ProposeClient, ProposeEndpoint, ProposeError
from core.propose.context import (
    Encoded,
    PostContext,
    build_request,
    encode_images,
    image_paths,
    load_post,
    subject_for,
)
from core.propose.kinds import KINDS, SCHEMAS, InvalidProposal, validate
from core.propose.templates import WITH_IMAGES, Template, ensure_saved
from core.store.project import Project
from core.task_pool import run_bounded

if TYPE_CHECKING:
    import httpx

_POLL_S = 0.05

#: what a curator package says to Propose (its proposals would make samples no merge
#: brings back, ADR 228): ``package_refusal``'s ``takes`` and ``instead``
IN_PACKAGE = ("proposals", "Propose in {project} and share again")


@dataclass
class ProposeReport:
    """What a run did."""

    posts: int = 0
    requests: int = 0          # (post, kind) pairs asked for
    sent: int = 0              # HTTP requests sent, retries included
    ok: int = 0
    failed: int = 0
    cached: int = 0
    skipped: int = 0
    applied: int = 0           # fields written into samples
    kept: int = 0              # fields left as a curator set them
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    max_in_flight: int = 0
    rate_limited: int = 0
    outcome: str = "done"
    run_id: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    skip_reasons: Counter[str] = field(default_factory=Counter)
    failures: list[dict[str, str]] = field(default_factory=list)  # the first 100

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {"run": self.run_id, "outcome": self.outcome, "posts": self.posts,
                "requests": self.requests, "sent": self.sent, "ok": self.ok,
                "failed": self.failed, "cached": self.cached, "skipped": self.skipped,
                "fields_applied": self.applied, "fields_kept": self.kept,
                "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens},
                "cost": round(self.cost, 6), "max_in_flight": self.max_in_flight,
                "rate_limited": self.rate_limited,
                "failure_reasons": dict(self.reasons.most_common(20)),
                "skip_reasons": dict(self.skip_reasons), "failures": self.failures}


def _reason_key(reason: str) -> str:
    head = reason.split(":")[0] if ":" in reason[:40] else reason[:60]
    return head.strip()


class _Run:
    def __init__(self, project: Project, endpoint: ProposeEndpoint,
                 templates: dict[str, Template], state: JobState, report: ProposeReport,
                 client: ProposeClient) -> None:
        self.project = project
        self.ep = endpoint
        self.templates = templates
        self.state = state
        self.report = report
        self.client = client

    # -- one post ------------------------------------------------------------------------
    async def post(self, post_id: str, kinds: Sequence[str]) -> None:
        ctx = load_post(self.project, post_id)
        if ctx is None:
            for kind in kinds:
                self._fail_unsent(post_id, kind, f"post {post_id!r} is not in the project")
            return
        encoded: dict[int, Encoded | str] = {}
        if any(k in WITH_IMAGES for k in kinds) and ctx.usable_images:
            paths = image_paths(self.project, ctx.usable_images)
            encoded = await asyncio.to_thread(encode_images, paths, ctx.usable_images)
        first = [k for k in kinds if k != "screenshots"]
        results = await asyncio.gather(*(self.one(ctx, k, encoded) for k in first))
        if "screenshots" in kinds:
            roles = dict(zip(first, results, strict=True)).get("roles")
            if roles is None:
                roles = self._latest_roles(post_id)
            shots = None if roles is None else [
                r["index"] for r in roles["images"] if r.get("is_screenshot")]
            await self.one(ctx, "screenshots", encoded, shots)

    def _latest_roles(self, post_id: str) -> dict[str, Any] | None:
        import json

        row = self.project.conn.execute(
            "SELECT value FROM proposals WHERE post_id = ? AND kind = 'roles' AND model = ? "
            "AND status = 'ok' ORDER BY id DESC LIMIT 1", (post_id, self.ep.model)).fetchone()
        return None if row is None else json.loads(row[0])

    def _skip(self, why: str) -> None:
        self.report.skipped += 1
        self.report.skip_reasons[why] += 1
        self.state.advance()

    async def one(self, ctx: PostContext, kind: str, encoded: dict[int, Encoded | str],
                  only: list[int] | None = None) -> dict[str, Any] | None:
        """Ask for ``kind`` about ``ctx`` (or take it from the cache); its value or None."""
        if kind in ("roles", "screenshots") and not any(
                isinstance(e, Encoded) for e in encoded.values()):
            self._skip("no readable images")
            return None
        if kind == "screenshots" and only is not None and not only:
            self._skip("no screenshot among the images")
            return None
        if kind in ("feedback", "fill-in") and not ctx.replies:
            self._skip("no replies")
            return None
        template = self.templates[kind]
        subject = subject_for(ctx, encoded, only if kind == "screenshots" else None)
        req = build_request(kind, template, ctx, subject, encoded)
        assert template.id is not None
        hit = store.cached(self.project, ctx.post_id, kind, template.id, self.ep.model,
                           req.input_hash)
        if hit is not None:
            self.report.cached += 1
            if not hit[2]:  # recorded but never written into its sample (an older run)
                self._write(hit[0], kind, hit[1], subject)
            self.state.advance()
            return hit[1]
        outcome = store.Outcome(ctx.post_id, kind, template.id, req.input_hash, "failed")
        answer: Answer | None = None
        try:
            answer = await self.client.complete(req.messages, "winnow_" + kind.replace("-", "_"),
                                                SCHEMAS[kind], group=ctx.post_id)
            outcome.raw = answer.text
            outcome.value = validate(kind, answer.text, subject)
            outcome.status = "ok"
        except EndpointError:
            raise
        except (ProposeError, InvalidProposal) as exc:
            outcome.error = str(exc)
            if isinstance(exc, ProposeError) and exc.raw and outcome.raw is None:
                outcome.raw = exc.raw
        if answer is not None:
            outcome.prompt_tokens, outcome.completion_tokens = (answer.prompt_tokens,
                                                                answer.completion_tokens)
            outcome.cost, outcome.latency_ms = answer.cost, answer.latency_ms
            self.report.prompt_tokens += answer.prompt_tokens or 0
            self.report.completion_tokens += answer.completion_tokens or 0
            self.report.cost += answer.cost or 0.0
        self._record(outcome, subject)
        self.state.advance()
        return outcome.value

    # -- writing ---------------------------------------------------------------------------
    def _record(self, o: store.Outcome, subject: Any) -> None:
        with self.project.transaction():
            pid = store.insert(self.project, o, self.ep.model, self.report.run_id)
            if o.status == "ok":
                assert o.value is not None
                self._write(pid, o.kind, o.value, subject)
        if o.status == "ok":
            self.report.ok += 1
        else:
            self._count_failure(o.post_id, o.kind, o.error or "failed")

    def _count_failure(self, post_id: str, kind: str, reason: str) -> None:
        self.report.failed += 1
        self.report.reasons[_reason_key(reason)] += 1
        if len(self.report.failures) < 100:
            self.report.failures.append({"post": post_id, "kind": kind, "reason": reason})

    def _fail_unsent(self, post_id: str, kind: str, reason: str) -> None:
        self._count_failure(post_id, kind, reason)
        self.state.advance()

    def _write(self, pid: int, kind: str, value: dict[str, Any], subject: Any) -> None:
        conn = self.project.conn
        with self.project.transaction():
            conn.execute("SAVEPOINT apply_proposal")
            try:
                applied = apply_value(self.project, pid, kind, value, subject)
            except (KeyError, ValueError) as exc:  # e.g. a post deleted meanwhile
                conn.execute("ROLLBACK TO apply_proposal")
                applied = {"sample": None, "applied": [], "kept": [],
                           "error": str(exc.args[0]) if exc.args else str(exc)}
            conn.execute("RELEASE apply_proposal")
            store.set_applied(self.project, pid, applied)
        self.report.applied += len(applied["applied"])
        self.report.kept += len(applied["kept"])


async def _run_all(run: _Run, post_ids: Sequence[str], kinds: Sequence[str]) -> None:
    def tick() -> None:  # Cancel, and what the job has done so far
        run.state.check()
        r = run.report
        run.state.set_status(
            f"{run.state.done:,}/{r.requests:,} · {r.ok:,} proposed · {r.failed:,} failed"
            f" · {r.cached:,} cached · {run.client.in_flight} in flight")

    # EndpointError, a database error or a bug in one post stop the run
    await run_bounded(post_ids, max(2, 2 * run.ep.concurrency),
                      lambda post_id: run.post(post_id, kinds), tick, _POLL_S)


def run_proposals(project: Project, endpoint: ProposeEndpoint, kinds: Sequence[str],
                  post_ids: Sequence[str], state: JobState | None = None, *,
                  posts_label: str = "", transport: httpx.AsyncBaseTransport | None = None
                  ) -> ProposeReport:
    """Propose ``kinds`` for every post in ``post_ids`` (see the module docstring).

    Raises :class:`core.jobs.Cancelled` on Cancel and :class:`EndpointError` when the
    endpoint refuses everything; both after recording the run's end.  In a curator
    package, :class:`core.teamwork.package.PackageRefusal` before anything is written.
    """
    from core.teamwork.package import refuse_package

    refuse_package(project, *IN_PACKAGE)  # before the templates or the run are saved
    state = state or JobState(title="Propose")
    kinds = [k for k in KINDS if k in kinds]
    if not kinds:
        raise ValueError("no proposal kind chosen")
    templates = {k: ensure_saved(project, k) for k in kinds}
    report = ProposeReport(posts=len(post_ids), requests=len(post_ids) * len(kinds))
    report.run_id = store.start_run(project, endpoint.model, endpoint.public(), kinds,
                                    posts_label or f"{len(post_ids)} posts")
    state.set_total(report.requests)
    state.set_status(f"Proposing {', '.join(kinds)} for {len(post_ids):,} posts")

    async def main() -> None:
        async with ProposeClient(endpoint, transport=transport) as client:
            run = _Run(project, endpoint, templates, state, report, client)
            try:
                await _run_all(run, post_ids, kinds)
            finally:
                report.sent, report.max_in_flight = client.sent, client.max_in_flight
                report.rate_limited = client.rate_limited

    try:
        with asyncio.Runner(loop_factory=asyncio.SelectorEventLoop) as runner:
            runner.run(main())
    except (Cancelled, KeyboardInterrupt) as exc:
        report.outcome = "cancelled" if isinstance(exc, Cancelled) else "interrupted"
        _finish(project, report)
        raise
    except EndpointError as exc:
        report.outcome = f"stopped: {exc}"
        _finish(project, report)
        raise
    except sqlite3.Error:
        report.outcome = "stopped: the project could not be written"
        raise
    _finish(project, report)
    return report


def _finish(project: Project, report: ProposeReport) -> None:
    try:
        store.finish_run(project, report.run_id, report.outcome.split(":")[0], report.to_json())
    except sqlite3.Error:  # the run's own end cannot be written: what it did is saved
        pass
