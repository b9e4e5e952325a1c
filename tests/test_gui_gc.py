"""Cycles are collected on the GUI thread while the app runs (ADR 167): a cycle that
becomes garbage on a worker thread is freed on the GUI thread, never on the worker, so
no Qt object in a cycle is destroyed off the GUI thread."""

from __future__ import annotations

import gc
import threading
from types import SimpleNamespace

import pytest

pytest.importorskip("PySide6")

from app import gui_gc  # noqa: E402
from app.gui_gc import GuiThreadCollector  # noqa: E402
from core.gc_pause import paused_gc  # noqa: E402


class Node:
    """One half of a reference cycle that records the thread it was freed on."""

    freed_on: list[int] = []

    def __init__(self) -> None:
        self.other: Node | None = None

    def __del__(self) -> None:
        Node.freed_on.append(threading.get_ident())


def _make_garbage_on_a_worker(cycles: int = 3000) -> None:
    def work() -> None:
        for _ in range(cycles):
            a, b = Node(), Node()
            a.other, b.other = b, a  # a cycle only the cyclic collector frees
            del a, b
    worker = threading.Thread(target=work)
    worker.start()
    worker.join()


@pytest.fixture(autouse=True)
def _fresh_nodes() -> None:
    gc.collect()
    Node.freed_on.clear()


def test_without_it_a_worker_thread_frees_the_cycles() -> None:
    """The control: CPython's own collector runs where the allocation is."""
    assert gc.isenabled()
    main = threading.get_ident()
    _make_garbage_on_a_worker()
    assert any(ident != main for ident in Node.freed_on)


def test_installed_the_cycles_are_freed_on_the_gui_thread(qtbot) -> None:  # type: ignore[no-untyped-def]
    main = threading.get_ident()
    collector = GuiThreadCollector().install()
    try:
        assert not gc.isenabled()
        _make_garbage_on_a_worker()
        assert Node.freed_on == []  # nothing collected on the worker
        qtbot.waitUntil(lambda: len(Node.freed_on) > 0, timeout=5000)
        qtbot.waitUntil(lambda: gc.get_count()[0] <= gc.get_threshold()[0], timeout=5000)
        assert set(Node.freed_on) == {main}
        assert collector.collections[0] + collector.collections[1] > 0
    finally:
        collector.uninstall()
    assert gc.isenabled()  # given back as it was
    assert set(Node.freed_on) == {main}


def test_uninstall_leaves_a_disabled_collector_disabled() -> None:
    gc.disable()
    try:
        collector = GuiThreadCollector().install()
        collector.uninstall()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_nothing_is_collected_while_a_bulk_build_runs(qtbot) -> None:  # type: ignore[no-untyped-def]
    collector = GuiThreadCollector().install()
    inside, leave = threading.Event(), threading.Event()

    def bulk() -> None:
        with paused_gc():
            inside.set()
            leave.wait(10)
    worker = threading.Thread(target=bulk)
    worker.start()
    try:
        assert inside.wait(10)
        _make_garbage_on_a_worker()
        collector.check()
        assert Node.freed_on == [] and collector.collections == [0, 0, 0]
    finally:
        leave.set()
        worker.join()
        collector.uninstall()
    assert Node.freed_on  # collected once the build ended (uninstall's collection)


def _fake_gc(monkeypatch: pytest.MonkeyPatch, counts: list[int], state: dict[str, int],
             runs: list[int]) -> None:
    fake = SimpleNamespace(
        get_count=lambda: tuple(counts), get_threshold=lambda: (700, 10, 10),
        get_objects=lambda generation: [None] * state["old"],
        collect=runs.append, isenabled=lambda: True, disable=lambda: None,
        enable=lambda: None)
    monkeypatch.setattr(gui_gc, "gc", fake)


def test_the_oldest_generation_waits_until_it_grew_by_a_quarter(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """CPython's guard: a full collection only when the oldest generation has grown by
    more than a quarter since the last one; else the middle generation is collected."""
    runs: list[int] = []
    state = {"old": 1000}
    _fake_gc(monkeypatch, [701, 11, 11], state, runs)
    now = [0.0]
    collector = GuiThreadCollector()
    collector.clock = lambda: now[0]
    collector.check()  # nothing collected fully yet: the heap counts as grown
    assert runs == [2]
    state["old"] = 1200  # +20 % since the last full collection
    collector.check()
    assert runs == [2, 1]
    state["old"] = 1300  # +30 %, but the heap is not counted again so soon
    now[0] += gui_gc.GUARD_RECHECK_S / 2
    collector.check()
    assert runs == [2, 1, 1]
    now[0] += gui_gc.GUARD_RECHECK_S
    collector.check()
    assert runs == [2, 1, 1, 2]


def test_nothing_runs_until_allocations_pass_the_first_threshold(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """As in CPython, older generations are looked at only when the youngest is due: an
    idle app does not walk its heap every tick."""
    runs: list[int] = []
    counts = [500, 11, 11]
    state = {"old": 1000}
    _fake_gc(monkeypatch, counts, state, runs)
    walked: list[int] = []
    gui_gc.gc.get_objects = lambda generation: walked.append(1) or [None] * state["old"]
    collector = GuiThreadCollector()
    for _ in range(5):
        collector.check()
    assert runs == [] and walked == []
    counts[0] = 701
    counts[1] = 3
    counts[2] = 0
    collector.check()
    assert runs == [0] and walked == []
