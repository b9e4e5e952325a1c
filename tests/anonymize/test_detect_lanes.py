"""Detection on two lanes (issue 18, ADR 117): the plate pass, the whole-photo face pass
and the small-face tiles run on the calling thread and one helper thread at once, and
give exactly what running them one after the other gives; Cancel and errors still stop
the work."""

from __future__ import annotations

import threading
import time
from functools import partial

import numpy as np
import pytest
from anon_helpers import need_centerface, need_testdata
from plate_helpers import need_text_models, plates_testdata

from core.imaging import lanes
from core.imaging.boxes import Detection
from core.imaging.detect import DetectSettings, centerface_faces, detect_all
from core.imaging.loading import load_rgb
from core.jobs import Cancelled, JobState


@pytest.fixture
def two_lanes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WINNOW_DETECT_LANES", "2")


def test_results_come_back_in_task_order_from_both_lanes(two_lanes: None) -> None:
    threads: dict[int, int] = {}

    def task(i: int) -> int:
        threads[i] = threading.get_ident()
        time.sleep(0.01)
        return i * i

    got = lanes.run_tasks([partial(task, i) for i in range(12)])
    assert got == [i * i for i in range(12)]
    assert len(set(threads.values())) == 2  # the caller and the helper both worked
    assert threads[11] == threading.get_ident()  # the caller takes from the back


def test_two_tasks_run_at_the_same_time(two_lanes: None) -> None:
    meet = threading.Barrier(2, timeout=10)  # broken (an error) unless both run at once
    assert lanes.run_tasks([lambda: meet.wait() >= 0, lambda: meet.wait() >= 0]) == [True, True]


def test_one_lane_runs_everything_in_order_on_the_caller(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setenv("WINNOW_DETECT_LANES", "1")
    order: list[tuple[int, int]] = []
    def task(i: int) -> None:
        order.append((i, threading.get_ident()))

    lanes.run_tasks([partial(task, i) for i in range(5)])
    assert order == [(i, threading.get_ident()) for i in range(5)]


def test_done_is_never_called_twice_at_once(two_lanes: None) -> None:
    inside = threading.Lock()
    calls: list[int] = []

    def done(index: int) -> None:
        assert inside.acquire(blocking=False), "two done() calls overlap"
        time.sleep(0.002)
        calls.append(index)
        inside.release()

    lanes.run_tasks([lambda: time.sleep(0.001)] * 20, done=done)
    assert sorted(calls) == list(range(20))


def test_cancel_stops_both_lanes_and_is_raised(two_lanes: None) -> None:
    state = JobState()
    ran: list[int] = []

    def task(i: int) -> None:
        ran.append(i)
        if len(ran) == 3:
            state.cancel()
        time.sleep(0.005)

    with pytest.raises(Cancelled):
        lanes.run_tasks([partial(task, i) for i in range(40)], check=state.check)
    assert 3 <= len(ran) <= 5  # at most the run each lane had started
    time.sleep(0.05)
    assert len(ran) <= 5  # and nothing ran after the call returned


def test_an_error_on_the_helper_reaches_the_caller(two_lanes: None) -> None:
    def fail() -> None:
        raise OSError("model file unreadable")

    # the helper takes from the front: the failing task is the helper's
    with pytest.raises(OSError, match="unreadable"):
        lanes.run_tasks([fail, *[lambda: time.sleep(0.01)] * 5])


def test_a_task_on_the_helper_may_run_tasks_itself(two_lanes: None) -> None:
    def nested() -> list[int]:
        return lanes.run_tasks([lambda: 1, lambda: 2])

    assert lanes.run_tasks([nested, nested, lambda: [3]]) == [[1, 2], [1, 2], [3]]


def test_two_callers_at_once_share_the_helper(two_lanes: None) -> None:
    out: dict[str, list[int]] = {}

    def task(i: int) -> int:
        time.sleep(0.003)
        return i

    def caller(name: str) -> None:
        out[name] = lanes.run_tasks([partial(task, i) for i in range(15)])

    threads = [threading.Thread(target=caller, args=(n,)) for n in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert out == {"a": list(range(15)), "b": list(range(15))}


def _big_photo() -> np.ndarray:
    """bald_guys.jpg upscaled to 2400 × 1867 (a tile pass) with a US plate photo pasted
    in (a plate), so every kind of run takes part."""
    import cv2

    rgb = load_rgb(need_testdata("faces") / "bald_guys.jpg")
    big = cv2.resize(rgb, (2400, 1867), interpolation=cv2.INTER_CUBIC)
    car = load_rgb(sorted((plates_testdata() / "us").glob("*.jpg"))[0])
    h, w = min(car.shape[0], 1867), min(car.shape[1], 2400)
    big[-h:, -w:] = car[:h, :w]
    return big


def _boxes(found: list[Detection]) -> list[tuple[object, ...]]:
    return [(d.kind, d.x, d.y, d.w, d.h, d.score, d.detector) for d in found]


@pytest.mark.parametrize("detector", ["centerface", "centerface+hog"])
def test_two_lanes_find_exactly_what_one_lane_finds(monkeypatch: pytest.MonkeyPatch,
                                                     detector: str) -> None:
    need_centerface()
    need_text_models()
    big = _big_photo()
    settings = DetectSettings(face_detector=detector)
    monkeypatch.setenv("WINNOW_DETECT_LANES", "1")
    one = _boxes(detect_all(big, settings))
    monkeypatch.setenv("WINNOW_DETECT_LANES", "2")
    two = _boxes(detect_all(big, settings))
    assert two == one
    assert {k for k, *_ in one} == {"face", "plate"} and len(one) >= 10
    # two detections at once (a Detect job beside a release check) find the same too
    got: list[list[tuple[object, ...]]] = []
    worker = threading.Thread(target=lambda: got.append(_boxes(detect_all(big, settings))))
    worker.start()
    faces_alone = centerface_faces(big, settings.face_threshold, settings.min_face_px)
    worker.join(timeout=120)
    assert got == [one]
    assert len(faces_alone) >= 10


def test_a_missing_text_model_still_stops_detection(two_lanes: None,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """An error of the plate pass (run on the helper lane) reaches the caller as before."""
    need_centerface()
    from core.imaging import ocr, plates

    def missing(*_args: object, **_kwargs: object) -> None:
        raise plates.TextModelMissingError("Plate detection needs the rapidocr package")

    monkeypatch.setattr(ocr, "ppocr_session", missing)
    rgb = np.zeros((480, 640, 3), np.uint8)
    with pytest.raises(plates.TextModelMissingError, match="rapidocr"):
        detect_all(rgb, DetectSettings())


def test_tasks_of_a_task_on_the_caller_share_both_lanes(two_lanes: None) -> None:
    """The plate pass runs on the calling thread; work it hands to the lanes itself is
    shared with the helper once the helper has finished what it took."""
    threads: set[int] = set()

    def leaf() -> None:
        threads.add(threading.get_ident())
        time.sleep(0.01)

    def parent() -> int:
        return len(lanes.run_tasks([leaf] * 12))

    # the helper takes the short task (front), the caller the parent (back)
    assert lanes.run_tasks([lambda: time.sleep(0.005), parent]) == [None, 12]
    assert len(threads) == 2


def test_a_caller_never_waits_for_a_helper_busy_elsewhere(two_lanes: None) -> None:
    """While the helper is busy with another detection's long run, a caller runs all of
    its own tasks and returns without waiting for the helper."""
    release = threading.Event()
    started = threading.Event()

    def long() -> None:
        started.set()
        assert release.wait(timeout=30)

    busy = lanes._helper().submit(long)  # the helper, busy elsewhere
    assert started.wait(timeout=10)
    try:
        assert lanes.run_tasks([lambda: 1, lambda: 2, lambda: 3]) == [1, 2, 3]
        assert not busy.done()  # returned while the helper was still busy
    finally:
        release.set()
        busy.result(timeout=30)
