"""Kill an operation with SIGKILL at random moments, check what is left, resume it.

Run as ``python kill_harness.py OP WORKDIR KILLS SEED``; prints one JSON line with what
it saw. The harness imports everything once and forks a child per run (POSIX), so a run
costs the operation's own time, not an interpreter start-up. Each trial: reset the
operation's starting point (:meth:`Op.reset`), run it in a child and SIGKILL the child at
a random moment while a whole run would still be going, check the state on disk
(``PRAGMA integrity_check``, whole files only), then run it again unkilled, as a user
would, and check that this resumed run succeeds and leaves the complete result. Trials
go on until ``KILLS`` runs were really killed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from safety_helpers import MODELS, build_project, png, write_sources  # noqa: E402

from core.export_files import MARKER_NAME, Marker  # noqa: E402
from core.export_folder import foreign_entries  # noqa: E402
from core.files import TEMP_MARK  # noqa: E402


def integrity(path: Path) -> str:
    """``PRAGMA integrity_check`` through a read-only connection (changes nothing)."""
    conn = sqlite3.connect(path.as_uri() + "?mode=ro", uri=True)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def count(path: Path, sql: str) -> int:
    conn = sqlite3.connect(path.as_uri() + "?mode=ro", uri=True)
    try:
        return int(conn.execute(sql).fetchone()[0])
    finally:
        conn.close()


class Op:
    """One operation: ``run()`` in the child, ``check()`` after each kill."""

    def __init__(self, work: Path) -> None:
        self.work = work

    def reset(self) -> None:
        """Put back the starting point of a trial (default: go on from the last one)."""

    def run(self) -> None:
        raise NotImplementedError

    def check(self) -> None:
        """Raise AssertionError if the state on disk is not one a user may meet."""

    def final(self) -> dict[str, Any]:
        return {}


N_IMPORT = 20


class Import(Op):
    def __init__(self, work: Path) -> None:
        super().__init__(work)
        from core.store import Project

        self.jsonl, _ = write_sources(work / "src", n=N_IMPORT)
        self.pristine = work / "pristine.winnow"
        Project.create(self.pristine).close()
        self.project = work / "import.winnow"

    def reset(self) -> None:
        import shutil

        from core.store.project import assets_dir_for

        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.project}{suffix}").unlink(missing_ok=True)
        shutil.rmtree(assets_dir_for(self.project), ignore_errors=True)
        shutil.copy(self.pristine, self.project)

    def run(self) -> None:
        from core.ingest.importer import import_jsonl
        from core.store import Project

        with Project.open(self.project) as project:
            import_jsonl(project, self.jsonl, batch_size=5)

    def check(self) -> None:
        assert integrity(self.project) == "ok"
        posts = count(self.project, "SELECT count(*) FROM posts")
        samples = count(self.project, "SELECT count(*) FROM samples")
        assert posts in self.whole_batches(), f"a batch was half written ({posts} posts)"
        assert samples <= posts

    def whole_batches(self) -> set[int]:
        """Post counts a user may meet: the posts among the first 5·k lines (a batch is
        five lines, posts and samples alike), for every k."""
        kinds = ["post_id" not in json.loads(line) for line in
                 self.jsonl.read_text(encoding="utf-8").splitlines()]
        return {sum(kinds[:end]) for end in range(0, len(kinds) + 5, 5)}

    def final(self) -> dict[str, Any]:
        assert integrity(self.project) == "ok"
        assert count(self.project, "SELECT count(*) FROM posts") == N_IMPORT
        assert count(self.project, "SELECT count(*) FROM samples") == N_IMPORT
        missing = count(self.project, "SELECT count(*) FROM post_images WHERE sha256 IS NULL")
        assert missing == 0, f"{missing} images never fetched"
        return {"posts": N_IMPORT}


N_EXPORT = 12


class Export(Op):
    def __init__(self, work: Path) -> None:
        super().__init__(work)
        self.project = build_project(work / "p.winnow", n=N_EXPORT)
        self.out = work / "exports" / "bench"

    def run(self) -> None:
        from core.curate.export import export_benchmark
        from core.store import Project

        with Project.open(self.project, readonly=True) as project:
            export_benchmark(project, self.out, overwrite=True)

    def check(self) -> None:
        if not self.out.exists():
            return
        marker = Marker(self.out)  # a published folder always carries its marker ...
        assert marker.export is not None
        assert foreign_entries(self.out) == []  # ... and every file in it is whole
        lines = (self.out / "samples.jsonl").read_text().splitlines()
        assert len(lines) == N_EXPORT
        for rel in marker.files:
            assert (self.out / rel).is_file(), rel

    def final(self) -> dict[str, Any]:
        self.check()
        leftovers = [p.name for p in self.out.parent.iterdir() if TEMP_MARK in p.name]
        assert leftovers == [], leftovers  # the last run cleaned what the kills left
        return {"files": len(Marker(self.out).files)}


N_PHOTOS = 4


class Anonymize(Op):
    def __init__(self, work: Path) -> None:
        super().__init__(work)
        import io

        from PIL import Image

        self.src = work / "photos"
        (self.src / "sub").mkdir(parents=True)
        for k in range(N_PHOTOS):
            img = Image.open(io.BytesIO(png(k, (80, 60))))
            folder = self.src / "sub" if k % 2 else self.src
            img.save(folder / f"photo{k}.{'png' if k % 3 == 0 else 'jpg'}")
        self.out = work / "anon"

    def reset(self) -> None:
        import shutil

        shutil.rmtree(self.out, ignore_errors=True)

    def run(self) -> None:
        from core.imaging.batch import anonymize_folder
        from core.imaging.detect import DetectSettings

        settings = DetectSettings()
        settings.face_detector = "hog"
        settings.plates = False
        report = anonymize_folder(self.src, self.out, "blur", settings)
        assert not report["errors"], report["errors"]

    def check(self) -> None:
        from PIL import Image

        if not self.out.exists():
            return
        marker = Marker(self.out)
        for top, _dirs, names in os.walk(self.out):
            for name in names:
                path = Path(top) / name
                rel = path.relative_to(self.out).as_posix()
                if TEMP_MARK in name or rel == MARKER_NAME:
                    continue  # a killed write's temp file: never shown as an output
                assert marker.lists(rel, path), f"{rel} is not a whole, recorded output"
                with Image.open(path) as img:
                    img.load()

    def final(self) -> dict[str, Any]:
        self.check()
        outputs = [p for p in self.out.rglob("*") if p.is_file() and p.name != MARKER_NAME]
        assert len(outputs) == N_PHOTOS, [p.name for p in outputs]
        assert not [p for p in outputs if TEMP_MARK in p.name]
        return {"outputs": len(outputs)}


N_SESSION = 20


class SessionCreate(Op):
    def __init__(self, work: Path) -> None:
        super().__init__(work)
        self.pristine = build_project(work / "pristine.winnow", n=N_SESSION)
        self.project = work / "p.winnow"
        self.out = work / "sessions"

    def reset(self) -> None:
        import shutil

        from core.store.project import assets_dir_for

        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.project}{suffix}").unlink(missing_ok=True)
        shutil.rmtree(self.out, ignore_errors=True)
        if not assets_dir_for(self.project).exists():  # assets never change: link once
            assets_dir_for(self.project).symlink_to(assets_dir_for(self.pristine))
        shutil.copy(self.pristine, self.project)

    def design(self) -> Any:
        from core.rating.design import SessionDesign

        return SessionDesign(name="study", protocol="ranking",
                             sample_ids=tuple(f"s{k:03d}" for k in range(N_SESSION)),
                             models=MODELS, raters=3, overlap=1, seed=1)

    def run(self) -> None:
        from core.rating.sessions import create_and_write
        from core.store import Project

        with Project.open(self.project) as project:
            create_and_write(project, self.design(), self.out)

    def check(self) -> None:
        assert integrity(self.project) == "ok"

    def final(self) -> dict[str, Any]:
        assert count(self.project, "SELECT count(*) FROM rating_files WHERE path IS NOT NULL"
                     ) == 3
        return {"files": sorted(p.name for p in self.out.iterdir())}


OPS: dict[str, Callable[[Path], Op]] = {"import": Import, "export": Export,
                                        "anonymize": Anonymize, "session": SessionCreate}


def _child(op: Op) -> None:
    try:
        op.run()
    except BaseException as exc:  # noqa: BLE001 - reported to the harness by exit status
        print(f"child failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        os._exit(3)
    os._exit(0)


def run_forked(child: Callable[[], object], kill_after: float | None
               ) -> tuple[int | None, float]:
    """Run ``child`` in a forked process (it must end with ``os._exit``), SIGKILLed after
    ``kill_after`` seconds unless it ended first: its exit status (None when killed) and
    the seconds it ran."""
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        child()
        os._exit(98)  # a child that returned instead of exiting
    status = None
    if kill_after is not None:
        deadline = started + kill_after
        while time.perf_counter() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            status = None
            time.sleep(0.002)
        else:
            os.kill(pid, signal.SIGKILL)
    if status is None:
        _pid, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - started
    return (None if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)), elapsed


def _run_once(op: Op, kill_after: float | None) -> tuple[str, float]:
    code, elapsed = run_forked(lambda: _child(op), kill_after)
    if code is None:
        return "killed", elapsed
    return ("finished" if code == 0 else f"failed({code})"), elapsed


def _preload() -> None:
    """Import what the operations use once, before forking (children start warm)."""
    import core.curate.export  # noqa: F401
    import core.imaging.batch  # noqa: F401
    import core.ingest.importer  # noqa: F401
    import core.rating.sessions  # noqa: F401


def main() -> None:
    _preload()
    # SIGKILL leaves the page cache alone (only a power cut needs fsync): skip the disk
    # waits, so 20 kills of each operation fit in seconds. Children inherit this.
    os.fsync = lambda fd: None
    name, work, kills, seed = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), \
        int(sys.argv[4])
    work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    # one whole run in a scratch copy tells how long the operation takes
    probe = OPS[name](work / "probe")
    probe.reset()
    outcome, duration = _run_once(probe, None)
    assert outcome == "finished", outcome
    op = OPS[name](work / "trials")
    outcomes: list[str] = []
    resumed: list[str] = []
    final: dict[str, Any] = {}
    while outcomes.count("killed") < kills and len(outcomes) < 3 * kills:
        op.reset()
        outcome, _elapsed = _run_once(op, rng.uniform(0.0, duration))
        outcomes.append(outcome)
        op.check()
        if outcome != "finished":  # killed: the user runs it again
            outcome, _elapsed = _run_once(op, None)
            resumed.append(outcome)
        if outcome == "finished":
            final = op.final()
    print(json.dumps({"op": name, "duration": round(duration, 3), "outcomes": outcomes,
                      "resumed": resumed, "final": final}), flush=True)


if __name__ == "__main__":
    main()
