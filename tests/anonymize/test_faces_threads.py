"""How many threads the model sessions use (issue 18 item 4, ADR 116)."""

from __future__ import annotations

import os

import pytest

from core.imaging import faces
from core.imaging import lanes as lanes_module


@pytest.mark.parametrize(("cores", "lanes", "threads"),
                         [(1, 1, 1), (2, 1, 2), (3, 1, 3), (4, 2, 2), (8, 2, 4),
                          (32, 2, 4)])
def test_the_cores_are_shared_among_the_lanes_at_most_four_by_default(
        monkeypatch: pytest.MonkeyPatch, cores: int, lanes: int, threads: int) -> None:
    """From 4 cores two lanes run models at once (ADR 117), each session with half the
    cores; below that one lane, each session with every core (at most 4 threads)."""
    monkeypatch.delenv("WINNOW_MODEL_THREADS", raising=False)
    monkeypatch.delenv("WINNOW_DETECT_LANES", raising=False)
    monkeypatch.setattr(lanes_module, "usable_cores", lambda: cores)
    assert lanes_module.lanes() == lanes
    assert faces.model_threads() == threads


def test_one_lane_gives_every_session_every_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WINNOW_MODEL_THREADS", raising=False)
    monkeypatch.setenv("WINNOW_DETECT_LANES", "1")
    monkeypatch.setattr(lanes_module, "usable_cores", lambda: 2)
    assert lanes_module.lanes() == 1 and faces.model_threads() == 2
    monkeypatch.setenv("WINNOW_DETECT_LANES", "2")
    assert lanes_module.lanes() == 2 and faces.model_threads() == 1
    monkeypatch.setenv("WINNOW_DETECT_LANES", "7")  # not 1 or 2: ignored
    assert lanes_module.lanes() == 1 and faces.model_threads() == 2


@pytest.mark.parametrize(("value", "expected"), [("1", 1), (" 3 ", 3), ("64", 64)])
def test_the_environment_sets_the_count(monkeypatch: pytest.MonkeyPatch, value: str,
                                        expected: int) -> None:
    monkeypatch.setenv("WINNOW_MODEL_THREADS", value)
    assert faces.model_threads() == expected


@pytest.mark.parametrize("value", ["0", "-2", "65", "two", "1.5", ""])
def test_a_bad_value_is_ignored(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setattr(lanes_module, "usable_cores", lambda: 4)
    monkeypatch.delenv("WINNOW_DETECT_LANES", raising=False)
    monkeypatch.setenv("WINNOW_MODEL_THREADS", value)
    assert faces.model_threads() == 2


def test_sessions_take_the_count_and_never_spin(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("onnxruntime")
    monkeypatch.setenv("WINNOW_MODEL_THREADS", "1")
    options = faces.session_options()
    assert options.intra_op_num_threads == 1
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_usable_cores_follow_the_affinity(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process pinned to one core (taskset, a container's cpuset) runs one lane."""
    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("no CPU affinity on this platform")
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {3})
    monkeypatch.delenv("WINNOW_DETECT_LANES", raising=False)
    monkeypatch.delenv("WINNOW_MODEL_THREADS", raising=False)
    assert lanes_module.usable_cores() == 1 and lanes_module.lanes() == 1
    assert faces.model_threads() == 1
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(6)))
    assert lanes_module.usable_cores() == 6 and faces.model_threads() == 3
