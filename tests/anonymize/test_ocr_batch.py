"""The recogniser reads crops of one padded width as a batch, its runs two at a time on
one-thread sessions (ADR 168): every crop's input is the one it had alone, and its
reading (text and confidences) is the same.

Real crops: the annotated plates of the tune US and EU photos (``../shared/testdata/
plates``), cut out as the release's check cuts a line (:func:`core.imaging.ocr.line_crop`),
plus wide strips around them (wider than PP-OCR's 320 px once 48 px tall), an empty
crop and a 1 px one.  Skipped, naming what is missing, without the testdata or the
PP-OCR models; with ``CI`` set a missing testdata folder fails.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from plate_helpers import need_text_models, plates_testdata

from core.imaging import ocr
from core.imaging.loading import load_rgb
from core.imaging.ocr import Reading, line_crop, recognise
from core.imaging.plate_eval import annotated

# confidences are rounded to 4 decimals; a batch's scores differ from one crop's alone by
# at most ~2e-6 (onnxruntime's kernels sum in another order), so one rounding step at most
STEP = 1e-4


def _crops() -> list[np.ndarray]:
    """Plate crops of 8 tune photos (4 US, 4 EU): the plate itself, a strip 8 × as wide
    as tall around it (read at its own width, > 320 px), and the plate's left half."""
    folder = plates_testdata()
    need_text_models()
    out: list[np.ndarray] = []
    for sub in ("us", "eu"):
        for truth in annotated(folder / sub, "tune")[:4]:
            rgb = load_rgb(truth.path)
            x, y, w, h = truth.box
            out.append(line_crop(rgb, truth.quad, pad=0.05))
            cx, half = x + w / 2, 4 * h
            strip = np.array([[cx - half, y], [cx + half, y], [cx + half, y + h], [cx - half, y + h]])
            out.append(line_crop(rgb, strip, pad=0.0))
            out.append(line_crop(rgb, truth.quad[[0, 0, 3, 3]] + [[0, 0], [w / 2, 0], [w / 2, 0], [0, 0]]))
    return out


def _one_by_one(crops: list[np.ndarray], min_width: int = 320) -> list[Reading]:
    return [recognise([crop], min_width)[0] for crop in crops]


def _same(batch: list[Reading], alone: list[Reading]) -> None:
    assert len(batch) == len(alone)
    for got, want in zip(batch, alone, strict=True):
        assert got.text == want.text
        assert got.confidences == pytest.approx(want.confidences, abs=STEP)
        assert got.readable == want.readable


class _Spy:
    """The recogniser's session, recording every input it is run on."""

    def __init__(self, session: Any) -> None:
        self.session, self.inputs = session, []

    def run(self, names: Any, feed: dict[str, np.ndarray]) -> Any:
        self.inputs.append(feed["x"].copy())
        return self.session.run(names, feed)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.session, name)


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> _Spy:
    need_text_models()
    spied = _Spy(ocr.ppocr_session(ocr.REC_MODEL, "rec"))
    monkeypatch.setattr(ocr, "ppocr_session", lambda *_a: spied)
    return spied


def test_real_plate_crops_read_the_same_in_a_batch_as_alone() -> None:
    crops = _crops()
    alone = _one_by_one(crops)
    assert sum(r.readable for r in alone) >= 6  # the plates themselves are read
    _same(recognise(crops), alone)
    # a mix: narrow and wide, an empty crop, a 1 px crop, a 1 px tall line, reversed
    odd = [np.zeros((0, 40, 3), np.uint8), np.zeros((1, 1, 3), np.uint8),
           np.full((1, 300, 3), 200, np.uint8)]
    mixed = [odd[0], *crops[::-1], odd[1], *crops[:3], odd[2]]
    readings = recognise(mixed)
    assert readings[0] == readings[len(crops) + 1] == readings[-1] == Reading("", ())
    _same([r for i, r in enumerate(readings) if i not in (0, len(crops) + 1, len(mixed) - 1)],
          [*alone[::-1], *alone[:3]])


def test_each_crop_is_given_the_input_it_had_alone(spy: _Spy) -> None:
    """Batches hold crops of one padded width only, each row exactly the input that crop
    was given alone; a wide crop is never padded to join the narrow ones."""
    crops = _crops()
    _one_by_one(crops)
    alone = list(spy.inputs)
    spy.inputs.clear()
    recognise(crops)
    rows = [row for batch in spy.inputs for row in batch]
    assert len(rows) == len(crops)
    assert len(spy.inputs) < len(crops)  # batched: fewer runs than crops
    widths = {a.shape[3] for a in alone}
    assert 320 in widths and max(widths) > 320  # narrow and wide crops both present
    for want in alone:
        assert any(row.shape == want.shape[1:] and np.array_equal(row, want[0]) for row in rows)
    counts: dict[int, int] = {}
    for a in alone:
        counts[a.shape[3]] = counts.get(a.shape[3], 0) + 1
    per_run = {w: max(1, ocr.BATCH_COLUMNS // w) for w in counts}
    assert len(spy.inputs) == sum(-(-n // per_run[w]) for w, n in counts.items())


def test_short_crops_of_one_width_batch_and_the_batch_is_capped(
    spy: _Spy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The read pass's padding (64 px): only crops of the same width share a run, and a
    run holds at most ``BATCH_COLUMNS`` columns."""
    plates = _crops()[::3]  # the plates themselves, each its own width past 64
    spy.inputs.clear()
    _one_by_one(plates, min_width=64)
    widths = [run.shape[3] for run in spy.inputs]
    a, b = plates[0], plates[next(i for i, w in enumerate(widths) if w != widths[0])]
    repeated = [a, b, a, a, b]
    alone = _one_by_one(repeated, min_width=64)
    spy.inputs.clear()
    monkeypatch.setattr(ocr, "BATCH_COLUMNS", 1)
    _same(recognise(repeated, min_width=64), alone)
    assert [len(run) for run in spy.inputs] == [1] * 5  # capped: one crop a run
    spy.inputs.clear()
    monkeypatch.setattr(ocr, "BATCH_COLUMNS", 320 * 8)
    _same(recognise(repeated, min_width=64), alone)
    assert sorted(len(run) for run in spy.inputs) == [2, 3]  # a × 3, b × 2


def test_no_crops_no_runs(spy: _Spy) -> None:
    assert recognise([]) == []
    assert recognise([np.zeros((1, 5, 3), np.uint8)]) == [Reading("", ())]
    assert spy.inputs == []


def test_a_session_once_made_is_not_looked_for_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model file is resolved when its session is made, not on every call (each look
    walks the bundle and the rapidocr package: ~0.3 ms, ~18 times a release)."""
    need_text_models()
    session = ocr.ppocr_session(ocr.REC_MODEL, "rec")
    looked: list[str] = []
    monkeypatch.setattr(ocr, "ppocr_model_path", lambda name, _kind: looked.append(name))
    assert ocr.ppocr_session(ocr.REC_MODEL, "rec") is session
    assert looked == []
    monkeypatch.setattr(ocr, "_sessions", {})  # none made yet: looked for, and missing
    with pytest.raises(ocr.TextModelMissingError):
        ocr.ppocr_session(ocr.REC_MODEL, "rec")
    assert looked == [ocr.REC_MODEL]


@pytest.mark.parametrize(("cores", "env", "lanes", "threads"),
                         [(1, "", 1, 1), (2, "", 2, 1), (3, "", 2, 1), (4, "", 2, 1),
                          (8, "", 2, 2), (2, "4", 2, 2), (2, "1", 2, 1)])
def test_the_recogniser_runs_on_two_lanes_of_the_model_threads(
    monkeypatch: pytest.MonkeyPatch, cores: int, env: str, lanes: int, threads: int
) -> None:
    """Two recogniser runs at once where 2 cores are usable, sharing the model threads
    (never below one); ``WINNOW_MODEL_THREADS`` still sets the total."""
    from core.imaging import lanes as lanes_module

    monkeypatch.delenv("WINNOW_DETECT_LANES", raising=False)
    monkeypatch.setenv("WINNOW_MODEL_THREADS", env)
    monkeypatch.setattr(lanes_module, "usable_cores", lambda: cores)
    assert (ocr.rec_lanes(), ocr.rec_threads()) == (lanes, threads)


def test_the_runs_share_two_lanes(spy: _Spy, monkeypatch: pytest.MonkeyPatch) -> None:
    """With two lanes the runs go on the calling thread and the helper at once (each
    thread's first run waits for the other's: fails if only one thread runs them); the
    readings are those of one crop a run.  With one lane, the caller runs them all."""
    import threading

    crops = _crops()
    alone = _one_by_one(crops)
    monkeypatch.setattr(ocr, "BATCH_COLUMNS", 320 * 2)  # several runs
    meet = threading.Barrier(2, timeout=10)
    threads: list[str] = []
    run = spy.run

    def first_meets(names: Any, feed: dict[str, np.ndarray]) -> Any:
        name = threading.current_thread().name
        if name not in threads:
            threads.append(name)
            meet.wait()
        return run(names, feed)

    monkeypatch.setattr(spy, "run", first_meets)
    monkeypatch.setattr(ocr, "rec_lanes", lambda: 2)
    _same(recognise(crops), alone)
    assert len(threads) == 2 and threading.current_thread().name in threads
    threads.clear()
    monkeypatch.setattr(spy, "run", lambda names, feed: threads.append(
        threading.current_thread().name) or run(names, feed))
    monkeypatch.setattr(ocr, "rec_lanes", lambda: 1)
    _same(recognise(crops), alone)
    assert set(threads) == {threading.current_thread().name} and len(threads) > 2


def test_one_or_two_threads_a_session_read_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recogniser's session has fewer threads than the other models' (ADR 168): its
    readings equal a session with the model threads (2 on this machine's kind), one crop
    a run, as before."""
    import onnxruntime as ort

    from core.imaging.faces import session_options

    crops = _crops()
    mine = recognise(crops)
    default = ocr.ppocr_session(ocr.REC_MODEL, "rec").get_session_options()
    assert default.intra_op_num_threads == ocr.rec_threads()
    options = session_options()
    options.intra_op_num_threads = 2
    path = str(ocr.ppocr_model_path(ocr.REC_MODEL, "rec"))
    two = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    monkeypatch.setattr(ocr, "_sessions", {ocr.REC_MODEL: two})
    monkeypatch.setattr(ocr, "rec_lanes", lambda: 1)
    _same(mine, _one_by_one(crops))


def test_two_callers_at_once_read_as_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two releases reading at once share the one helper thread: each gets its own
    readings, in its own order."""
    from concurrent.futures import ThreadPoolExecutor

    crops = _crops()
    monkeypatch.setattr(ocr, "BATCH_COLUMNS", 320 * 2)
    monkeypatch.setattr(ocr, "rec_lanes", lambda: 2)
    alone, backwards = _one_by_one(crops), _one_by_one(crops[::-1])
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.submit(recognise, crops), pool.submit(recognise, crops[::-1])
        _same(first.result(timeout=120), alone)
        _same(second.result(timeout=120), backwards)


def test_a_failing_run_is_raised_not_lost(spy: _Spy, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run failing on either lane reaches the caller (no reading is made up)."""
    crops = _crops()
    monkeypatch.setattr(ocr, "BATCH_COLUMNS", 320 * 2)
    monkeypatch.setattr(ocr, "rec_lanes", lambda: 2)
    calls: list[int] = []

    def fails_third(names: Any, feed: dict[str, np.ndarray]) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("onnxruntime failed")
        return spy.session.run(names, feed)

    monkeypatch.setattr(spy, "run", fails_third)
    with pytest.raises(RuntimeError, match="onnxruntime failed"):
        recognise(crops)


def test_the_text_detector_is_handed_the_normalised_pixels(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The text detector's input is (x / 255 − 0.5) / 0.5 of the resized photo, channels
    first, one C-contiguous float32 array: made in place, the values are those of the
    formula to the bit (ADR 203)."""
    import cv2

    fed: list[np.ndarray] = []

    class Session:
        def run(self, _names: Any, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
            fed.append(feed["x"])
            return [np.zeros((1, 1, *feed["x"].shape[2:]), np.float32)]

    monkeypatch.setattr(ocr, "ppocr_session", lambda *_args: Session())
    rgb = np.random.default_rng(3).integers(0, 256, (100, 150, 3), dtype=np.uint8)
    prob, sx, sy = ocr.text_probability(rgb, 96)
    (blob,) = fed
    small = cv2.resize(rgb, (96, 64), interpolation=cv2.INTER_AREA)
    expected = ((small.astype(np.float32) / 255.0 - 0.5) / 0.5).transpose(2, 0, 1)[None]
    assert blob.dtype == np.float32 and blob.flags["C_CONTIGUOUS"]
    assert np.array_equal(blob, expected)
    assert prob.shape == (64, 96) and (sx, sy) == (96 / 150, 64 / 100)
