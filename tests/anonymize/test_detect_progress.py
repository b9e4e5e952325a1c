"""Detection reports real progress: per stage and per tile (issue 14 item 8: Detect must
not sit at 0 % for half a minute on a big photo)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from anon_helpers import need_centerface
from PIL import Image

from core.imaging import faces
from core.imaging import photos as repo
from core.imaging.detect import TILE, DetectSettings, _tile_plan, detect_all
from core.jobs import Cancelled, JobState
from core.store import Project
from ui.anonymize.workers import STEPS, detect_job


def _photo(width: int, height: int) -> np.ndarray:
    rng = np.random.default_rng(3)
    small = rng.integers(0, 255, (height // 40, width // 40, 3), np.uint8)
    return np.asarray(Image.fromarray(small).resize((width, height), Image.Resampling.BILINEAR))


def test_detect_all_reports_each_tile_then_plates() -> None:
    need_centerface()
    rgb = _photo(2400, 1600)
    settings = DetectSettings(min_face_px=20)
    _global, scale, overlap = _tile_plan(1600, 2400, 20)
    tiles = len(faces.tile_origins(round(1600 * scale), round(2400 * scale), TILE, overlap))
    assert tiles > 1
    seen: list[tuple[float, str]] = []
    detect_all(rgb, settings, progress=lambda f, s: seen.append((f, s)))
    fractions = [f for f, _s in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    stages = [s for _f, s in seen]
    # the plate pass and the face runs share two lanes (ADR 117): each run is reported
    # once when it ends, tiles counted in the order they end
    assert stages.count("faces, whole photo") == 1 and stages.count("licence plates") == 1
    assert [s for s in stages if "tile" in s] == [f"faces, tile {i} of {tiles}"
                                                  for i in range(1, tiles + 1)]
    assert stages[-1] == "done" and len(stages) == tiles + 3
    assert 0 < fractions[0] < 0.5  # the first report comes before most of the work


@pytest.mark.parametrize(("lanes", "first_move"), [("1", 0.35), ("2", 0.2)])
def test_detect_job_moves_the_bar_within_a_photo_and_cancels_between_tiles(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lanes: str, first_move: float
        ) -> None:
    """On one lane (the default below 4 cores, ADR 117) the whole-photo pass (~31 % of
    this photo's weighted work) runs first and the bar moves when it ends; on two lanes
    the caller's first tile ends sooner."""
    need_centerface()
    monkeypatch.setenv("WINNOW_DETECT_LANES", lanes)
    src = tmp_path / "wide.png"
    Image.fromarray(_photo(3000, 1500)).save(src)
    with Project.create(tmp_path / "p.winnow") as project:
        photo_id = repo.import_photo(project, src)[0]
        state = JobState()
        progress: list[int] = []
        state.subscribe(lambda s: progress.append(s.done))
        work = detect_job(project.worker_view(), [photo_id], DetectSettings(plates=False))
        found = work(state)
        assert isinstance(found, int)
        steps = sorted(set(progress))
        assert steps[-1] == STEPS and len(steps) >= 5  # decoding, whole photo, tiles …
        assert steps[1] <= STEPS * first_move  # the first move comes early

        cancelled = JobState()

        def cancel_after_first_tile(s: JobState) -> None:
            if "tile 1 of" in s.status and not s.cancelled():
                s.cancel()

        cancelled.subscribe(cancel_after_first_tile)
        with pytest.raises(Cancelled):
            detect_job(project.worker_view(), [photo_id], DetectSettings(plates=False))(
                cancelled)
