"""The images of one session's rater files, made once and shared by its files (ADR 057).

:class:`SessionImages` reads what the project recorded for the session (which outputs
each task shows, which are degraded gold copies) and gives every image its final bytes:
inputs fitted within :data:`core.rating.images.LONG_SIDE`, outputs on their sample's
canvas, gold copies with grain matched to the byte length of an output they stand in
for.  Everything is deterministic for a session (seeds derive from its secret), so a
file written again holds the same bytes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable

from core.rating import images
from core.rating.integrity import derive
from core.store.assets import sha256_bytes
from core.store.project import Project

Encoded = tuple[str, bytes]  # (sha256 of the bytes, bytes)


class SessionImages:
    """Final image bytes for the rater files of session ``session_id``."""

    def __init__(self, project: Project, session_id: int, secret: bytes) -> None:
        self.project = project
        self.session_id = session_id
        self.secret = secret
        self._outputs: dict[str, list[str]] = {}  # sample -> its outputs in the session
        for sample, sha in project.conn.execute(
                "SELECT DISTINCT t.sample_id, b.source_sha256 FROM rating_blinding b "
                "JOIN rating_tasks t ON t.session_id = b.session_id AND t.task_id = b.task_id "
                "WHERE b.session_id = ? ORDER BY t.sample_id, b.source_sha256", (session_id,)):
            self._outputs.setdefault(sample, []).append(sha)
        self._canvas: dict[str, tuple[int, int]] = {}
        self._cache: dict[tuple[str, ...], Encoded] = {}

    def input(self, sha: str, box: list[int] | None) -> Encoded:
        """An input image (cropped to ``box``), only ever made smaller."""
        key = ("input", sha, json.dumps(box))
        if key not in self._cache:
            rgb = images.decode(self._bytes(sha), f"{sha[:12]} (an input)", box)
            self._cache[key] = _digest(images.encode(images.fit_within(rgb)))
        return self._cache[key]

    def output(self, sample: str, sha: str) -> Encoded:
        """A model output on its sample's canvas."""
        canvas = self.canvas(sample)
        key = ("output", sha, repr(canvas))
        if key not in self._cache:
            rgb = images.decode(self._bytes(sha), f"{sha[:12]} (an output of sample {sample})")
            self._cache[key] = _digest(images.encode(images.fit(rgb, canvas)))
        return self._cache[key]

    def gold_copy(self, sample: str, seed: str, sha: str, shown: Iterable[str]) -> Encoded:
        """The degraded copy ``sha`` seeded by ``seed``, its length like an output of the
        sample that this task does not show (``shown`` = the task's other outputs).

        ``seed``: the gold unit (:data:`~core.rating.design.GOLD_UNIT`), so that every
        file showing the unit holds the same bytes, as for a real output (ADR 184); in a
        session made before, the option's token (its files are written as they were)."""
        rng = random.Random(derive(self.secret, f"gold/{seed}"))
        outputs = self._outputs.get(sample, [])
        candidates = [o for o in outputs if o not in set(shown)] or outputs
        stand_in = self.output(sample, rng.choice(candidates))[1] if candidates else b""
        target = round(len(stand_in) * rng.uniform(0.93, 1.07))
        rgb = images.fit(images.decode(self._bytes(sha), f"{sha[:12]} (gold copy, sample "
                                                         f"{sample})"), self.canvas(sample))
        return _digest(images.encode_like(rgb, target, derive(self.secret, f"grain/{seed}")))

    def canvas(self, sample: str) -> tuple[int, int]:
        """The size every output of ``sample`` is shown at in this session."""
        if sample not in self._canvas:
            sizes = [images.upright_size(self._bytes(sha), f"{sha[:12]} (an output of "
                                                           f"sample {sample})")
                     for sha in self._outputs.get(sample, [])]
            self._canvas[sample] = images.canvas_for(sizes or [(images.LONG_SIDE,) * 2])
        return self._canvas[sample]

    def _bytes(self, sha: str) -> bytes:
        path = self.project.assets.find(sha)
        if path is None:
            raise FileNotFoundError(f"image {sha[:12]} is missing from {self.project.assets.root}")
        data = path.read_bytes()
        if sha256_bytes(data) != sha:  # edited by hand, or a link to another file (ADR 176)
            raise ValueError(f"image {sha[:12]} in {self.project.assets.root} no longer "
                             "matches what was stored (changed or replaced since)")
        return data


def _digest(data: bytes) -> Encoded:
    return sha256_bytes(data), data
