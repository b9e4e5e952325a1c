"""The proposal job against a real local chat-completions server: every kind's structured
output, hostile answers, 429 storms, slow and silent servers, cancel and resume,
concurrency actually reached, and curator edits that no later run overwrites."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from propose_helpers import endpoint, run

from core.curate.commands import SetField, SetTag, UndoStack
from core.curate.image_edits import set_image_role
from core.ingest.importer import import_jsonl
from core.jobs import Cancelled, JobState
from core.propose.client import EndpointError
from core.propose.commands import AcceptProposals, SetFeedbackLabel
from core.propose.job import run_proposals
from core.propose.kinds import KINDS
from core.propose.store import select_posts
from core.store import Project

#: text posts in :func:`many_posts` (a run asks 2 kinds of each: 48 requests)
MANY = 24


@pytest.fixture
def many_posts(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A project of :data:`MANY` raw text posts (enough for a bound on requests sent)."""
    src = tmp_path / "many.jsonl"
    src.write_text("".join(json.dumps({"id": f"m{k}", "text": f"a red bicycle number {k}"})
                           + "\n" for k in range(MANY)), encoding="utf-8")
    project = Project.create(tmp_path / "many.winnow")
    import_jsonl(project, src)
    yield project
    project.close()


def _sample(project, sid):  # type: ignore[no-untyped-def]
    return project.conn.execute(
        "SELECT prompt, original_prompt, quality, split, is_screenshot FROM samples "
        "WHERE id = ?", (sid,)).fetchone()


def _status(project, sid):  # type: ignore[no-untyped-def]
    return dict(project.conn.execute(
        "SELECT field, status FROM proposal_field_status WHERE sample_id = ?", (sid,)))


def test_every_kind_is_asked_with_its_schema_and_written(posts_project, server) -> None:
    report = run(posts_project, server.url)
    assert report.failed == 0 and report.ok > 0
    names = {r["response_format"]["json_schema"]["name"] for r in server.requests}
    assert names == {"winnow_" + k.replace("-", "_") for k in KINDS}
    for body in server.requests:
        fmt = body["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
        assert fmt["json_schema"]["schema"]["additionalProperties"] is False
    p = posts_project
    assert _sample(p, "q1") == ("turn my cat green please", "turn my cat green please",
                                "Benchmark", "image-to-image", 0)
    roles = p.conn.execute("SELECT role, ref FROM sample_images WHERE sample_id = 'q1' "
                           "ORDER BY role").fetchall()
    assert roles == [("input", "img/in.png"), ("output", "img/out.png")]
    # the screenshot: boxes in source pixels (sent at 1024 px wide: scale 2000/1024)
    boxes = p.conn.execute("SELECT role, bbox_x, bbox_y, bbox_w, bbox_h FROM sample_images "
                           "WHERE sample_id = 'q2' AND bbox_x IS NOT NULL ORDER BY role")
    assert boxes.fetchall() == [("input", 0, 0, 1000, 750), ("output", 1000, 750, 1000, 750)]
    assert _sample(p, "q2")[0] == "make it a watercolor" and _sample(p, "q2")[4] == 1
    # fill-in-the-blank completions became derived samples linked to the template
    assert _sample(p, "q3~fill~q3r1")[0] == "Design a soda can called FIZZ POP"
    assert p.conn.execute("SELECT source_sample_id FROM sample_links WHERE sample_id = "
                          "'q3~fill~q3r2'").fetchone() == ("q3",)
    labels = dict(p.conn.execute("SELECT post_id, label || ':' || keyword FROM "
                                 "feedback_labels WHERE sample_id = 'q1'"))
    assert labels == {"q1r1": "failure:color drift", "q1r2": "success:"}
    assert p.conn.execute("SELECT tag FROM sample_tags WHERE sample_id = 'q5'").fetchall() \
        == [("unsafe",)]
    # the imported sample's post got no sample written; its proposals are only kept
    assert p.conn.execute("SELECT count(*) FROM samples WHERE post_id = 'p9'").fetchone()[0] == 1
    assert set(_status(p, "q1").values()) == {"proposed"}
    # every proposal records model, template version and the raw response
    row = p.conn.execute("SELECT p.model, t.version, p.raw, p.prompt_tokens FROM proposals p "
                         "JOIN proposal_templates t ON t.id = p.template_id "
                         "WHERE p.post_id = 'q1' AND p.kind = 'quality'").fetchone()
    assert row[0] == "good" and row[1] == 1 and json.loads(row[2])["quality"] == "Benchmark"
    assert row[3] > 100 and report.prompt_tokens > 0


def test_the_same_run_again_is_all_cache(posts_project, server) -> None:
    first = run(posts_project, server.url, posts=select_posts(posts_project, "all"))
    sent = server.total
    second = run(posts_project, server.url, posts=select_posts(posts_project, "all"))
    assert server.total == sent and second.cached == first.ok and second.ok == 0


@pytest.mark.parametrize(("model", "reason"), [
    ("nojson", "not JSON"), ("wrongschema", "unknown field"),
])
def test_malformed_answers_are_failed_proposals_with_a_reason(posts_project, server, model,
                                                              reason) -> None:
    before = posts_project.conn.execute("SELECT count(*) FROM samples").fetchone()[0]
    report = run(posts_project, server.url, model, kinds=["prompt", "quality"])
    assert report.ok == 0 and report.failed == 10
    errors = {r[0] for r in posts_project.conn.execute(
        "SELECT error FROM proposals WHERE status = 'failed'")}
    assert all(reason in e for e in errors), errors
    assert posts_project.conn.execute("SELECT count(*) FROM samples").fetchone()[0] == before


def test_hostile_content_never_reaches_a_sample(posts_project, server) -> None:
    report = run(posts_project, server.url, "outside", kinds=["roles", "screenshots"])
    reasons = [f["reason"] for f in report.failures]
    assert any("names image 99" in r for r in reasons)
    assert report.ok == 0
    run(posts_project, server.url, "good", kinds=["roles"])  # screenshots need roles first
    report = run(posts_project, server.url, "outside", kinds=["screenshots"])
    assert any("lies outside image 0" in f["reason"] for f in report.failures)
    assert posts_project.conn.execute("SELECT count(*) FROM sample_images WHERE bbox_x IS NOT "
                                      "NULL").fetchone()[0] == 0
    report = run(posts_project, server.url, "longprompt", kinds=["prompt"])
    assert report.failed == 5 and "longer than the post" in report.failures[0]["reason"]
    report = run(posts_project, server.url, "ghostreply", kinds=["feedback"])
    assert "not a reply of this post" in report.failures[0]["reason"]


def test_a_huge_response_is_cut_at_the_cap(posts_project, server) -> None:
    for model in ("huge", "hugechunked"):
        report = run(posts_project, server.url, model, kinds=["quality"],
                     max_response_bytes=256 * 1024)
        assert report.failed == 5 and "too large" in report.failures[0]["reason"]


def test_a_429_storm_is_ridden_out_honouring_retry_after(posts_project, server) -> None:
    report = run(posts_project, server.url, "storm:12", kinds=["quality"], attempts=6,
                 concurrency=4)
    assert report.failed == 0 and report.ok == 5 and report.rate_limited >= 1
    assert server.total == 12 + 5


@pytest.mark.parametrize(("model", "reason"), [
    ("hang", "timed out"), ("garbage", "malformed response")])
def test_a_server_that_keeps_failing_stops_the_run_saying_why(many_posts, server, model,
                                                             reason) -> None:
    """Every request timing out, or answered with a web page: after 3 posts in a row
    (each request after its retries) the run stops, rather than wait on every post
    (ADR 192)."""
    with pytest.raises(EndpointError, match=f"failed 3 requests in a row.*{reason}"):
        run(many_posts, server.url, model, kinds=["quality", "prompt"], timeout=0.3,
            attempts=2, concurrency=1)
    # 3 posts that gave up (2 kinds, 2 attempts each) and the run's window of posts
    # already under way (2), of the 48 requests a run on a live server sends
    assert 3 * 2 <= server.total <= (3 + 2) * 2 * 2 < MANY * 2 * 2
    outcome = many_posts.conn.execute(
        "SELECT outcome FROM proposal_runs ORDER BY id DESC").fetchone()[0]
    assert outcome == "stopped"


def test_a_server_that_goes_down_keeps_the_proposals_made(many_posts, server) -> None:
    with pytest.raises(EndpointError, match="failed 3 requests in a row.*HTTP 503"):
        run(many_posts, server.url, "dies:10", kinds=["quality", "prompt"], attempts=2,
            concurrency=1)
    kept = many_posts.conn.execute(
        "SELECT count(*) FROM proposals WHERE status = 'ok'").fetchone()[0]
    assert kept == 10 and server.total <= 10 + (3 + 2) * 2 * 2
    written = many_posts.conn.execute(
        "SELECT count(*) FROM proposals WHERE status = 'ok' AND applied IS NOT NULL")
    assert written.fetchone()[0] == 10
    assert many_posts.conn.execute(
        "SELECT outcome FROM proposal_runs ORDER BY id DESC").fetchone()[0] == "stopped"


def test_one_post_the_server_cannot_do_does_not_stop_the_run(posts_project, server) -> None:
    """Every kind asked about one post fails after its retries (a server that cannot
    process its images): that is one post's failure, not a dead endpoint, so the run
    goes on with the others (before, its 3 failed kinds stopped the run)."""
    report = run(posts_project, server.url, "picky:green please", concurrency=1)
    assert report.outcome == "done"
    failed = {f["post"] for f in report.failures}
    assert failed == {"q1"} and report.failed >= 3 and report.ok > 0
    assert all("HTTP 500" in f["reason"] for f in report.failures)


def test_flaky_5xx_is_retried(posts_project, server) -> None:
    report = run(posts_project, server.url, "flaky", kinds=["quality"])
    assert report.ok == 5 and server.total == 10


def test_a_server_without_json_schema_support_falls_back(posts_project, server) -> None:
    report = run(posts_project, server.url, "noformat", kinds=["quality", "prompt"])
    assert report.failed == 0 and report.ok == 10
    types = [(r.get("response_format") or {}).get("type") for r in server.requests]
    assert "json_schema" in types and "json_object" in types


def test_fenced_answers_without_structured_outputs_validate(posts_project, server) -> None:
    report = run(posts_project, server.url, "fence", kinds=["quality"], structured="off")
    assert report.ok == 5
    assert all("response_format" not in r for r in server.requests)


def test_a_refused_key_stops_the_run_with_a_clear_message(posts_project, server) -> None:
    with pytest.raises(EndpointError, match="HTTP 401"):
        run(posts_project, server.url, "unauthorized", kinds=["quality"])
    outcome = posts_project.conn.execute("SELECT outcome FROM proposal_runs").fetchone()[0]
    assert outcome == "stopped"


def test_concurrency_is_reached_on_the_server(posts_project, server) -> None:
    ids = select_posts(posts_project, "all")
    run_proposals(posts_project, endpoint(server.url, "latency:150", concurrency=6),
                  ["quality", "prompt", "safety"], ids)
    assert server.max_in_flight == 6


def test_tokens_and_cost_are_counted(posts_project, server) -> None:
    report = run(posts_project, server.url, "costly", kinds=["quality"])
    assert report.cost == pytest.approx(5 * 0.0125)
    report = run(posts_project, server.url, "good", kinds=["prompt"], price_in=1.0,
                 price_out=2.0)
    assert report.cost == pytest.approx((report.prompt_tokens + 2 * report.completion_tokens)
                                        / 1e6)


def test_cancel_loses_only_what_was_in_flight_and_resume_finishes(posts_project,
                                                                  server) -> None:
    ids = select_posts(posts_project, "all")
    state = JobState()
    done = threading.Event()

    def cancel_after_two(s: JobState) -> None:
        if s.done >= 2 and not done.is_set():
            done.set()
            s.cancel()

    state.subscribe(cancel_after_two)
    with pytest.raises(Cancelled):
        run_proposals(posts_project, endpoint(server.url, "latency:100", concurrency=2),
                      ["quality", "prompt"], ids, state)
    kept = posts_project.conn.execute("SELECT count(*) FROM proposals").fetchone()[0]
    assert 2 <= kept < 12
    assert posts_project.conn.execute("SELECT outcome FROM proposal_runs").fetchone()[0] \
        == "cancelled"
    report = run_proposals(posts_project, endpoint(server.url, "latency:100"),
                           ["quality", "prompt"], ids)
    assert report.cached == kept and report.ok == 12 - kept
    assert report.sent == 12 - kept  # nothing answered before is asked again


def test_curator_edits_are_never_overwritten(posts_project, server) -> None:
    p = posts_project
    run(p, server.url)
    stack = UndoStack(p)
    stack.push(SetField(["q1"], "prompt", "turn the cat bright green"))
    stack.push(SetField(["q1"], "quality", "Analysis"))
    stack.push(set_image_role("q1", "unused", row_id=p.conn.execute(
        "SELECT id FROM sample_images WHERE sample_id = 'q1' AND role = 'input'").fetchone()[0]))
    stack.push(SetTag(["q5"], "unsafe", False))
    stack.push(SetFeedbackLabel("q1", "q1r1", "failure", "hue shift"))
    stack.push(AcceptProposals(["q4"]))
    # a quality set and undone is still a curator's touch: kept too
    stack.push(SetField(["q3"], "quality", "Trash"))
    stack.undo()
    # a user who edits the file with sqlite3, outside Winnow
    p.conn.execute("UPDATE samples SET prompt = 'typed in sqlite3' WHERE id = 'q2'")
    before = {sid: (_sample(p, sid), p.conn.execute(
        "SELECT role, sha256, bbox_x FROM sample_images WHERE sample_id = ? ORDER BY id",
        (sid,)).fetchall()) for sid in ("q1", "q2", "q3", "q4", "q5")}
    # a new template version: every answer is new, and every one would rewrite the fields
    from core.propose.templates import current, save_version

    for kind in KINDS:
        t = current(p, kind)
        save_version(p, kind, t.system, t.user + "\nBe precise.")
    report = run(p, server.url, posts=select_posts(p, "all"))
    assert report.cached == 0 and report.kept > 0
    after = {sid: (_sample(p, sid), p.conn.execute(
        "SELECT role, sha256, bbox_x FROM sample_images WHERE sample_id = ? ORDER BY id",
        (sid,)).fetchall()) for sid in ("q1", "q2", "q3", "q4", "q5")}
    assert after == before
    assert p.conn.execute("SELECT label, keyword FROM feedback_labels WHERE sample_id = 'q1' "
                          "AND post_id = 'q1r1'").fetchone() == ("failure", "hue shift")
    assert p.conn.execute("SELECT count(*) FROM sample_tags WHERE sample_id = 'q5' AND "
                          "tag = 'unsafe'").fetchone()[0] == 0
    status = _status(p, "q1")
    assert status["prompt"] == "corrected" and status["quality"] == "corrected"
    assert status["roles"] == "corrected" and status["feedback/q1r1"] == "corrected"
    assert status["safety"] == "proposed" and status["feedback/q1r2"] == "proposed"
    assert set(_status(p, "q4").values()) == {"accepted"}
    assert _status(p, "q2")["prompt"] == "corrected"
    # an untouched field follows the new template's answer
    version = p.conn.execute(
        "SELECT t.version FROM proposal_fields f JOIN proposals q ON q.id = f.proposal_id "
        "JOIN proposal_templates t ON t.id = q.template_id WHERE f.sample_id = 'q1' AND "
        "f.field = 'safety'").fetchone()[0]
    assert version == 2


def test_accept_is_undoable(posts_project, server) -> None:
    run(posts_project, server.url, kinds=["quality", "prompt"])
    stack = UndoStack(posts_project)
    assert stack.push(AcceptProposals(["q1", "q4"]))
    assert set(_status(posts_project, "q1").values()) == {"accepted"}
    stack.undo()
    assert set(_status(posts_project, "q1").values()) == {"proposed"}
    stack.redo()
    assert set(_status(posts_project, "q4").values()) == {"accepted"}
    assert not stack.push(AcceptProposals(["q1"]))  # nothing left to accept: no step
