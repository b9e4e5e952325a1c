"""SIGKILL a real CLI writer at evenly spaced moments of its run; check; run it again.

Run as ``python kill_cli.py WRITER WORK KILLS``; prints one JSON line: the reference
run's exit status and every problem seen. The harness imports the CLI once and forks a
child per run (``app.cli.run_cli`` with the writer's arguments), so a run costs the
command's own time. A reference run in a scratch folder measures the duration and the
result; then for each of ``KILLS`` delays spread evenly over that duration: put back
the starting point (every other trial keeps the previous complete output, to be
replaced), kill the child at that delay, check what is on disk (``integrity_check``,
the project opens for writing, the output is absent, the old or the new complete
version), run the command again unkilled and compare with the reference: same exit
status, same project rows, same output, and no temporary file left (ADR 213).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "interop"))

from kill_harness import integrity, run_forked  # noqa: E402
from safety_helpers import build_project  # noqa: E402

from app.cli import run_cli  # noqa: E402
from core.export_files import MARKER_NAME  # noqa: E402
from core.files import TEMP_MARK  # noqa: E402
from core.store import Project  # noqa: E402
from core.store.project import assets_dir_for  # noqa: E402

LEGACY = Path(__file__).resolve().parents[1] / "rating" / "fixtures" / "legacy_v1"
#: rows a killed run may add by design: its run log line (outcome never set), its
#: audit line, and a split recorded just before its packages were published (ADR 213)
LOG_TABLES = {"audit_log", "metric_runs", "sqlite_stat1", "team_splits", "team_packages",
              "team_assignments"}
#: files whose bytes differ from run to run by design (a fresh key per session / split)
KEYED = (".winnow-session", ".winnow")


def rows(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path.as_uri() + "?mode=ro", uri=True)
    try:
        names = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%' "
            "AND name NOT LIKE 'sample_search%'")]
        return {n: conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names
                if n not in LOG_TABLES}
    finally:
        conn.close()


def tree(path: Path) -> dict[str, str]:
    """Relative name → short hash of every file under ``path`` (or of ``path``)."""
    if path.is_file():
        return {".": hashlib.sha256(path.read_bytes()).hexdigest()[:16]}
    out: dict[str, str] = {}
    for top, _dirs, names in os.walk(path):
        for name in names:
            file = Path(top) / name
            rel = file.relative_to(path).as_posix()
            out[rel] = ("whole" if name == MARKER_NAME or name.endswith(KEYED) else
                        hashlib.sha256(file.read_bytes()).hexdigest()[:16])
    return out


def temps(folder: Path) -> list[str]:
    return [str(Path(top) / n) for top, dirs, names in os.walk(folder)
            for n in dirs + names if TEMP_MARK in n or n.startswith(".incoming-")]


class Writer:
    """One command: ``argv`` run in a trial folder holding ``p.winnow`` and ``out``."""

    output = "out"
    keeps_output = True  # a trial may start with the previous complete output in place
    #: what a run again may say instead of succeeding when the killed run had finished
    #: its output (a split is never redone into its folder, ADR 213)
    finished_refusal: str | None = None

    def __init__(self, base: Path) -> None:
        self.base = base  # the project every trial starts from

    def argv(self, p: Path, out: Path) -> list[str]:
        raise NotImplementedError


def _writer(argv: Any, *, keeps: bool = True, output: str = "out",
            refusal: str | None = None) -> type[Writer]:
    return type("W", (Writer,), {"argv": lambda self, p, out: argv(self, p, out),
                                 "keeps_output": keeps, "output": output,
                                 "finished_refusal": refusal})


WRITERS: dict[str, type[Writer]] = {
    "export-hf": _writer(lambda s, p, o: ["export", "benchmark", str(p), "--out", str(o),
                                          "--format", "hf", "--overwrite"]),
    "export-photos": _writer(lambda s, p, o: ["export", "photos", str(p), "--out", str(o),
                                              "--overwrite"]),
    "metrics-csv": _writer(lambda s, p, o: ["metrics", "export", str(p), "--out", str(o)],
                           output="out.csv"),
    "metrics-parquet": _writer(lambda s, p, o: ["metrics", "export", str(p), "--out", str(o)],
                               output="out.parquet"),
    "session-results": _writer(lambda s, p, o: ["session", "results", str(p), "--session",
                                                "side_by_side", "--out", str(o)],
                               output="out.csv"),
    "curate-split": _writer(lambda s, p, o: ["curate", "split", str(p), "--names",
                                             "Ann,Ben,Cy", "--out", str(o)], keeps=False,
                            refusal="already holds the packages of split"),
    "import-hf": _writer(lambda s, p, o: ["import", "hf", str(s.base.parent / "hf"),
                                          "--project", str(p)], keeps=False),
    "metrics-run": _writer(lambda s, p, o: ["metrics", "run", str(p), "--metric",
                                            "colour_shift"], keeps=False),
    "session-merge-old": _writer(lambda s, p, o: [
        "session", "merge", str(p), str(LEGACY / "side_by_side-R1.winnow-session")],
        keeps=False),
}


def _base(name: str, work: Path) -> Path:
    """The starting project of ``name`` (built once in ``work/base``)."""
    folder = work / "base"
    folder.mkdir(parents=True)
    if name in ("session-results", "session-merge-old"):  # a schema-7 project (ADR 213)
        shutil.copy(LEGACY / "legacy.winnow", folder / "p.winnow")
        shutil.copytree(LEGACY / "legacy.assets", folder / "p.assets")
        if name == "session-results":
            assert run_cli(["session", "merge", str(folder / "p.winnow"),
                            str(LEGACY / "side_by_side-R1.winnow-session")]) == 0
        return folder / "p.winnow"
    if name == "export-photos":
        from interop_helpers import pattern, release

        with Project.create(folder / "p.winnow") as project:
            for k in range(3):
                pattern((60, 40), k).save(folder / f"ph{k}.png")
                release(project, folder / f"ph{k}.png", category="Art", credit="Cy")
        return folder / "p.winnow"
    path = build_project(folder / "p.winnow", n=12)
    if name == "metrics-csv" or name == "metrics-parquet":
        assert run_cli(["metrics", "run", str(path), "--metric", "colour_shift"]) == 0
    if name == "import-hf":
        assert run_cli(["export", "benchmark", str(path), "--out", str(folder / "hf"),
                        "--format", "hf"]) == 0
        with Project.create(folder / "empty.winnow"):
            pass
        return folder / "empty.winnow"
    return path


def _reset(writer: Writer, trial: Path, keep_output: bool) -> None:
    project = trial / "p.winnow"
    for suffix in ("", "-wal", "-shm", ".lock"):
        Path(f"{project}{suffix}").unlink(missing_ok=True)
    shutil.rmtree(assets_dir_for(project), ignore_errors=True)
    trial.mkdir(parents=True, exist_ok=True)
    shutil.copy(writer.base, project)
    if assets_dir_for(writer.base).exists():
        shutil.copytree(assets_dir_for(writer.base), assets_dir_for(project))
    out = trial / writer.output
    if not keep_output:
        shutil.rmtree(out, ignore_errors=True) if out.is_dir() else out.unlink(missing_ok=True)


def _run(writer: Writer, trial: Path, kill_after: float | None) -> tuple[str, float]:
    argv = writer.argv(trial / "p.winnow", trial / writer.output)
    log = trial.parent / "run.log"
    log.unlink(missing_ok=True)

    def child() -> None:  # the command, its output to run.log
        out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(out, 1)
        os.dup2(out, 2)
        try:
            code = run_cli(argv)
        except BaseException:  # noqa: BLE001 - a traceback is exit status 99
            code = 99
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

    code, elapsed = run_forked(child, kill_after)
    return ("killed" if code is None else f"exit {code}"), elapsed


def _state(writer: Writer, trial: Path) -> dict[str, Any]:
    out = trial / writer.output
    return {"rows": rows(trial / "p.winnow"), "out": tree(out) if out.exists() else None}


def main() -> None:
    name, work, kills = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    os.fsync = lambda fd: None  # SIGKILL keeps the page cache: skip the disk waits
    writer = WRITERS[name](_base(name, work))
    ref = work / "ref"
    _reset(writer, ref, False)
    ref_exit, duration = _run(writer, ref, None)
    want = _state(writer, ref)
    trial = work / "trial"
    problems: list[str] = []
    outcomes: list[str] = []
    for k in range(kills):
        delay = duration * (k + 0.5) / kills
        keep = writer.keeps_output and k % 2 == 1
        _reset(writer, trial, keep)
        before = _state(writer, trial)["out"]
        outcome, _ = _run(writer, trial, delay)
        outcomes.append(outcome)
        at = f"killed at {delay:.2f}s"
        if integrity(trial / "p.winnow") != "ok":
            problems.append(f"{at}: the project is damaged")
        try:
            Project.open(trial / "p.winnow").close()
        except Exception as exc:  # noqa: BLE001 - reported
            problems.append(f"{at}: the project does not open: {exc}")
        now = _state(writer, trial)["out"]
        if now is not None and now not in (before, want["out"]):
            problems.append(f"{at}: the output is neither the old nor the new one")
        again, _ = _run(writer, trial, None)
        said = (work / "run.log").read_text(errors="replace")
        if again == "exit 2" and now == want["out"] and writer.finished_refusal and \
                writer.finished_refusal in said:
            again = ref_exit  # complete before the kill: running it again names it
        if again != ref_exit:
            problems.append(f"{at}: the run again gave {again}, not {ref_exit}")
        got = _state(writer, trial)
        if got != want:
            problems.append(f"{at}: the result differs: "
                            + str({k: (got[k], want[k]) for k in got if got[k] != want[k]})[:300])
        left = temps(trial)
        if left:
            problems.append(f"{at}: left {left[:3]}")
    print(json.dumps({"writer": name, "ref": ref_exit, "duration": round(duration, 3),
                      "outcomes": outcomes, "problems": problems}), flush=True)


if __name__ == "__main__":
    main()
