"""Validation, templates, hand-made samples, the key store and the report, without a server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.curate.commands import EditConflict, SetField, UndoStack
from core.propose import secrets
from core.propose.client import ProposeEndpoint
from core.propose.commands import NewSampleFromPost
from core.propose.kinds import ImageRef, InvalidProposal, Subject, parse_kinds, validate
from core.propose.report import Confusion, iou
from core.propose.templates import current, ensure_saved, save_version
from core.retry import RetryPolicy, parse_retry_after, retryable_status


def _subject() -> Subject:
    return Subject("p", "turn my cat green", "turn my cat green\nlooks yellow",
                   [ImageRef(0, "a" * 64, "in.png", 2000, 1000, 1024, 512)],
                   {"r1": "looks yellow"})


@pytest.mark.parametrize(("kind", "answer", "reason"), [
    ("prompt", "not json", "not JSON"),
    # int() refuses 5,000 digits with a plain ValueError (no .msg/.pos); deep nesting
    # raises RecursionError: both once escaped as AttributeError / RecursionError
    ("prompt", '{"has_prompt": true, "prompt": "x", "n": ' + "9" * 5000 + "}",
     "not usable JSON"),
    ("prompt", "[" * 100_000 + "]" * 100_000, "not usable JSON"),
    ("prompt", "[1, 2]", "not an object"),
    ("prompt", '{"has_prompt": true}', "lacks the field 'prompt'"),
    ("prompt", '{"has_prompt": true, "prompt": "x", "extra": 1}', "unknown field"),
    ("prompt", '{"has_prompt": "yes", "prompt": "x"}', "true or false"),
    ("prompt", '{"has_prompt": true, "prompt": "' + "x" * 200 + '"}', "longer than the post"),
    ("roles", '{"images": [{"index": 3, "role": "input", "is_screenshot": false}]}',
     "names image 3"),
    ("roles", '{"images": [{"index": 0, "role": "hero", "is_screenshot": false}]}',
     "must be one of"),
    ("screenshots", '{"screenshots": [{"image": 0, "prompt": "", "boxes": [{"role": "input",'
                    ' "box": [1000, 0, 100, 10]}]}]}', "outside image 0"),
    ("screenshots", '{"screenshots": [{"image": 0, "prompt": "", "boxes": [{"role": "input",'
                    ' "box": [0, 0, 0, 10]}]}]}', "no area"),
    ("screenshots", '{"screenshots": [{"image": 0, "prompt": "", "boxes": [{"role": "input",'
                    ' "box": [0, 0, 10]}]}]}', "must have 4 items"),
    ("feedback", '{"feedback": [{"reply_id": "r9", "label": "success", "keyword": ""}]}',
     "not a reply"),
    ("feedback", '{"feedback": [{"reply_id": "r1", "label": "failure", "keyword": ""}]}',
     "without a keyword"),
    ("feedback", '{"feedback": [{"reply_id": "r1", "label": "failure", "keyword": '
                 '"the colours drifted towards yellow everywhere"}]}', "not short"),
    ("fill-in", '{"is_template": true, "completions": [{"reply_id": "r1", "completion": "x",'
                ' "prompt": ""}]}', "empty prompt"),
    ("quality", '{"quality": "Great", "reason": ""}', "must be one of"),
    ("safety", '{"unsafe": true, "categories": ["spiders"]}', "must be one of"),
])
def test_bad_answers_are_refused_with_the_reason(kind: str, answer: str, reason: str) -> None:
    with pytest.raises(InvalidProposal, match=reason):
        validate(kind, answer, _subject())


def test_good_answers_are_normalised() -> None:
    s = _subject()
    assert validate("prompt", '```json\n{"has_prompt": true, "prompt": " cat "}\n```', s) \
        == {"has_prompt": True, "prompt": "cat"}
    fb = validate("feedback", '{"feedback": [{"reply_id": "r1", "label": "failure", '
                              '"keyword": " Color Drift. "}]}', s)
    assert fb["feedback"][0]["keyword"] == "color drift"
    assert validate("safety", '{"unsafe": false, "categories": ["hate"]}', s) == {
        "unsafe": False, "categories": []}
    assert parse_kinds("quality, fill,prompt") == ("prompt", "fill-in", "quality")


def test_the_client_uses_the_one_retry_policy() -> None:
    """Proposals retry like every HTTP client (core/retry.py, ADR 019), with longer caps
    for a long job against a hosted API."""
    from core.propose.client import ProposeClient, ProposeEndpoint

    client = ProposeClient(ProposeEndpoint(base_url="http://x.invalid/v1", model="m", attempts=3,
                                           backoff=1.0))
    assert isinstance(client.policy, RetryPolicy) and client.policy.attempts == 3
    assert client.policy.delay(1, retry_after=500.0) == 120.0
    assert retryable_status(429) and not retryable_status(400)
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=lambda: 1445412470.0) == 10.0


def test_templates_make_versions_and_render_only_known_placeholders(project) -> None:
    first = ensure_saved(project, "quality")
    assert first.version == 1 and first.id is not None
    same = save_version(project, "quality", first.system, first.user)
    assert same.id == first.id  # unchanged text: no new version
    second = save_version(project, "quality", first.system, 'Post: {post} {"x": {thread}}')
    assert second.version == 2 and current(project, "quality").id == second.id
    _system, user = second.render({"post": "P", "thread": "T"})
    assert user == 'Post: P {"x": T}'
    with pytest.raises(ValueError, match="needs an instruction"):
        save_version(project, "quality", "", "  ")


def test_new_sample_from_post_is_undoable(posts_project) -> None:
    p = posts_project
    stack = UndoStack(p)
    command = NewSampleFromPost("q1")
    assert stack.push(command)
    sid = command.new_id
    row = p.conn.execute("SELECT post_id, prompt, original_prompt FROM samples WHERE id = ?",
                         (sid,)).fetchone()
    assert row == ("q1", "turn my cat green please #ai", "turn my cat green please #ai")
    assert [r[0] for r in p.conn.execute("SELECT post_id FROM feedback WHERE sample_id = ? "
                                         "ORDER BY position", (sid,))] == ["q1r1", "q1r2"]
    assert p.conn.execute("SELECT count(*) FROM sample_images WHERE sample_id = ?",
                          (sid,)).fetchone()[0] == 0  # roles to assign
    second = NewSampleFromPost("q1")
    stack.push(second)
    assert second.new_id == "q1~2"
    stack.undo()
    stack.undo()
    assert p.conn.execute("SELECT count(*) FROM samples WHERE post_id = 'q1'").fetchone()[0] == 0
    stack.redo()
    assert p.conn.execute("SELECT id FROM samples WHERE post_id = 'q1'").fetchone()[0] == sid
    with pytest.raises(KeyError, match="no post 'nope'"):
        stack.push(NewSampleFromPost("nope"))


def test_a_hand_sample_keeps_its_curated_fields_from_proposals(posts_project) -> None:
    from core.propose.apply import apply_value
    from core.propose.store import Outcome, insert

    p = posts_project
    stack = UndoStack(p)
    make = NewSampleFromPost("q4")
    stack.push(make)
    stack.push(SetField([make.new_id], "quality", "Analysis"))
    tpl = ensure_saved(p, "quality")
    with p.transaction():
        pid = insert(p, Outcome("q4", "quality", tpl.id, "h", "ok",
                                value={"quality": "Trash", "reason": ""}), "m", None)
        applied = apply_value(p, pid, "quality", {"quality": "Trash", "reason": ""},
                              Subject("q4", "", "", [], {}))
    assert applied["applied"] == [] and "set by a curator" in applied["kept"][0]
    assert p.conn.execute("SELECT quality FROM samples WHERE id = ?",
                          (make.new_id,)).fetchone()[0] == "Analysis"
    with pytest.raises(EditConflict):
        make.undo(p)  # nothing is deleted out from under later edits


def test_keyring_keeps_the_key_per_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    keyring = pytest.importorskip("keyring")
    from keyring.backend import KeyringBackend

    class Memory(KeyringBackend):
        priority = 1  # type: ignore[assignment]
        store: dict[tuple[str, str], str] = {}

        def get_password(self, service, username):  # type: ignore[no-untyped-def]
            return self.store.get((service, username))

        def set_password(self, service, username, password):  # type: ignore[no-untyped-def]
            self.store[(service, username)] = password

        def delete_password(self, service, username):  # type: ignore[no-untyped-def]
            self.store.pop((service, username), None)

    old = keyring.get_keyring()
    keyring.set_keyring(Memory())
    try:
        monkeypatch.delenv(secrets.KEY_ENV, raising=False)
        secrets.store_key("http://Host:8000/v1/", "k1")
        assert secrets.api_key("http://host:8000/v1") == ("k1", "keyring")
        assert secrets.api_key("http://other/v1") == (None, "none")
        monkeypatch.setenv(secrets.KEY_ENV, "from-env")
        assert secrets.api_key("http://host:8000/v1") == ("from-env", "environment")
        monkeypatch.delenv(secrets.KEY_ENV)
        secrets.store_key("http://host:8000/v1", "")
        assert secrets.api_key("http://host:8000/v1") == (None, "none")
    finally:
        keyring.set_keyring(old)


def test_no_keyring_service_is_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets, "_keyring", lambda: None)
    with pytest.raises(secrets.KeyStoreError, match="WINNOW_PROPOSE_API_KEY"):
        secrets.store_key("http://h/v1", "k")


def test_confusion_and_iou() -> None:
    c = Confusion(["a", "b"])
    for pair in (("a", "a"), ("a", "b"), ("b", "b"), ("b", "b")):
        c.add(*pair)
    assert c.matrix() == [[1, 1], [0, 2]] and c.to_json()["agreement"] == 0.75
    assert iou([0, 0, 10, 10], [0, 0, 10, 10]) == 1.0
    assert iou([0, 0, 10, 10], [5, 0, 10, 10]) == pytest.approx(50 / 150)
    assert iou([0, 0, 1, 1], [5, 5, 1, 1]) == 0.0


def test_report_measures_accepted_and_corrected(posts_project, server) -> None:
    from propose_helpers import run

    from core.curate.image_edits import set_image_role
    from core.propose.commands import AcceptProposals, SetFeedbackLabel
    from core.propose.report import build, keyword_counts

    p = posts_project
    run(p, server.url)
    stack = UndoStack(p)
    stack.push(SetField(["q1"], "quality", "Analysis"))
    stack.push(AcceptProposals(["q4", "q2"]))
    out_row = p.conn.execute("SELECT id FROM sample_images WHERE sample_id = 'q1' AND "
                             "role = 'output'").fetchone()[0]
    stack.push(set_image_role("q1", "unused", row_id=out_row))
    box = p.conn.execute("SELECT id, bbox_x, bbox_y, bbox_w, bbox_h FROM sample_images WHERE "
                         "sample_id = 'q3' AND bbox_x IS NOT NULL").fetchall()
    assert box == []  # q3 is no screenshot
    from core.curate.image_edits import set_box

    rid, x, y, w, h = p.conn.execute(
        "SELECT id, bbox_x, bbox_y, bbox_w, bbox_h FROM sample_images WHERE sample_id = 'q2' "
        "AND role = 'input' AND bbox_x IS NOT NULL").fetchone()
    stack.push(SetField(["q2"], "notes", "fix box"))
    stack.push(set_box("q2", rid, (x, y, w // 2, h)))  # half the width: IoU 0.5
    stack.push(SetFeedbackLabel("q1", "q1r2", "failure", "Identity Shift"))
    r = build(p).to_json()
    quality = {(x["field"], x["template_version"]): x for x in r["rates"]}[("quality", 1)]
    assert quality["corrected"] == 1 and quality["accepted"] == 2
    q = r["confusion"]["quality"]
    labels = q["labels"]
    assert q["matrix"][labels.index("Benchmark")][labels.index("Analysis")] == 1
    roles = r["confusion"]["roles"]
    assert roles["matrix"][roles["labels"].index("output")][roles["labels"].index("unused")] == 1
    assert r["box_iou"]["boxes"] == 2 and r["box_iou"]["mean"] == pytest.approx(0.75)
    assert keyword_counts(p) == [("color drift", 1), ("identity shift", 1)]
    fb = r["confusion"]["feedback"]
    assert fb["matrix"][fb["labels"].index("success")][fb["labels"].index("failure")] == 1
    assert json.dumps(r)  # JSON-ready


@pytest.mark.parametrize(("change", "message"), [
    ({"timeout": float("nan")}, "timeout"),
    ({"timeout": float("inf")}, "timeout"),
    ({"temperature": float("nan")}, "temperature"),
    ({"temperature": -1.0}, "temperature"),
    ({"max_tokens": 0}, "max_tokens"),
    ({"max_tokens": 10**30}, "max_tokens"),
    ({"price_in": float("nan")}, "price"),
    ({"price_out": -5.0}, "price"),
])
def test_endpoint_settings_out_of_range_are_refused(change: dict[str, Any],
                                                    message: str) -> None:
    """`--timeout nan` or `1e309` ran (every request 'timed out', or could wait for ever);
    `--temperature nan` ended in 'Out of range float values are not JSON compliant';
    a negative or NaN price made a negative or NaN cost."""
    with pytest.raises(ValueError, match=message):
        ProposeEndpoint(base_url="http://x.invalid/v1", model="m", **change)
