"""Merge is per-file transactional (issue #12 item 4): each broken file is refused with its
name and reason, the next honest file is merged, the exit status says so; merging never
changes the rater's file; a file on a read-only folder or medium merges (#11 item 7)."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import tamper_helpers as th
from rating_helpers import make_session, simple_answer

from app.cli import run_cli
from core.rating.merge import merge_file, merge_files
from core.rating.rater_open import open_for_rating
from core.rating.results import rater_summaries, result_rows
from core.rating.session_file import RatingSession

CASES = {
    "unparsable_answer": (th.unparsable_answer, "its answer is not a JSON object"),
    "unknown_task": (th.unknown_task, "it answers task 'tNOSUCHTASK', which is not in this "
                                      "file"),
    "bad_format_version": (th.bad_format_version, "its format_version 'abc' is not a number"),
    "text_time": (th.text_time, "its time_ms 'slow' is not a whole number"),
}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def three(rproject, tmp_path: Path):  # type: ignore[no-untyped-def]
    files = make_session(rproject, tmp_path / "out", "likert", raters=3)
    for k, f in enumerate(files):
        th.rate_all(f, f"Rater {k}")
    return rproject, files


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_broken_file_is_refused_by_name_and_the_next_is_merged(three, case, capsys) -> None:  # type: ignore[no-untyped-def]
    project, files = three
    mutate, reason = CASES[case]
    mutate(files[1])
    path = project.path
    project.close()
    code = run_cli(["session", "merge", str(path), *map(str, files)])
    out = capsys.readouterr()
    assert code == 1 and "Traceback" not in out.err
    refused = [line for line in out.err.splitlines() if "refused" in line]
    assert len(refused) == 1 and files[1].name in refused[0] and reason in refused[0]
    assert out.out.count("new judgment(s)") == 2
    assert files[0].name in out.out and files[2].name in out.out
    # the project is fine: summary and results work, R2 has nothing
    assert run_cli(["session", "summary", str(path), "--session", "likert"]) == 0


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_same_cases_in_a_file_from_an_earlier_version(tmp_path: Path, case) -> None:
    project, r1, _r2 = th.legacy_copy(tmp_path / "legacy")
    try:
        mutate, reason = CASES[case]
        mutate(r1)
        results, errors = merge_files(project, [r1])
        assert results == [] and len(errors) == 1 and r1.name in errors[0]
        assert reason in errors[0]
    finally:
        project.close()


def test_merging_changes_no_byte_of_the_rater_file_nor_its_folder(three) -> None:  # type: ignore[no-untyped-def]
    project, files = three
    folder = files[0].parent
    before = {p.name: _digest(p) for p in folder.iterdir()}
    results, errors = merge_files(project, files)
    assert errors == [] and len(results) == 3
    again, errors = merge_files(project, files)
    assert errors == [] and all(r.added == 0 for r in again)
    assert {p.name: _digest(p) for p in folder.iterdir()} == before


def test_merging_the_same_file_twice_changes_nothing(three) -> None:  # type: ignore[no-untyped-def]
    project, files = three
    merge_files(project, files)
    counts = [project.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
              for t in ("rating_judgments", "rating_merges", "audit_log")]
    rows = result_rows(project, "likert")
    results, errors = merge_files(project, [files[0], files[0]])
    assert errors == [] and [r.added for r in results] == [0, 0]
    assert [project.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("rating_judgments", "rating_merges", "audit_log")] == counts
    assert result_rows(project, "likert") == rows


@pytest.mark.parametrize("what", ["folder", "missing", "unreadable", "not sqlite"])
def test_files_that_are_not_session_files_say_what_they_are(rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                             what) -> None:
    target = tmp_path / "x.winnow-session"
    expected = {"folder": "is a folder", "missing": "no such file",
                "unreadable": "cannot read", "not sqlite": "not a Winnow session file"}[what]
    if what == "folder":
        target.mkdir()
    elif what == "unreadable":
        if os.geteuid() == 0:
            pytest.skip("root reads every file")
        target.write_bytes(b"x")
        target.chmod(0)
    elif what == "not sqlite":
        target.write_bytes(b"SQLite format 3\x00" + b"\x00" * 80)
    results, errors = merge_files(rproject, [target])
    assert results == [] and len(errors) == 1 and target.name in errors[0]
    assert expected in errors[0]


def test_a_file_still_open_in_the_rater_view_merges_its_saved_answers(rproject,  # type: ignore[no-untyped-def]
                                                                      tmp_path: Path,
                                                                      monkeypatch) -> None:
    path = make_session(rproject, tmp_path / "out", "checklist", raters=1)[0]
    s = RatingSession.open(path)
    s.set_rater("Ada")
    s.submit(s.tasks[0].task_id, simple_answer(s.tasks[0]), time_ms=5)
    assert merge_file(rproject, path).added == 1  # the WAL truncated after each write
    # a write whose truncation did not happen (killed between the two): its answers
    # are only in the -wal, and a merge still reads them
    monkeypatch.setattr(RatingSession, "checkpoint", lambda self: None)
    for t in s.tasks[1:3]:
        s.submit(t.task_id, simple_answer(t), time_ms=5)
    assert Path(f"{path}-wal").stat().st_size > 0  # answers not yet folded into the file
    monkeypatch.undo()
    try:
        assert merge_file(rproject, path).added == 2
    finally:
        s.close()


# -- read-only media (issue #11 item 7, second half) ------------------------------------------
def _rated_file(project, tmp_path: Path, keep_wal: bool) -> Path:  # type: ignore[no-untyped-def]
    path = make_session(project, tmp_path / "out", "side_by_side", raters=1)[0]
    s = RatingSession.open(path)
    s.set_rater("Ada")
    with pytest.MonkeyPatch.context() as mp:
        if keep_wal:  # killed after the commits, before the WAL was truncated
            mp.setattr(RatingSession, "checkpoint", lambda self: None)
        for t in s.tasks[:4]:
            s.submit(t.task_id, simple_answer(t), time_ms=5)
    if keep_wal:  # as a crash leaves it: the answers only in the -wal beside the file
        assert Path(f"{path}-wal").stat().st_size > 0
        media = tmp_path / "media"
        media.mkdir()
        shutil.copy(path, media / path.name)
        shutil.copy(f"{path}-wal", media / f"{path.name}-wal")
        s.close()
        return media / path.name
    s.close()
    media = tmp_path / "media"
    media.mkdir()
    shutil.copy(path, media / path.name)
    return media / path.name


@pytest.mark.parametrize("keep_wal", [False, True], ids=["checkpointed", "with -wal"])
def test_merge_from_a_read_only_folder(rproject, tmp_path: Path, keep_wal: bool) -> None:  # type: ignore[no-untyped-def]
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders; see the mount test below")
    path = _rated_file(rproject, tmp_path, keep_wal)
    before = {p.name: _digest(p) for p in path.parent.iterdir()}
    path.parent.chmod(0o555)
    try:
        result = merge_file(rproject, path)
    finally:
        path.parent.chmod(0o755)
    assert result.added == 4
    assert {p.name: _digest(p) for p in path.parent.iterdir()} == before


@pytest.mark.parametrize("keep_wal", [False, True], ids=["checkpointed", "with -wal"])
def test_merge_from_a_read_only_mount_through_the_cli(rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                      keep_wal: bool) -> None:
    """The folder is bind-mounted read-only in a private mount namespace (``unshare -m``
    as root, ``unshare -rm`` otherwise), so nothing can write there, root included."""
    if not shutil.which("unshare"):
        pytest.skip("no unshare(1) here")
    path = _rated_file(rproject, tmp_path, keep_wal)
    project_path = rproject.path
    rproject.close()
    media = path.parent
    script = (f"mount --bind {media} {media} && mount -o remount,ro,bind {media} && "
              f"touch {media}/probe 2>/dev/null && echo WRITABLE; "
              f"{sys.executable} -m app session merge {project_path} {path}")
    flags = ["-m"] if os.geteuid() == 0 else ["-r", "-m"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    probe = subprocess.run(["unshare", *flags, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a mount namespace here ({probe.stderr.decode()[:80]})")
    done = subprocess.run(["unshare", *flags, "sh", "-c", script], capture_output=True,
                          text=True, env=env, timeout=120)
    assert "WRITABLE" not in done.stdout, "the bind mount is not read-only"
    assert done.returncode == 0, done.stderr
    assert "4 new judgment(s)" in done.stdout and "not a Winnow session file" not in \
        done.stderr
    from core.store import Project

    with Project.open(project_path, readonly=True) as project:
        (summary,) = rater_summaries(project, "side_by_side")
        assert summary.completed == 4 and summary.rater == "Ada"


def test_a_stale_wal_beside_a_file_sent_again_is_refused_by_name(rproject,  # type: ignore[no-untyped-def]
                                                                  tmp_path: Path,
                                                                  monkeypatch) -> None:
    """The rater sends their file mid-session (with its -wal: the app had crashed), then
    the finished file, which replaces the first copy; the first copy's -wal stays beside
    it.  SQLite cannot tell that -wal is not this file's: reading through it found a
    damaged database, and the error stopped the whole merge (the next file was never
    merged).  Now that file is refused, naming its -wal, and the rest merge."""
    first, second = make_session(rproject, tmp_path / "out", "side_by_side")
    th.rate_all(second, "Bob")
    s = RatingSession.open(first)
    s.set_rater("Ada")
    # the crash: answers committed, the WAL not yet truncated
    monkeypatch.setattr(RatingSession, "checkpoint", lambda self: None)
    for t in s.tasks[:4]:
        s.submit(t.task_id, simple_answer(t), time_ms=5)
    monkeypatch.undo()
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(first, inbox / first.name)
    shutil.copy(f"{first}-wal", inbox / f"{first.name}-wal")
    assert merge_file(rproject, inbox / first.name).added == 4
    while (t := s.next_task()) is not None:
        s.submit(t.task_id, simple_answer(t), time_ms=5)
    s.close()
    shutil.copy(first, inbox / first.name)  # the finished file; the old -wal stays
    wal = Path(f"{inbox / first.name}-wal")
    before = _digest(wal)
    results, errors = merge_files(rproject, [inbox / first.name, second])
    assert [r.slot for r in results] == ["R2"] and len(errors) == 1
    assert errors[0].startswith(first.name) and f"{first.name}-wal" in errors[0]
    assert _digest(wal) == before  # never removed nor changed: it is the rater's
    wal.rename(tmp_path / "kept-wal")  # what the message says to do
    assert merge_file(rproject, inbox / first.name).added == len(s.tasks) - 4


def test_a_file_name_with_terminal_escapes_is_printed_escaped(rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                              capsys) -> None:
    """A rater names the file they send back (a mail attachment, a zip): escape sequences
    in that name reached the owner's terminal from ``session merge`` and ``audit`` (clear
    the screen over the refusals above, set the clipboard).  They are printed escaped."""
    good, bad = make_session(rproject, tmp_path / "out", "likert")
    th.rate_all(good, "Ada")
    th.rate_all(bad, "Bob")
    th.duplicates(bad)
    names = []
    for path, tag in ((good, "\x1b[2J"), (bad, "\x1b]52;c;ZXZpbA==\x07")):
        names.append(path.with_name(f"R{tag}.winnow-session"))
        path.rename(names[-1])
    project_path = rproject.path
    rproject.close()
    assert run_cli(["session", "merge", str(project_path), *map(str, names)]) == 1
    assert run_cli(["session", "audit", str(names[1])]) == 1
    out = capsys.readouterr()
    text = out.out + out.err
    assert "\x1b" not in text and "\x07" not in text
    assert "R⟨U+001B⟩[2J.winnow-session" in out.out and "refused: R⟨U+001B⟩]52" in out.err


def test_a_file_checkpointed_while_it_is_merged_is_not_called_stale(rproject,  # type: ignore[no-untyped-def]
                                                                   tmp_path: Path,
                                                                   monkeypatch) -> None:
    """The owner merges a file on a shared folder while its rater view is open.  A file
    with a pending -wal is read twice (with it, and alone); when the rater paused between
    the two reads (a checkpoint), the file alone held an answer more than the read with
    the -wal, and the honest file was refused as having a stale -wal."""
    from core.rating import returned

    path = make_session(rproject, tmp_path / "out", "likert", raters=1)[0]
    s = open_for_rating(path)
    s.set_rater("Ada")
    for t in s.tasks[:3]:
        s.submit(t.task_id, simple_answer(t), time_ms=5)
    reads = []
    real = returned._read_once

    def read_then_rate(*args, **kw):  # type: ignore[no-untyped-def]
        found = real(*args, **kw)
        if not reads:  # the rater answers once more and pauses between the two reads
            task = s.next_task()
            s.submit(task.task_id, simple_answer(task), time_ms=5)
            s.log_event("pause")
            with sqlite3.connect(path) as other:  # what a pause does: fold the -wal in,
                other.execute("PRAGMA wal_checkpoint(PASSIVE)")  # the -wal stays
        reads.append(kw.get("wal"))
        return found

    monkeypatch.setattr(returned, "_read_once", read_then_rate)
    try:
        assert merge_file(rproject, path).added in (3, 4)
    finally:
        s.close()
