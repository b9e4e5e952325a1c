"""How many threads the model sessions use (issue 18 item 4, ADR 116)."""

from __future__ import annotations

import os

import pytest

from core.imaging import faces


def test_one_thread_per_core_at_most_four_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WINNOW_MODEL_THREADS", raising=False)
    assert faces.model_threads() == max(1, min(4, os.cpu_count() or 1))
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert faces.model_threads() == 1
    monkeypatch.setattr(os, "cpu_count", lambda: 32)
    assert faces.model_threads() == 4


@pytest.mark.parametrize(("value", "expected"), [("1", 1), (" 3 ", 3), ("64", 64)])
def test_the_environment_sets_the_count(monkeypatch: pytest.MonkeyPatch, value: str,
                                        expected: int) -> None:
    monkeypatch.setenv("WINNOW_MODEL_THREADS", value)
    assert faces.model_threads() == expected


@pytest.mark.parametrize("value", ["0", "-2", "65", "two", "1.5", ""])
def test_a_bad_value_is_ignored(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setenv("WINNOW_MODEL_THREADS", value)
    assert faces.model_threads() == 2


def test_sessions_take_the_count_and_never_spin(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("onnxruntime")
    monkeypatch.setenv("WINNOW_MODEL_THREADS", "1")
    options = faces.session_options()
    assert options.intra_op_num_threads == 1
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
